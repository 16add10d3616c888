// Einsum (opset 12+): the equation is parsed at compile time into per-operand strides for the
// output and the summed indices (repeated letters: diagonals; "...": broadcast dims; implicit
// output: the letters used once, alphabetically, after the ellipsis dims). Up to 4 operands and
// 16 distinct indices. float/double/int32/int64; kernel templates/cpu/einsum.cpp.
#include "compiler/ops/op_util.h"
#include "templates/cpu/misc_params.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace onnxc {
namespace {

constexpr int kEllipsisBase = 1000; ///< labels of ellipsis dims: kEllipsisBase + position

/// One term of the equation as labels: letters as chars, "..." as -1.
std::vector<int> parse_term(const Node &n, const std::string &s) {
  std::vector<int> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "...") == 0) {
      if (std::count(out.begin(), out.end(), -1))
        node_fail(n, "equation term '{}' has more than one '...'", s);
      out.push_back(-1), i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      out.push_back(s[i]);
    } else {
      node_fail(n, "equation term '{}' has the invalid character '{}'", s, s[i]);
    }
  }
  return out;
}

struct EinsumSpec {
  std::vector<std::vector<int>> in_labels; ///< per operand, per axis (ellipsis expanded)
  std::vector<int> out_labels, sum_labels;
  std::map<int, int64_t> size;
};

/// Expands the ellipsis of `term` for an operand of rank `rank`, right-aligned to `ell` dims.
std::vector<int> expand(const Node &n, const std::vector<int> &term, size_t rank, size_t ell) {
  const size_t letters =
      term.size() - static_cast<size_t>(std::count(term.begin(), term.end(), -1));
  const bool has_ell = letters != term.size();
  if (rank < letters || (!has_ell && rank != letters))
    node_fail(n, "an operand of rank {} does not match its equation term of {} indices", rank,
              letters);
  std::vector<int> out;
  for (int l : term)
    if (l == -1)
      for (size_t j = ell - (rank - letters); j < ell; ++j)
        out.push_back(kEllipsisBase + static_cast<int>(j));
    else
      out.push_back(l);
  return out;
}

/// The equation without spaces, split into operand terms and the output term (if "->").
struct Equation {
  std::string text;
  std::vector<std::vector<int>> terms;
  bool explicit_out = false;
  std::vector<int> out;
};

Equation parse_equation(const Node &n) {
  Equation e;
  for (char c : attr_string(n, "equation", ""))
    if (c != ' ')
      e.text += c;
  const size_t arrow = e.text.find("->");
  const std::string lhs = e.text.substr(0, arrow);
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    e.terms.push_back(parse_term(n, lhs.substr(start, comma - start)));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (e.terms.size() != n.inputs.size())
    node_fail(n, "equation '{}' has {} operands but the node has {} inputs", e.text, e.terms.size(),
              n.inputs.size());
  e.explicit_out = arrow != std::string::npos;
  if (e.explicit_out)
    e.out = parse_term(n, e.text.substr(arrow + 2));
  return e;
}

/// The output labels: the explicit output term, or the ellipsis dims then the letters used
/// once, alphabetically.
std::vector<int> output_labels(const Node &n, const Equation &e, const EinsumSpec &s,
                               const std::map<int, int> &uses, size_t ell) {
  std::vector<int> labels;
  if (e.explicit_out) {
    for (int l : e.out) {
      if (l != -1 && !s.size.count(l))
        node_fail(n, "output index '{}' does not appear in any operand", char(l));
      if (l != -1 && std::count(e.out.begin(), e.out.end(), l) > 1)
        node_fail(n, "output index '{}' appears more than once", char(l));
    }
    const bool out_ell = std::count(e.out.begin(), e.out.end(), -1) > 0;
    return expand(n, e.out, e.out.size() - (out_ell ? 1 : 0) + (out_ell ? ell : 0), ell);
  }
  for (size_t j = 0; j < ell; ++j)
    labels.push_back(kEllipsisBase + static_cast<int>(j));
  for (const auto &[l, count] : uses) // std::map: letters in alphabetical (ASCII) order
    if (l < kEllipsisBase && count == 1)
      labels.push_back(l);
  return labels;
}

EinsumSpec einsum_spec(const Node &n) {
  const Equation e = parse_equation(n);
  size_t ell = 0; // dims the ellipsis stands for (the most any operand has)
  for (size_t i = 0; i < e.terms.size(); ++i) {
    const auto letters = static_cast<size_t>(
        std::count_if(e.terms[i].begin(), e.terms[i].end(), [](int l) { return l != -1; }));
    const size_t rank = input_dims(n, i).size();
    if (rank > letters)
      ell = std::max(ell, rank - letters);
  }
  EinsumSpec s;
  std::map<int, int> uses;
  for (size_t i = 0; i < e.terms.size(); ++i) {
    const std::vector<int64_t> dims = input_dims(n, i);
    s.in_labels.push_back(expand(n, e.terms[i], dims.size(), ell));
    for (size_t a = 0; a < dims.size(); ++a) {
      const int l = s.in_labels[i][a];
      ++uses[l];
      int64_t &sz = s.size.emplace(l, dims[a]).first->second;
      if (sz != dims[a] && !(l >= kEllipsisBase && (sz == 1 || dims[a] == 1)))
        node_fail(n, "index '{}' has size {} in one place and {} in another",
                  l >= kEllipsisBase ? std::string("...") : std::string(1, char(l)), sz, dims[a]);
      sz = std::max(sz, dims[a]);
    }
  }
  s.out_labels = output_labels(n, e, s, uses, ell);
  for (const auto &[l, sz] : s.size)
    if (std::find(s.out_labels.begin(), s.out_labels.end(), l) == s.out_labels.end())
      s.sum_labels.push_back(l);
  return s;
}

onnxc_k::EinsumParams einsum_params(const Node &n, const EinsumSpec &s) {
  if (n.inputs.size() > onnxc_k::kEinsumMaxInputs ||
      s.out_labels.size() > onnxc_k::kEinsumMaxLetters ||
      s.sum_labels.size() > onnxc_k::kEinsumMaxLetters)
    node_fail(n, "at most {} operands and {} output and {} summed indices are supported",
              onnxc_k::kEinsumMaxInputs, onnxc_k::kEinsumMaxLetters, onnxc_k::kEinsumMaxLetters);
  onnxc_k::EinsumParams p{};
  p.n_inputs = static_cast<int64_t>(n.inputs.size());
  p.n_out = static_cast<int64_t>(s.out_labels.size());
  p.n_sum = static_cast<int64_t>(s.sum_labels.size());
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const std::vector<int64_t> dims = input_dims(n, i);
    std::map<int, int64_t> stride;
    for (size_t a = dims.size(), st = 1; a-- > 0; st *= static_cast<size_t>(dims[a]))
      if (dims[a] != 1 || s.size.at(s.in_labels[i][a]) == 1)
        stride[s.in_labels[i][a]] += static_cast<int64_t>(st);
    for (size_t l = 0; l < s.out_labels.size(); ++l)
      p.out_strides[i][l] = stride.count(s.out_labels[l]) ? stride[s.out_labels[l]] : 0;
    for (size_t l = 0; l < s.sum_labels.size(); ++l)
      p.sum_strides[i][l] = stride.count(s.sum_labels[l]) ? stride[s.sum_labels[l]] : 0;
  }
  for (size_t l = 0; l < s.out_labels.size(); ++l)
    p.out_dims[l] = s.size.at(s.out_labels[l]);
  for (size_t l = 0; l < s.sum_labels.size(); ++l)
    p.sum_dims[l] = s.size.at(s.sum_labels[l]);
  return p;
}

} // namespace

const OpDef &op_Einsum() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Einsum";
    d.min_opset = 12;
    d.attrs = {{"equation", Attribute::Kind::String, true}};
    d.infer = [](Node &n) {
      if (n.inputs.empty())
        node_fail(n, "needs at least one input");
      const DType dt = input_dtype(n, 0);
      kernel_name(n, "einsum", dt);
      require_inputs_dtype(n, dt, 1, n.inputs.size());
      const EinsumSpec s = einsum_spec(n);
      einsum_params(n, s);
      std::vector<int64_t> out;
      for (int l : s.out_labels)
        out.push_back(s.size.at(l));
      set_output(n, 0, dt, out);
    };
    d.lower = [](const Node &n) {
      KernelCall call = call_on_all(n, kernel_name(n, "einsum", input_dtype(n, 0)), {});
      set_params(call, einsum_params(n, einsum_spec(n)));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
