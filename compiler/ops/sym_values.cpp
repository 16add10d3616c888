// Shapes carried as values: Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters emit
// for dynamic axes, followed at compile time as SymInt expressions (Value::sym_value).
#include "compiler/ops/sym_util.h"

#include <algorithm>

namespace onnxc {

std::vector<SymInt> sym_shape_of(const Node &n); // tensor/shape.cpp

namespace {

using Vals = std::vector<SymInt>;

std::optional<Vals> gather(const Node &n) {
  auto data = input_sym_value(n, 0);
  const Tensor *idx = input_constant(n, 1);
  if (!data || !idx || attr_int(n, "axis", 0) != 0 || input_type(n, 0).rank() != 1)
    return std::nullopt;
  Vals out;
  const int64_t size = static_cast<int64_t>(data->size());
  for (int64_t i : idx->to_int64_vector()) {
    if (i < -size || i >= size)
      node_fail(n, "index {} is out of range for a shape of {} values", i, size);
    out.push_back((*data)[static_cast<size_t>(i < 0 ? i + size : i)]);
  }
  return out;
}

std::optional<Vals> concat(const Node &n) {
  Vals out;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    auto v = input_sym_value(n, i);
    if (!v)
      return std::nullopt;
    out.insert(out.end(), v->begin(), v->end());
  }
  return out;
}

std::optional<Vals> slice(const Node &n) {
  auto data = input_sym_value(n, 0);
  if (!data || n.opset < 10)
    return std::nullopt;
  const Tensor *st = input_constant(n, 1), *en = input_constant(n, 2);
  const Tensor *ax = input_constant(n, 3), *sp = input_constant(n, 4);
  if (!st || !en || (n.has_input(3) && !ax) || (n.has_input(4) && !sp))
    return std::nullopt;
  if (ax && (ax->to_int64_vector() != std::vector<int64_t>{0}) &&
      (ax->to_int64_vector() != std::vector<int64_t>{-1}))
    return std::nullopt;
  const int64_t size = static_cast<int64_t>(data->size());
  const int64_t step = sp ? sp->to_int64_vector().at(0) : 1;
  if (step == 0)
    return std::nullopt;
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    return std::clamp(v < 0 ? v + size : v, lo, hi);
  };
  int64_t b = st->to_int64_vector().at(0), e = en->to_int64_vector().at(0);
  b = step > 0 ? clamp(b, 0, size) : clamp(b, -1, size - 1);
  e = step > 0 ? clamp(e, 0, size) : clamp(e, -1, size - 1);
  Vals out;
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step)
    out.push_back((*data)[static_cast<size_t>(i)]);
  return out;
}

std::optional<Vals> arith(const Node &n) {
  auto a = input_sym_value(n, 0), b = input_sym_value(n, 1);
  if (!a || !b || (a->size() != b->size() && a->size() != 1 && b->size() != 1))
    return std::nullopt;
  Vals out;
  for (size_t i = 0; i < std::max(a->size(), b->size()); ++i) {
    const SymInt &x = (*a)[a->size() == 1 ? 0 : i], &y = (*b)[b->size() == 1 ? 0 : i];
    if (n.op_type == "Add")
      out.push_back(x + y);
    else if (n.op_type == "Sub")
      out.push_back(x - y);
    else if (n.op_type == "Mul")
      out.push_back(x * y);
    else if (y.is_const() && *y.as_const() != 0) // Div on integers truncates; dims are >= 0
      out.push_back(SymInt::floordiv(x, y));
    else
      return std::nullopt;
  }
  return out;
}

std::optional<Vals> compute(const Node &n) {
  const std::string &op = n.op_type;
  if (op == "Shape")
    return sym_shape_of(n);
  if (op == "Size")
    return Vals{sym_product(input_sym_dims(n, 0))};
  if (op == "Gather")
    return gather(n);
  if (op == "Concat")
    return concat(n);
  if (op == "Slice")
    return slice(n);
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Identity" || op == "Cast" ||
      op == "Reshape")
    return input_sym_value(n, 0);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div")
    return arith(n);
  return std::nullopt;
}

} // namespace

void infer_sym_value(Node &n) {
  if (!n.domain.empty() || n.outputs.size() != 1 || !n.outputs[0])
    return;
  Value *out = n.outputs[0];
  const Type &t = out->type;
  if (out->constant || (t.dtype != DType::Int64 && t.dtype != DType::Int32) || !t.is_static() ||
      t.rank() > 1)
    return;
  const std::vector<int64_t> dims = t.static_dims();
  const size_t count = dims.empty() ? 1 : static_cast<size_t>(dims[0]);
  auto vals = compute(n);
  if (!vals || vals->size() != count)
    return;
  if (std::all_of(vals->begin(), vals->end(), [](const SymInt &v) { return v.is_const(); })) {
    std::vector<int64_t> c;
    for (const SymInt &v : *vals)
      c.push_back(*v.as_const());
    Tensor tensor = Tensor::vector_i64(c);
    if (t.rank() == 0)
      tensor = Tensor::scalar_i64(c[0]);
    if (t.dtype == DType::Int64) {
      out->constant = std::make_shared<Tensor>(std::move(tensor));
      return;
    }
  }
  out->sym_value = std::move(*vals);
}

} // namespace onnxc
