// Shape and Size: metadata of the input, known at compile time once shapes are static. Both
// evaluate without the input's data (OpDef::eval) and lower to writing the constant result.
#include "compiler/ops/sym_util.h"

#include <algorithm>
#include <cstring>

namespace onnxc {

/// Dims [start, end) of the input (opset 15 start/end attributes, clamped like Slice).
template <typename D> static std::vector<D> shape_of(const Node &n, const std::vector<D> &dims) {
  int64_t rank = static_cast<int64_t>(dims.size());
  int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
  if (n.opset < 15)
    start = 0, end = rank;
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
  start = clamp(start);
  end = std::max(clamp(end), start);
  return {dims.begin() + start, dims.begin() + end};
}

static std::vector<int64_t> shape_of(const Node &n) { return shape_of(n, input_dims(n, 0)); }

/// Shape of a symbolic input: the dims as expressions (Value::sym_value).
std::vector<SymInt> sym_shape_of(const Node &n) { return shape_of(n, input_sym_dims(n, 0)); }

const OpDef &op_Shape() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Shape";
    d.reads_input_values = false;
    d.attrs = {{"start", Attribute::Kind::Int}, {"end", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      set_output(n, 0, DType::Int64, {static_cast<int64_t>(sym_shape_of(n).size())});
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return std::vector<Tensor>{Tensor::vector_i64(shape_of(n))};
    };
    d.lower = [](const Node &n) { return write_constant_call(n, Tensor::vector_i64(shape_of(n))); };
    return d;
  }();
  return def;
}

const OpDef &op_Size() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Size";
    d.reads_input_values = false;
    d.infer = [](Node &n) {
      input_sym_dims(n, 0);
      set_output(n, 0, DType::Int64, {});
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return std::vector<Tensor>{Tensor::scalar_i64(product(input_dims(n, 0)))};
    };
    d.lower = [](const Node &n) {
      return write_constant_call(n, Tensor::scalar_i64(product(input_dims(n, 0))));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
