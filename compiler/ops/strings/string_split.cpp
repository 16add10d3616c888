// The string ops whose output shape depends on the strings: StringSplit and StringNormalizer
// with stopwords (compiler/ops/strings/string_ops.cpp), evaluated here for constant strings
// and, for strings given at run time, by onnxc_k_string_split (Y has no bound: run-scoped
// memory) and onnxc_k_string_normalize_stop, their outputs shaped by the run.
#include "compiler/ops/op_util.h"
#include "compiler/ops/strings/string_util.h"

#include <algorithm>
#include <set>

namespace onnxc {
namespace {

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// Python's str.split(sep, maxsplit): on runs of ASCII whitespace (ends stripped) when `sep` is
/// empty, else on every occurrence of `sep`; at most `maxsplit` splits when it is >= 0.
std::vector<std::string> split(const std::string &s, const std::string &sep, int64_t maxsplit) {
  std::vector<std::string> parts;
  if (sep.empty()) {
    size_t i = 0;
    while (true) {
      while (i < s.size() && is_space(s[i]))
        ++i;
      if (i == s.size())
        break;
      if (maxsplit >= 0 && static_cast<int64_t>(parts.size()) == maxsplit) {
        parts.push_back(s.substr(i)); // the rest, trailing whitespace included
        break;
      }
      size_t j = i;
      while (j < s.size() && !is_space(s[j]))
        ++j;
      parts.push_back(s.substr(i, j - i));
      i = j;
    }
    return parts;
  }
  size_t start = 0;
  while (maxsplit < 0 || static_cast<int64_t>(parts.size()) < maxsplit) {
    size_t at = s.find(sep, start);
    if (at == std::string::npos)
      break;
    parts.push_back(s.substr(start, at - start));
    start = at + sep.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

std::vector<Tensor> string_split(const Node &n) {
  require_string_input(n, 0);
  const Tensor &x = require_constant(n, 0, "X");
  const std::string sep = attr_string(n, "delimiter", "");
  const int64_t maxsplit = has_attr(n, "maxsplit") ? attr_int(n, "maxsplit", -1) : -1;
  std::vector<std::vector<std::string>> parts;
  size_t widest = 0;
  for (const std::string &s : x.strings()) {
    parts.push_back(split(s, sep, maxsplit));
    widest = std::max(widest, parts.back().size());
  }
  std::vector<int64_t> ydims = x.shape();
  ydims.push_back(static_cast<int64_t>(widest));
  Tensor y(DType::String, ydims), z(DType::Int64, x.shape());
  for (size_t i = 0; i < parts.size(); ++i) {
    z.data_as<int64_t>()[i] = static_cast<int64_t>(parts[i].size());
    std::copy(parts[i].begin(), parts[i].end(), y.strings().begin() + i * widest);
  }
  std::vector<Tensor> outs;
  outs.push_back(std::move(y));
  outs.push_back(std::move(z));
  return outs;
}

std::string ascii_case(std::string s, bool upper) {
  for (char &c : s)
    if (upper && c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
    else if (!upper && c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return s;
}

} // namespace

std::vector<Tensor> normalize_strings(const Node &n) {
  const Tensor &x = require_constant(n, 0, "X");
  const std::string action = attr_string(n, "case_change_action", "NONE");
  const bool sensitive = attr_int(n, "is_case_sensitive", 0) != 0;
  std::set<std::string> stops;
  for (const std::string &w : attr_strings(n, "stopwords"))
    stops.insert(sensitive ? w : ascii_case(w, false));
  std::vector<std::string> kept;
  for (const std::string &s : x.strings())
    if (!stops.count(sensitive ? s : ascii_case(s, false)))
      kept.push_back(action == "NONE" ? s : ascii_case(s, action == "UPPER"));
  if (kept.empty() && x.numel() > 0) // ONNX Runtime's convention: one empty string
    kept.emplace_back();
  std::vector<int64_t> dims{static_cast<int64_t>(kept.size())};
  if (x.rank() == 2)
    dims.insert(dims.begin(), 1);
  Tensor y(DType::String, dims);
  y.strings() = std::move(kept);
  return {std::move(y)};
}

const OpDef &op_StringSplit() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "StringSplit";
    d.min_opset = 20;
    d.attrs = {{"delimiter", Attribute::Kind::String}, {"maxsplit", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      if (values_at_run_time(n, 0)) { // Y's width is the most parts a string has: no bound
        require_string_input(n, 0);
        std::vector<int64_t> x = input_dims(n, 0);
        if (x.size() > 7)
          node_fail(n, "strings given at run time support rank 7 at most");
        std::vector<int64_t> y = x;
        y.push_back(1);
        set_run_time_shaped_output(n, 0, DType::String, y, 0);
        set_output(n, 1, DType::Int64, x);
        return;
      }
      std::vector<Tensor> outs = string_split(n);
      for (size_t i = 0; i < outs.size(); ++i)
        set_output(n, i, outs[i].dtype(), outs[i].shape());
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) { return string_split(n); };
    d.lower = [](const Node &n) -> KernelCall {
      if (!values_at_run_time(n, 0))
        node_fail(n, "its outputs are too large to evaluate at compile time");
      onnxc_k::StrSplitParams p{};
      const std::vector<int64_t> x = input_dims(n, 0);
      p.n = product(x);
      p.maxsplit = has_attr(n, "maxsplit") ? attr_int(n, "maxsplit", -1) : -1;
      p.rank = static_cast<int64_t>(x.size());
      std::copy(x.begin(), x.end(), p.dims);
      Value *z = n.outputs.size() > 1 ? n.outputs[1] : nullptr;
      if (!z)
        node_fail(n, "output Z is needed when X is given at run time");
      KernelCall c{"onnxc_k_string_split", {nullptr, n.inputs[0], n.outputs[0], z}, {}};
      set_params(c, p);
      add_table(c, 0, pack_strings({attr_string(n, "delimiter", "")}),
                n.outputs[0]->name + ".delimiter");
      return c;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
