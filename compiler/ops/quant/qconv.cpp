// ConvInteger (uint8/int8, int32 result) and QLinearConv (requantised uint8/int8 result, int32
// bias): N-D convolution (1-D to 3-D) with groups, strides, pads, dilations and auto_pad. X's
// zero point and scale are per tensor, W's per tensor or per output channel. Kernel:
// onnxc_k_qconv in templates/cpu/quant_gemm.cpp (int16 im2col patches, int32 accumulation).
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/quant/quant_util.h"

namespace onnxc {
namespace {

/// Input indices of a quantised convolution (-1: none).
struct QConvInputs {
  int x, w, x_zp, w_zp, x_scale, w_scale, y_scale, y_zp, bias;
};

constexpr QConvInputs kConvInteger{0, 1, 2, 3, -1, -1, -1, -1, -1};
constexpr QConvInputs kQLinearConv{0, 3, 2, 5, 1, 4, 6, 7, 8};

struct QConvShape {
  int64_t N, C, M, group;
  Window win;
  bool w_per_channel = false;
};

QConvShape qconv_shape(const Node &n, const QConvInputs &q) {
  std::vector<int64_t> x = input_dims(n, q.x), w = input_dims(n, q.w);
  if (x.size() < 3 || w.size() != x.size())
    node_fail(n, "X must be N x C x D1 x ... and W of the same rank, got {} and {}",
              dims_to_string(x), dims_to_string(w));
  QConvShape s{x[0], x[1], w[0], attr_int(n, "group", 1), {}};
  if (s.group < 1 || s.C % s.group != 0 || s.M % s.group != 0 || w[1] != s.C / s.group)
    node_fail(n, "group {} does not fit X {} and W {}", s.group, dims_to_string(x),
              dims_to_string(w));
  std::vector<int64_t> in(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end());
  if (has_attr(n, "kernel_shape") && attr_ints(n, "kernel_shape") != kernel)
    node_fail(n, "kernel_shape {} does not match the weights' spatial dims {}",
              dims_to_string(attr_ints(n, "kernel_shape")), dims_to_string(kernel));
  s.win = make_window(n, in, kernel, false);
  if (n.has_input(q.x_zp))
    per_element(n, q.x_zp, 1, "x's zero point (per tensor)");
  if (n.has_input(q.w_zp))
    s.w_per_channel = per_element(n, q.w_zp, s.M, "w's zero point (per tensor or channel)");
  if (q.x_scale >= 0) {
    per_element(n, q.x_scale, 1, "x_scale");
    per_element(n, q.y_scale, 1, "y_scale");
    if (n.has_input(q.y_zp))
      per_element(n, q.y_zp, 1, "y_zero_point");
    const bool ws = per_element(n, q.w_scale, s.M, "w_scale (per tensor or channel)");
    if (n.has_input(q.w_zp) && ws != s.w_per_channel)
      node_fail(n, "w_scale and w_zero_point must both be per tensor or both per channel");
    s.w_per_channel = ws;
    if (n.has_input(q.bias) && input_dims(n, q.bias) != std::vector<int64_t>{s.M})
      node_fail(n, "bias B has shape {} but there are {} output channels",
                dims_to_string(input_dims(n, q.bias)), s.M);
  }
  return s;
}

void check_types(const Node &n, const QConvInputs &q) {
  for (int i : {q.x, q.w})
    require_dtype(n, input_dtype(n, i), {DType::Uint8, DType::Int8});
  if (n.has_input(q.x_zp) && input_dtype(n, q.x_zp) != input_dtype(n, q.x))
    node_fail(n, "x's zero point must have x's element type");
  if (n.has_input(q.w_zp) && input_dtype(n, q.w_zp) != input_dtype(n, q.w))
    node_fail(n, "w's zero point must have w's element type");
  if (q.bias >= 0 && n.has_input(q.bias))
    require_dtype(n, input_dtype(n, q.bias), {DType::Int32});
}

std::vector<int64_t> out_dims(const QConvShape &s) {
  std::vector<int64_t> out{s.N, s.M};
  out.insert(out.end(), s.win.out.begin(), s.win.out.end());
  return out;
}

KernelCall qconv_call(const Node &n, const QConvInputs &q) {
  QConvShape s = qconv_shape(n, q);
  KernelCall c;
  c.kernel = "onnxc_k_qconv";
  c.args = {n.inputs[q.w],
            n.inputs[q.x],
            n.input(q.w_zp),
            n.input(q.x_zp),
            input_or_null(n, q.w_scale),
            input_or_null(n, q.x_scale),
            input_or_null(n, q.y_scale),
            input_or_null(n, q.y_zp),
            input_or_null(n, q.bias),
            n.outputs[0]};
  const int64_t s_dt = q.x_scale >= 0 ? static_cast<int64_t>(input_dtype(n, q.x_scale)) : 0;
  c.params = {static_cast<int64_t>(input_dtype(n, q.x)),
              static_cast<int64_t>(input_dtype(n, q.w)),
              static_cast<int64_t>(n.outputs[0]->type.dtype),
              s_dt,
              s.w_per_channel,
              s.N,
              s.C,
              s.M,
              s.group};
  std::vector<int64_t> wp = window_params(n, s.win);
  c.params.insert(c.params.end(), wp.begin(), wp.end());
  const int64_t K = s.C / s.group * product(s.win.kernel);
  c.scratch_bytes = int_gemm_scratch(s.M, 1, K, product(s.win.out));
  return c;
}

const std::vector<AttrSpec> kConvAttrs = {
    {"auto_pad", Attribute::Kind::String}, {"dilations", Attribute::Kind::Ints},
    {"group", Attribute::Kind::Int},       {"kernel_shape", Attribute::Kind::Ints},
    {"pads", Attribute::Kind::Ints},       {"strides", Attribute::Kind::Ints}};

} // namespace

const OpDef &op_ConvInteger() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "ConvInteger";
    d.min_opset = 10;
    d.attrs = kConvAttrs;
    d.infer = [](Node &n) {
      check_types(n, kConvInteger);
      set_output(n, 0, DType::Int32, out_dims(qconv_shape(n, kConvInteger)));
    };
    d.lower = [](const Node &n) { return qconv_call(n, kConvInteger); };
    return d;
  }();
  return def;
}

const OpDef &op_QLinearConv() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "QLinearConv";
    d.min_opset = 10;
    d.attrs = kConvAttrs;
    d.infer = [](Node &n) {
      const QConvInputs &q = kQLinearConv;
      check_types(n, q);
      DType s = input_dtype(n, q.x_scale);
      require_dtype(n, s, {DType::Float, DType::Float16, DType::BFloat16});
      if (input_dtype(n, q.w_scale) != s || input_dtype(n, q.y_scale) != s)
        node_fail(n, "x_scale, w_scale and y_scale must have the same element type");
      DType y = n.has_input(q.y_zp) ? input_dtype(n, q.y_zp) : input_dtype(n, q.x);
      if (y != DType::Uint8 && y != DType::Int8)
        node_fail(n, "y_zero_point element type {} is not supported (uint8, int8)", dtype_name(y));
      set_output(n, 0, y, out_dims(qconv_shape(n, q)));
    };
    d.lower = [](const Node &n) { return qconv_call(n, kQLinearConv); };
    return d;
  }();
  return def;
}

} // namespace onnxc
