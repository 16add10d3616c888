// QuantizeLinear, DequantizeLinear (per-tensor, per-axis and blocked; (u)int8, (u)int16, packed
// (u)int4 and (u)int2, float8 e4m3fn/e4m3fnuz/e5m2/e5m2fnuz and float4e2m1, and int32 for
// DequantizeLinear's input) and DynamicQuantizeLinear (float → uint8). Kernels:
// templates/cpu/quant.cpp.
#include "compiler/ops/quant/quant_util.h"

namespace onnxc {
namespace {

const std::vector<AttrSpec> kQdqAttrs = {{"axis", Attribute::Kind::Int},
                                         {"block_size", Attribute::Kind::Int},
                                         {"output_dtype", Attribute::Kind::Int},
                                         {"saturate", Attribute::Kind::Int},
                                         {"precision", Attribute::Kind::Int}};

void require_real(const Node &n, DType dt, const char *what) {
  if (dt != DType::Float && dt != DType::Double && dt != DType::Float16 && dt != DType::BFloat16)
    node_fail(n,
              "{} element type {} is not supported (supported: float, double, float16, bfloat16)",
              what, dtype_name(dt));
}

/// QuantizeLinear's output type: the zero point's, else output_dtype, else uint8.
DType quantize_output(const Node &n) {
  const int64_t out = attr_int(n, "output_dtype", 0);
  if (n.has_input(2)) {
    DType z = input_dtype(n, 2);
    if (out != 0 && out != static_cast<int64_t>(z))
      node_fail(n, "output_dtype {} differs from the zero point's element type {}", out,
                dtype_name(z));
    return z;
  }
  if (out == 0)
    return DType::Uint8;
  if (!dtype_is_known(static_cast<int32_t>(out)))
    node_fail(n, "output_dtype {} is not an ONNX data type", out);
  return static_cast<DType>(out);
}

std::vector<int64_t> layout(const Node &n) {
  require_same_layout(n, 1, 2);
  return scale_layout(n, input_dims(n, 0), input_dims(n, 1), attr_int(n, "axis", 1),
                      attr_int(n, "block_size", 0));
}

OpDef quantize_def() {
  OpDef d;
  d.name = "QuantizeLinear";
  d.min_opset = 10;
  d.attrs = kQdqAttrs;
  d.infer = [](Node &n) {
    DType x = input_dtype(n, 0), y = quantize_output(n);
    require_real(n, x, "x");
    if (input_dtype(n, 1) != x)
      node_fail(n, "y_scale has element type {} but x has {}", dtype_name(input_dtype(n, 1)),
                dtype_name(x));
    require_quantized_dtype(n, y, "output");
    layout(n);
    set_output(n, 0, y, input_dims(n, 0));
  };
  d.lower = [](const Node &n) {
    KernelCall call{
        "onnxc_k_quantize_linear", {n.inputs[0], n.inputs[1], n.input(2), n.outputs[0]}, {}};
    call.params = {static_cast<int64_t>(input_dtype(n, 0)),
                   static_cast<int64_t>(quantize_output(n)), attr_int(n, "saturate", 1)};
    std::vector<int64_t> l = layout(n);
    call.params.insert(call.params.end(), l.begin(), l.end());
    return call;
  };
  return d;
}

/// DequantizeLinear's output type: output_dtype if given, else the scale's.
DType dequantize_output(const Node &n) {
  const int64_t out = attr_int(n, "output_dtype", 0);
  if (out == 0)
    return input_dtype(n, 1);
  if (!dtype_is_known(static_cast<int32_t>(out)))
    node_fail(n, "output_dtype {} is not an ONNX data type", out);
  return static_cast<DType>(out);
}

OpDef dequantize_def() {
  OpDef d;
  d.name = "DequantizeLinear";
  d.min_opset = 10;
  d.attrs = kQdqAttrs;
  d.infer = [](Node &n) {
    DType x = input_dtype(n, 0), y = dequantize_output(n);
    if (x != DType::Int32)
      require_quantized_dtype(n, x, "x");
    if (n.has_input(2) && input_dtype(n, 2) != x)
      node_fail(n, "x_zero_point has element type {} but x has {}", dtype_name(input_dtype(n, 2)),
                dtype_name(x));
    require_real(n, input_dtype(n, 1), "x_scale");
    require_real(n, y, "output");
    layout(n);
    set_output(n, 0, y, input_dims(n, 0));
  };
  d.lower = [](const Node &n) {
    KernelCall call{
        "onnxc_k_dequantize_linear", {n.inputs[0], n.inputs[1], n.input(2), n.outputs[0]}, {}};
    call.params = {static_cast<int64_t>(input_dtype(n, 0)),
                   static_cast<int64_t>(dequantize_output(n)),
                   static_cast<int64_t>(input_dtype(n, 1))};
    std::vector<int64_t> l = layout(n);
    call.params.insert(call.params.end(), l.begin(), l.end());
    return call;
  };
  return d;
}

} // namespace

const OpDef &op_QuantizeLinear() {
  static const OpDef def = quantize_def();
  return def;
}

const OpDef &op_DequantizeLinear() {
  static const OpDef def = dequantize_def();
  return def;
}

const OpDef &op_DynamicQuantizeLinear() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "DynamicQuantizeLinear";
    d.min_opset = 11;
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Float});
      set_output(n, 0, DType::Uint8, input_dims(n, 0));
      set_output(n, 1, DType::Float, {});
      set_output(n, 2, DType::Uint8, {});
    };
    d.lower = [](const Node &n) {
      return call_on_all(n, "onnxc_k_dynamic_quantize_linear", {product(input_dims(n, 0))});
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
