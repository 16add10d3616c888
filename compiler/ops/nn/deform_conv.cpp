// DeformConv (opset 19+, 2-D): a convolution whose sampling positions are shifted by the
// per-position `offset` input (bilinear sampling, zeros outside X) and optionally scaled by
// `mask`; group and offset_group. float/double; kernel templates/cpu/spatial_misc.cpp, params
// misc_params.h.
#include "compiler/ops/nn/nn_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {
void expect_dims(const Node &n, size_t i, const char *what, const std::vector<int64_t> &want) {
  if (n.has_input(i) && input_dims(n, i) != want)
    node_fail(n, "{} must have shape {}, got {}", what, dims_to_string(want),
              dims_to_string(input_dims(n, i)));
}

onnxc_k::DeformConvParams deform_conv_params(const Node &n) {
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  require_inputs_dtype(n, dt, 1, 5);
  const std::vector<int64_t> x = input_dims(n, 0), w = input_dims(n, 1);
  if (x.size() != 4 || w.size() != 4)
    node_fail(n, "only 2-D DeformConv is supported: X {} and W {} must have rank 4",
              dims_to_string(x), dims_to_string(w));
  onnxc_k::DeformConvParams p{};
  p.N = x[0], p.C = x[1], p.H = x[2], p.W = x[3], p.M = w[0];
  p.G = attr_int(n, "group", 1), p.OG = attr_int(n, "offset_group", 1);
  if (p.G < 1 || p.OG < 1 || p.C % p.G != 0 || w[1] != p.C / p.G || p.M % p.G != 0 ||
      p.C % p.OG != 0)
    node_fail(n, "X {} and W {} do not fit group {} and offset_group {}", dims_to_string(x),
              dims_to_string(w), p.G, p.OG);
  const std::vector<int64_t> k = attr_ints(n, "kernel_shape", {w[2], w[3]});
  if (k != std::vector<int64_t>{w[2], w[3]})
    node_fail(n, "kernel_shape {} does not match W {}", dims_to_string(k), dims_to_string(w));
  const Window win = make_window(n, {p.H, p.W}, k, false);
  p.kh = k[0], p.kw = k[1], p.oh = win.out[0], p.ow = win.out[1];
  p.sh = win.strides[0], p.sw = win.strides[1], p.ph = win.pad_begin[0], p.pw = win.pad_begin[1];
  p.dh = win.dilations[0], p.dw = win.dilations[1];
  expect_dims(n, 2, "offset", {p.N, p.OG * p.kh * p.kw * 2, p.oh, p.ow});
  expect_dims(n, 3, "B", {p.M});
  expect_dims(n, 4, "mask", {p.N, p.OG * p.kh * p.kw, p.oh, p.ow});
  return p;
}
} // namespace

const OpDef &op_DeformConv() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "DeformConv";
    d.min_opset = 19;
    d.attrs = {{"dilations", Attribute::Kind::Ints},    {"group", Attribute::Kind::Int},
               {"kernel_shape", Attribute::Kind::Ints}, {"offset_group", Attribute::Kind::Int},
               {"pads", Attribute::Kind::Ints},         {"strides", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      const onnxc_k::DeformConvParams p = deform_conv_params(n);
      set_output(n, 0, input_dtype(n, 0), {p.N, p.M, p.oh, p.ow});
    };
    d.lower = [](const Node &n) {
      KernelCall call;
      call.kernel = kernel_name(n, "deform_conv", input_dtype(n, 0));
      call.args = {n.input(0), n.input(1), n.input(2), n.input(3), n.input(4), n.outputs[0]};
      set_params(call, deform_conv_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
