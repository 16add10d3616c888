// Cast (to the `to` attribute's dtype) and CastLike (opset 15: to the second input's dtype)
// between float, double, float16, bfloat16, int8..int64, uint8..uint64 and bool. The float8
// `saturate` attribute is accepted and ignored: float8, 4-bit and string types are rejected.
#include "compiler/ops/op_util.h"

namespace onnxc {

static void check_castable(const Node &n, DType t, const char *which) {
  switch (t) {
  case DType::Float:
  case DType::Double:
  case DType::Float16:
  case DType::BFloat16:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::Uint8:
  case DType::Uint16:
  case DType::Uint32:
  case DType::Uint64:
  case DType::Bool:
    return;
  default:
    node_fail(n,
              "cannot cast {} element type {}: only float, double, float16, bfloat16, "
              "(u)int8..(u)int64 and bool are supported",
              which, dtype_name(t));
  }
}

static DType cast_target(const Node &n) {
  if (n.op_type == "CastLike")
    return input_dtype(n, 1);
  if (!has_attr(n, "to"))
    node_fail(n, "attribute 'to' is required");
  int64_t to = attr_int(n, "to", 0);
  if (!dtype_is_known(static_cast<int32_t>(to)))
    node_fail(n, "attribute 'to' = {} is not an ONNX data type", to);
  return static_cast<DType>(to);
}

static OpDef cast_def(const char *name, int64_t min_opset) {
  OpDef d;
  d.name = name;
  d.min_opset = min_opset;
  d.attrs = {{"to", Attribute::Kind::Int}, {"saturate", Attribute::Kind::Int}};
  d.infer = [](Node &n) {
    DType to = cast_target(n);
    check_castable(n, input_dtype(n, 0), "from");
    check_castable(n, to, "to");
    set_output(n, 0, to, input_dims(n, 0));
  };
  d.lower = [](const Node &n) {
    DType from = input_dtype(n, 0), to = cast_target(n);
    if (from == to)
      return KernelCall{
          "onnxc_k_copy", {n.inputs[0], n.outputs[0]}, {type_bytes(n.outputs[0]->type)}};
    return KernelCall{
        "onnxc_k_cast",
        {n.inputs[0], n.outputs[0]},
        {static_cast<int64_t>(from), static_cast<int64_t>(to), product(output_dims(n, 0))}};
  };
  return d;
}

const OpDef &op_Cast() {
  static const OpDef def = cast_def("Cast", 6);
  return def;
}

const OpDef &op_CastLike() {
  static const OpDef def = cast_def("CastLike", 15);
  return def;
}

} // namespace onnxc
