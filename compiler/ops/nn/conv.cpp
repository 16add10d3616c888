// Conv: N-D convolution (1-D to 3-D) with groups (incl. depthwise), strides, pads, dilations,
// auto_pad and optional bias. float/double. The kernel (templates/cpu/conv.cpp) runs depthwise
// convolutions directly (output rows in vector registers), 1x1 stride-1 unpadded ones as a GEMM
// on the input plane, 2-D 3x3 stride-1 ones with a constant W as Winograd F(2x2, 3x3) (W
// transformed at compile time; also needs pack-weights), float ones with at most 16 input
// channels (before Winograd) directly on stride-phase rows (kConvFewChannels), and all others
// as a GEMM on im2col panels packed into the scratch buffer; all but im2col only when the
// conv-paths pass marked the node (compiler/passes/conv_paths.h). A constant W of the GEMM
// algorithms is stored pre-packed (the pack-weights pass marks the node; gemm_params.h has the
// layout). A residual fused by fuse-residual (kResidualAttr, input 3) is added after the bias,
// before the activation.
#include "compiler/ops/nn/nn_util.h"
#include "templates/cpu/conv_params.h"

namespace onnxc {
namespace {

struct ConvShape {
  int64_t N, C, M, group;
  Window win;
};

ConvShape conv_shape(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0), w = input_dims(n, 1);
  if (x.size() < 3)
    node_fail(n, "X must be N x C x D1 x ... (rank >= 3), got {}", dims_to_string(x));
  if (w.size() != x.size())
    node_fail(n, "W has rank {} but X has rank {}", w.size(), x.size());
  ConvShape s{x[0], x[1], w[0], attr_int(n, "group", 1), {}};
  if (s.group < 1 || s.C % s.group != 0 || s.M % s.group != 0)
    node_fail(n, "group {} must divide the input channels ({}) and output channels ({})", s.group,
              s.C, s.M);
  if (w[1] != s.C / s.group)
    node_fail(n,
              "channel mismatch: X has {} channels, {} per group (group {}), but W {} expects {}",
              s.C, s.C / s.group, s.group, dims_to_string(w), w[1]);
  std::vector<int64_t> in(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end());
  if (has_attr(n, "kernel_shape") && attr_ints(n, "kernel_shape") != kernel)
    node_fail(n, "kernel_shape {} does not match the weights' spatial dims {}",
              dims_to_string(attr_ints(n, "kernel_shape")), dims_to_string(kernel));
  if (n.has_input(2) && input_dims(n, 2) != std::vector<int64_t>{s.M})
    node_fail(n, "bias B has shape {} but there are {} output channels",
              dims_to_string(input_dims(n, 2)), s.M);
  s.win = make_window(n, in, kernel, false);
  return s;
}

/// Whether the window is 1x1 (every dim), stride 1, unpadded: the pointwise path's.
bool pointwise_window(const Window &w) {
  for (int64_t d = 0; d < w.rank(); ++d)
    if (w.kernel[d] != 1 || w.strides[d] != 1 || w.pad_begin[d] != 0 || w.pad_end[d] != 0)
      return false;
  return true;
}

/// The kernel's algorithm for p: im2col unless the conv-paths pass marked the node
/// (kConvPathsAttr); Winograd also needs its bit, a constant W and the pack-weights pass (W is
/// stored transformed).
onnxc_k::ConvAlgo choose_algo(const Node &n, const ConvShape &s, const onnxc_k::ConvParams &p) {
  using namespace onnxc_k;
  const int64_t paths = attr_int(n, kConvPathsAttr, 0);
  if (paths == 0)
    return kConvIm2col;
  if (p.has_in_scale != 0) /* only the GEMM algos read W (scaled first by the kernel) */
    return pointwise_window(s.win) ? kConvPointwise : kConvIm2col;
  const bool w_packable = attr_int(n, kPackWeightsAttr, 0) != 0 && n.inputs[1]->constant;
  const bool few_ok = (paths & kConvFewChannelsBit) != 0 &&
                      conv_few_supported(p, dtype_bits(input_dtype(n, 0)) / 8) &&
                      (w_packable || p.C * p.w.k_size() <= kFewGatherTaps); /* else W gathered */
  if (s.C / s.group == 1 && conv_dw_supported(p)) {
    /* one input channel in all (a grayscale image's first conv): every output channel reads
       it, the few-channel path's case (1 -> 8 5x5 at 28x28 0.022 -> 0.010 ms, 1 -> 64 5x5 at
       64x64 0.54 -> 0.19 ms at 1 thread, Zen 3), not depthwise planes one channel at a time */
    if (s.group == 1 && few_ok)
      return kConvFewChannels;
    if ((paths & kConvDwChannelsBit) != 0 &&
        conv_dwc_supported(p, dtype_bits(input_dtype(n, 0)) / 8) && conv_dwc_preferred(p))
      return kConvDwChannels;
    return kConvDirect;
  }
  /* before Winograd: with few channels (at most 16 in or 16 out for 3x3 stride-1 windows) the
     direct phase-row path wins over its transforms (8 -> 32 3x3 at 128x128: 0.37 -> 0.32 ms
     at 1 thread), and strided windows over im2col (conv_few_preferred) */
  /* strided windows from more channels: output channels in the lanes (W pre-packed) */
  if ((paths & kConvChanVecBit) != 0 && w_packable &&
      conv_cv_supported(p, dtype_bits(input_dtype(n, 0)) / 8) && conv_cv_preferred(p))
    return kConvChanVec;
  if (few_ok && conv_few_preferred(p, (paths & kConvWinogradBit) != 0 && w_packable))
    return kConvFewChannels;
  if ((paths & kConvWinogradBit) != 0 && attr_int(n, kPackWeightsAttr, 0) != 0 &&
      n.inputs[1]->constant && conv_wino_supported(p) &&
      conv_wino_preferred(p, dtype_bits(input_dtype(n, 0)) / 8))
    return (paths & kConvWinograd4Bit) != 0 &&
                   conv_wino4_preferred(p, dtype_bits(input_dtype(n, 0)) / 8)
               ? kConvWinograd4
               : kConvWinograd;
  return pointwise_window(s.win) ? kConvPointwise : kConvIm2col;
}

/// W in the GEMM kernel's packed-A layout (per group), as a new constant of call's slot 1.
template <typename T>
void pre_pack_weights(const Node &n, const onnxc_k::ConvParams &p, KernelCall &call) {
  const Tensor &w = *n.inputs[1]->constant;
  const std::string key = fmt::format("{}:conv_a:{},{},{},{}", static_cast<const void *>(&w), p.M,
                                      p.C, p.G, p.w.k_size());
  TensorPtr packed = derived_tensor(key, [&] {
    auto t =
        std::make_shared<Tensor>(w.dtype(), std::vector<int64_t>{onnxc_k::conv_packed_w_elems(p)});
    onnxc_k::conv_pack_weights(p, w.data_as<T>(), t->data_as<T>());
    return t;
  });
  call.derived.push_back({1, std::move(packed), n.inputs[1]->name + ".packed"});
  call.args[1] = nullptr;
}

/// W packed per channel block as a new constant of call's slot 1, float (`tag` names the
/// layout in the derived-tensor key and the constant's name): elems elements, written by
/// pack(p, w, dst).
void channel_block_weights(const Node &n, const onnxc_k::ConvParams &p, KernelCall &call,
                           const char *tag, int64_t elems,
                           void (*pack)(const onnxc_k::ConvParams &, const float *, float *)) {
  const Tensor &w = *n.inputs[1]->constant;
  const std::string key = fmt::format("{}:conv_{}:{},{},{}", static_cast<const void *>(&w), tag,
                                      p.M, p.C, p.w.k_size());
  TensorPtr packed = derived_tensor(key, [&] {
    auto t = std::make_shared<Tensor>(w.dtype(), std::vector<int64_t>{elems});
    pack(p, w.data_as<float>(), t->data_as<float>());
    return t;
  });
  call.derived.push_back({1, std::move(packed), fmt::format("{}.{}", n.inputs[1]->name, tag)});
  call.args[1] = nullptr;
}

/// W as the 16 (F(2x2, 3x3)) or 36 (F(4x4, 3x3)) Winograd matrices U_xi (conv_wino_weights),
/// or for a large U of F(2x2, 3x3) as its 9 taps in
/// U's layout (conv_wino_tap_weights; the kernel makes U per panel: wino_run_time_u), as a new
/// constant of call's slot 1.
template <typename T>
void winograd_weights(const Node &n, const onnxc_k::ConvParams &p, KernelCall &call) {
  const Tensor &w = *n.inputs[1]->constant;
  const bool taps = onnxc_k::wino_run_time_u(p, sizeof(T));
  const std::string key = fmt::format("{}:conv_wino{}{}:{},{}", static_cast<const void *>(&w),
                                      onnxc_k::wino_m(p), taps ? "_taps" : "", p.M, p.C);
  TensorPtr u = derived_tensor(key, [&] {
    auto t = std::make_shared<Tensor>(w.dtype(),
                                      std::vector<int64_t>{(taps ? 9 : onnxc_k::wino_nx(p)) *
                                                           onnxc_k::wino_u_elems(p, sizeof(T))});
    if (taps)
      onnxc_k::conv_wino_tap_weights(p, w.data_as<T>(), t->data_as<T>());
    else
      onnxc_k::conv_wino_weights(p, w.data_as<T>(), t->data_as<T>());
    return t;
  });
  call.derived.push_back(
      {1, std::move(u), n.inputs[1]->name + (taps ? ".winograd_taps" : ".winograd")});
  call.args[1] = nullptr;
}

KernelCall lower_conv(const Node &n) {
  ConvShape s = conv_shape(n);
  const onnxc_k::WindowGeom geom = window_geom(n, s.win);
  onnxc_k::ConvParams p{s.N, s.C,           s.M, s.group, geom, 0, n.has_input(2),
                        0,   activation(n), 0,   0,       0};
  p.has_residual = attr_int(n, kResidualAttr, 0) != 0 ? 1 : 0;
  p.has_in_scale = attr_int(n, kInScaleAttr, 0) != 0 ? 1 : 0;
  p.gemm_mr = attr_int(n, kGemmTileRowsAttr, 0);
  p.algo = choose_algo(n, s, p); /* reads the window geometry, has_residual, has_in_scale and
                                    gemm_mr */
  KernelCall call;
  const DType dt = input_dtype(n, 0);
  call.kernel = kernel_name(n, "conv", dt);
  call.args = {n.inputs[0], n.inputs[1], n.input(2), n.outputs[0]};
  if (p.has_residual != 0) { // fuse-residual: Y = act(conv + B + R)
    if (!n.input(3) || p.algo == onnxc_k::kConvDirect || p.algo == onnxc_k::kConvDwChannels ||
        p.algo == onnxc_k::kConvFewChannels)
      node_fail(n, "internal error: a fused residual needs input 3 and a GEMM, Winograd or "
                   "channel-vector algorithm");
    call.args.push_back(n.inputs[3]);
    // Each element of R is read just before Y's is written, so Y may take R's buffer, unless R
    // is also the Conv's input X, which the kernel reads throughout (y = conv(x) + x).
    if (n.inputs[3] != n.inputs[0])
      call.inplace = {{4, 3}};
  }
  if (p.has_in_scale != 0) { // fuse-channel-scale: Y = W (S * X) + B, S after the residual
    if (!n.input(4) || s.N != 1 || s.group != 1 || p.w.k_size() != 1 ||
        (p.algo != onnxc_k::kConvPointwise && p.algo != onnxc_k::kConvIm2col))
      node_fail(n, "internal error: an input scale needs input 4, batch 1, one group, a 1x1 "
                   "window and a GEMM algorithm");
    call.args.push_back(n.inputs[4]);
  }
  if (onnxc_k::conv_is_wino(p)) {
    p.w_packed = 1;
    if (dt == DType::Float)
      winograd_weights<float>(n, p, call);
    else
      winograd_weights<double>(n, p, call);
  } else if (p.algo == onnxc_k::kConvDwChannels) {
    if (attr_int(n, kPackWeightsAttr, 0) != 0 && n.inputs[1]->constant) {
      p.w_packed = 1; // one vector of a channel block's weights per tap
      channel_block_weights(n, p, call, "dwc", onnxc_k::conv_dwc_packed_w_elems(p),
                            onnxc_k::conv_dwc_pack_weights<float>);
    }
  } else if (p.algo == onnxc_k::kConvChanVec) {
    p.w_packed = 1; // kCvOC weights per channel, tap and block (choose_algo: W is constant)
    channel_block_weights(n, p, call, "cv", onnxc_k::conv_cv_packed_w_elems(p),
                          onnxc_k::conv_cv_pack_weights<float>);
  } else if (p.algo == onnxc_k::kConvFewChannels) {
    if (attr_int(n, kPackWeightsAttr, 0) != 0 && n.inputs[1]->constant) {
      p.w_packed = 1; // kFewMB weights per tap and channel block
      channel_block_weights(n, p, call, "few", onnxc_k::conv_few_packed_w_elems(p),
                            onnxc_k::conv_few_pack_weights<float>);
    }
  } else if (p.algo != onnxc_k::kConvDirect && attr_int(n, kPackWeightsAttr, 0) != 0 &&
             n.inputs[1]->constant) {
    p.w_packed = 1;
    if (dt == DType::Float)
      pre_pack_weights<float>(n, p, call);
    else
      pre_pack_weights<double>(n, p, call);
  }
  set_params(call, p);
  call.scratch_bytes = onnxc_k::conv_scratch_bytes(p, dtype_bits(dt) / 8);
  return call;
}

} // namespace

const OpDef &op_Conv() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Conv";
    d.batch_transparent = true;
    d.attrs = {{"auto_pad", Attribute::Kind::String}, {"dilations", Attribute::Kind::Ints},
               {"group", Attribute::Kind::Int},       {"kernel_shape", Attribute::Kind::Ints},
               {"pads", Attribute::Kind::Ints},       {"strides", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double});
      require_inputs_dtype(n, dt, 1, 3);
      ConvShape s = conv_shape(n);
      std::vector<int64_t> out{s.N, s.M};
      out.insert(out.end(), s.win.out.begin(), s.win.out.end());
      set_output(n, 0, dt, out);
    };
    d.lower = lower_conv;
    return d;
  }();
  return def;
}

} // namespace onnxc
