#include "compiler/ops/sym_util.h"

namespace onnxc {

std::vector<SymInt> input_sym_dims(const Node &n, size_t i) {
  const Type &t = input_type(n, i);
  if (!t.shape)
    node_fail(n,
              "the rank of input {} ('{}') is unknown; give the graph input shapes with "
              "--shape NAME=AxBxC",
              i, n.inputs[i]->name);
  if (!t.is_known())
    node_fail(n,
              "input '{}' ({}) has an unknown dimension; give the graph input shapes with "
              "--shape NAME=AxBxC",
              n.inputs[i]->name, shape_to_string(t));
  return t.sym_dims();
}

void set_output_sym(Node &n, size_t i, DType dtype, const std::vector<SymInt> &dims) {
  if (i >= n.outputs.size() || !n.outputs[i])
    return;
  for (const SymInt &d : dims)
    if (auto c = d.as_const(); c && *c < 0)
      node_fail(n, "output {} would have the negative dimension {}", i, *c);
  Type t = Type::of_sym(dtype, dims);
  if (t.is_static())
    set_output(n, i, dtype, t.static_dims()); // checks the element count
  else
    n.outputs[i]->type = t;
}

namespace {
/// "declare --dim seq=1..128 (they are equal there), or bind ..." when two expressions over one
/// symbol agree from 1 up to some value (min(128, seq) and seq), else the --dim advice.
std::string equal_range_hint(const SymInt &a, const SymInt &b) {
  std::set<std::string> syms = a.symbols();
  for (const std::string &s : b.symbols())
    syms.insert(s);
  const std::string bind = "bind the dims with --dim NAME=N";
  if (syms.size() != 1)
    return bind;
  int64_t v = 0;
  for (int64_t x = 1; x <= SymRange::kDefaultMax; ++x) {
    auto at = [&](const std::string &) { return x; };
    if (a.eval(at) != b.eval(at))
      break;
    v = x;
  }
  if (v == 0)
    return bind;
  return fmt::format("they are equal for {0} up to {1}: declare --dim {0}=1..{1}, or {2}",
                     *syms.begin(), v, bind);
}
} // namespace

std::vector<SymInt> broadcast_sym_shapes(const Node &n,
                                         const std::vector<std::vector<SymInt>> &shapes) {
  size_t rank = 0;
  for (const auto &s : shapes)
    rank = std::max(rank, s.size());
  std::vector<SymInt> out(rank, SymInt(1));
  for (const auto &s : shapes)
    for (size_t k = 0; k < s.size(); ++k) {
      SymInt &o = out[rank - s.size() + k];
      const SymInt &v = s[k];
      if (v == o || v == SymInt(1))
        continue;
      if (o == SymInt(1)) {
        o = v;
        continue;
      }
      if (o.is_const() && !v.is_const()) // a symbolic dim against a constant c > 1 gives c
        continue;
      if (!o.is_const() && v.is_const()) {
        o = v;
        continue;
      }
      std::string all;
      for (const auto &x : shapes)
        all += (all.empty() ? "" : " and ") + sym_dims_to_string(x);
      if (o.is_const() && v.is_const())
        node_fail(n, "shapes {} cannot be broadcast together", all);
      node_fail(n,
                "shapes {} broadcast only if '{}' and '{}' are equal or one of them is 1 at "
                "run time; {}",
                all, o.str(), v.str(), equal_range_hint(o, v));
    }
  return out;
}

std::optional<std::vector<SymInt>> input_sym_value(const Node &n, size_t i) {
  const Value *v = n.input(i);
  if (!v)
    return std::nullopt;
  if (v->constant) {
    const Tensor &t = *v->constant;
    if ((t.dtype() != DType::Int64 && t.dtype() != DType::Int32) || t.shape().size() > 1)
      return std::nullopt;
    std::vector<SymInt> out;
    for (int64_t x : t.to_int64_vector())
      out.push_back(x);
    return out;
  }
  return v->sym_value;
}

bool has_symbolic_input(const Node &n) {
  for (const Value *v : n.inputs)
    if (v && !v->type.is_static())
      return true;
  return false;
}

SymInt simplify_in_ranges(const SymInt &e, const std::map<std::string, SymRange> &ranges) {
  const std::set<std::string> syms = e.symbols();
  if (syms.size() != 1 || e == SymInt::symbol(*syms.begin()))
    return e;
  auto it = ranges.find(*syms.begin());
  if (it == ranges.end() || it->second.hi - it->second.lo >= (int64_t{1} << 16))
    return e;
  const SymRange r = it->second;
  bool identity = true, constant = true;
  const int64_t first = e.eval([&](const std::string &) { return r.lo; });
  for (int64_t v = r.lo; v <= r.hi && (identity || constant); ++v) {
    const int64_t x = e.eval([&](const std::string &) { return v; });
    identity = identity && x == v;
    constant = constant && x == first;
  }
  if (identity)
    return SymInt::symbol(*syms.begin());
  if (constant)
    return first;
  return e;
}

std::optional<SymInt> run_time_count_dim(const Node &n) {
  if (!has_attr(n, kCountSymbolAttr))
    return std::nullopt;
  return SymInt::symbol(attr_string(n, kCountSymbolAttr, "")) - SymInt(1);
}

} // namespace onnxc
