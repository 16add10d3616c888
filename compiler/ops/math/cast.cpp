// Cast (to the `to` attribute's dtype) and CastLike (opset 15: to the second input's dtype)
// between float, double, float16, bfloat16, int8..int64, uint8..uint64, bool, the float8 types
// (with `saturate`, default 1), float8e8m0 (with `round_mode`), float4e2m1 and the packed
// (u)int4 / (u)int2. Kernel and rounding rules: templates/cpu/cast.cpp. Strings to and from
// float, double and the 8- to 64-bit integers: templates/cpu/cast_string.cpp. Complex is
// rejected.
#include "compiler/ops/sym_util.h"
#include "templates/cpu/cast_params.h"
#include "templates/cpu/quant_common.h"
#include "templates/cpu/string_params.h"

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
  case DType::Float8E4M3FN:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2:
  case DType::Float8E5M2FNUZ:
  case DType::Float4E2M1:
  case DType::Uint4:
  case DType::Int4:
  case DType::Uint2:
  case DType::Int2:
  case DType::Float8E8M0:
    return;
  default:
    node_fail(n,
              "cannot cast {} element type {}: only float, double, float16, bfloat16, "
              "(u)int2..(u)int64, bool, float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0) and "
              "float4e2m1 are supported",
              which, dtype_name(t));
  }
}

/// A cast with a string side: the other side must be float, double or an 8..64-bit integer.
static void check_string_cast(const Node &n, DType from, DType to) {
  DType other = from == DType::String ? to : from;
  switch (other) {
  case DType::String:
  case DType::Float:
  case DType::Double:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::Uint8:
  case DType::Uint16:
  case DType::Uint32:
  case DType::Uint64:
    return;
  default:
    node_fail(n,
              "cannot cast between string and {}: strings cast only to and from float, "
              "double and the 8- to 64-bit integers",
              dtype_name(other));
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

/// The `round_mode` attribute (float8e8m0 targets) as onnxc_k::quant::E8M0Round.
static int64_t round_mode(const Node &n) {
  std::string m = attr_string(n, "round_mode", "up");
  if (m == "up")
    return onnxc_k::quant::kE8M0Up;
  if (m == "down")
    return onnxc_k::quant::kE8M0Down;
  if (m == "nearest")
    return onnxc_k::quant::kE8M0Nearest;
  node_fail(n, "attribute 'round_mode' = '{}' is not one of up, down, nearest", m);
}

static OpDef cast_def(const char *name, int64_t min_opset) {
  OpDef d;
  d.name = name;
  d.min_opset = min_opset;
  d.attrs = {{"to", Attribute::Kind::Int},
             {"saturate", Attribute::Kind::Int},
             {"round_mode", Attribute::Kind::String}};
  d.infer = [](Node &n) {
    DType to = cast_target(n);
    if (input_dtype(n, 0) == DType::String || to == DType::String) {
      check_string_cast(n, input_dtype(n, 0), to);
    } else {
      check_castable(n, input_dtype(n, 0), "from");
      check_castable(n, to, "to");
    }
    set_output_sym(n, 0, to, input_sym_dims(n, 0));
  };
  d.lower = [](const Node &n) {
    DType from = input_dtype(n, 0), to = cast_target(n);
    if (from == to)
      return KernelCall{
          "onnxc_k_copy", {n.inputs[0], n.outputs[0]}, {type_bytes(n.outputs[0]->type)}};
    if (from == DType::String || to == DType::String) {
      onnxc_k::StrCastParams p{product(output_dims(n, 0)),
                               static_cast<int64_t>(from == DType::String ? to : from)};
      KernelCall call{from == DType::String ? "onnxc_k_cast_from_string" : "onnxc_k_cast_to_string",
                      {n.inputs[0], n.outputs[0]},
                      {}};
      set_params(call, p);
      return call;
    }
    onnxc_k::CastParams p{static_cast<int64_t>(from), static_cast<int64_t>(to),
                          product(output_dims(n, 0)), attr_int(n, "saturate", 1) != 0,
                          round_mode(n)};
    KernelCall call{"onnxc_k_cast", {n.inputs[0], n.outputs[0]}, {}};
    set_params(call, p);
    return call;
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
