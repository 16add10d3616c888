// ConvTranspose: the gradient of Conv with respect to its input (1-D to 3-D), with groups,
// strides, pads, dilations, output_padding, output_shape and auto_pad. float/double.
// Kernel: templates/cpu/conv_transpose.cpp (per image and group a GEMM W_g^T X_g, then col2im).
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/op_util.h"
#include "templates/cpu/conv_transpose_params.h"

namespace onnxc {
namespace {

struct ConvTransposeShape {
  int64_t N, C, M, group;
  std::vector<int64_t> in, out, kernel, strides, dilations, pad_begin;
};

std::vector<int64_t> per_dim(const Node &n, const char *name, size_t rank, int64_t def) {
  std::vector<int64_t> v = attr_ints(n, name, std::vector<int64_t>(rank, def));
  if (v.size() != rank)
    node_fail(n, "attribute '{}' has {} values; expected {} (one per spatial dim)", name,
              v.size(), rank);
  return v;
}

/// Pads (begin) and output size of one spatial dim.
void spatial_dim(const Node &n, ConvTransposeShape &s, size_t d, int64_t out_pad,
                 const std::vector<int64_t> &pads, const std::vector<int64_t> &out_shape,
                 const std::string &auto_pad) {
  const size_t rank = s.in.size();
  const int64_t st = s.strides[d], extent = (s.kernel[d] - 1) * s.dilations[d] + 1;
  const int64_t full = st * (s.in[d] - 1) + out_pad + extent;
  int64_t pb = pads[d], pe = pads[d + rank];
  if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int64_t out = out_shape.empty() ? s.in[d] * st : out_shape[d];
    if (out < 1)
      node_fail(n, "output_shape must be positive, it is {} in spatial dim {}", out, d);
    const int64_t total = full - out; // < 0: the output extends past the last tap (bias only)
    const bool upper = auto_pad == "SAME_UPPER";
    pb = total < 0 ? 0 : upper ? total / 2 : total - total / 2;
    s.pad_begin.push_back(pb);
    s.out.push_back(out);
    return;
  } else if (auto_pad == "VALID") {
    pb = pe = 0;
  }
  if (pb < 0 || pe < 0)
    node_fail(n, "negative pads are not supported");
  if (full - pb - pe <= 0)
    node_fail(n, "the output would be empty in spatial dim {}", d);
  s.pad_begin.push_back(pb);
  s.out.push_back(full - pb - pe);
}

ConvTransposeShape conv_transpose_shape(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0), w = input_dims(n, 1);
  if (x.size() < 3 || x.size() > 5)
    node_fail(n, "X must be N x C x D1 x ... with 1 to 3 spatial dims, got {}",
              dims_to_string(x));
  if (w.size() != x.size())
    node_fail(n, "W has rank {} but X has rank {}", w.size(), x.size());
  ConvTransposeShape s;
  s.N = x[0], s.C = x[1], s.group = attr_int(n, "group", 1);
  if (s.group < 1 || s.C % s.group != 0)
    node_fail(n, "group {} must divide the input channels ({})", s.group, s.C);
  if (w[0] != s.C)
    node_fail(n, "W {} must have X's {} channels as its first dim", dims_to_string(w), s.C);
  s.M = w[1] * s.group;
  if (n.has_input(2) && input_dims(n, 2) != std::vector<int64_t>{s.M})
    node_fail(n, "bias B has shape {} but there are {} output channels",
              dims_to_string(input_dims(n, 2)), s.M);
  const size_t rank = x.size() - 2;
  s.in.assign(x.begin() + 2, x.end());
  s.kernel.assign(w.begin() + 2, w.end());
  if (has_attr(n, "kernel_shape") && attr_ints(n, "kernel_shape") != s.kernel)
    node_fail(n, "kernel_shape {} does not match the weights' spatial dims {}",
              dims_to_string(attr_ints(n, "kernel_shape")), dims_to_string(s.kernel));
  s.strides = per_dim(n, "strides", rank, 1);
  s.dilations = per_dim(n, "dilations", rank, 1);
  std::vector<int64_t> out_pad = per_dim(n, "output_padding", rank, 0);
  std::vector<int64_t> pads = attr_ints(n, "pads", std::vector<int64_t>(2 * rank, 0));
  if (pads.size() != 2 * rank)
    node_fail(n, "attribute 'pads' has {} values; expected {}", pads.size(), 2 * rank);
  std::vector<int64_t> out_shape = attr_ints(n, "output_shape");
  if (out_shape.size() == rank + 2)
    out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (!out_shape.empty() && out_shape.size() != rank)
    node_fail(n, "output_shape has {} values; expected {}", out_shape.size(), rank);
  std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID")
    node_fail(n, "unknown auto_pad '{}'", auto_pad);
  for (size_t d = 0; d < rank; ++d) {
    if (s.strides[d] < 1 || s.dilations[d] < 1 || s.kernel[d] < 1)
      node_fail(n, "strides, dilations and kernel_shape must be positive (dim {})", d);
    if (out_pad[d] < 0 || (out_pad[d] >= s.strides[d] && out_pad[d] >= s.dilations[d]))
      node_fail(n, "output_padding {} must be smaller than the stride or the dilation (dim {})",
                out_pad[d], d);
    spatial_dim(n, s, d, out_pad[d], pads, out_shape, auto_pad);
  }
  return s;
}

} // namespace

const OpDef &op_ConvTranspose() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "ConvTranspose";
    d.batch_transparent = true;
    d.attrs = {{"auto_pad", Attribute::Kind::String},    {"dilations", Attribute::Kind::Ints},
               {"group", Attribute::Kind::Int},          {"kernel_shape", Attribute::Kind::Ints},
               {"output_padding", Attribute::Kind::Ints}, {"output_shape", Attribute::Kind::Ints},
               {"pads", Attribute::Kind::Ints},          {"strides", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double});
      require_inputs_dtype(n, dt, 1, 3);
      ConvTransposeShape s = conv_transpose_shape(n);
      std::vector<int64_t> out{s.N, s.M};
      out.insert(out.end(), s.out.begin(), s.out.end());
      set_output(n, 0, dt, out);
    };
    d.lower = [](const Node &n) {
      ConvTransposeShape s = conv_transpose_shape(n);
      KernelCall call;
      call.kernel = kernel_name(n, "conv_transpose", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1], n.input(2), n.outputs[0]};
      call.params = {s.N, s.C, s.M, s.group, n.has_input(2)};
      auto put = [&](const std::vector<int64_t> &v, int64_t fill) {
        for (size_t k = v.size(); k < 3; ++k)
          call.params.push_back(fill);
        call.params.insert(call.params.end(), v.begin(), v.end());
      };
      put(s.in, 1), put(s.out, 1), put(s.kernel, 1), put(s.strides, 1), put(s.pad_begin, 0);
      put(s.dilations, 1);
      call.params.push_back(attr_int(n, kGemmTileRowsAttr, 0));
      int64_t ks = 1, isz = 1;
      for (int64_t k : s.kernel)
        ks *= k;
      for (int64_t i : s.in)
        isz *= i;
      call.scratch_bytes = onnxc_k::ct_scratch_bytes(s.C / s.group, s.M / s.group, ks, isz,
                                                     dtype_bits(input_dtype(n, 0)) / 8);
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
