// Shared pieces of the nn and matmul op definitions: the sliding-window geometry of Conv and the
// pools (kernel_shape, strides, pads, dilations, auto_pad, ceil_mode), and the lowering of any
// (batched) matrix product to the blocked GEMM kernel onnxc_k_gemm_<dtype>.
#pragma once

#include "compiler/ops/op_util.h"
#include "templates/cpu/params.h"

#include <vector>

namespace onnxc {

/// Sliding window over the spatial dims of an N x C x D1 x ... input.
struct Window {
  std::vector<int64_t> in, out, kernel, strides, dilations, pad_begin, pad_end;
  int64_t rank() const { return static_cast<int64_t>(in.size()); }
};

/// Reads strides, dilations, pads and auto_pad (defaults per ONNX) for a window of size `kernel`
/// over the spatial dims `in`, and computes the output size (floor, or ceil if `ceil_mode`).
/// Throws naming the node on inconsistent attribute lengths or an empty output.
Window make_window(const Node &n, const std::vector<int64_t> &in,
                   const std::vector<int64_t> &kernel, bool ceil_mode);

/// The window as the kernels' typed WindowGeom (templates/cpu/params.h), leading dims padded.
/// Throws naming the node for more than 3 spatial dims.
onnxc_k::WindowGeom window_geom(const Node &n, const Window &w);

/// The window as kernel params for up to 3 spatial dims, leading dims padded with size 1:
/// in[3], out[3], kernel[3], strides[3], pad_begin[3], dilations[3], pad_end[3] (21 values).
std::vector<int64_t> window_params(const Node &n, const Window &w);

/// A batch of matrix products Y[b] = alpha * A[b] B[b] + beta * C, described by strides.
struct GemmSpec {
  Value *a = nullptr, *b = nullptr, *c = nullptr, *y = nullptr;
  int64_t M = 0, N = 0, K = 0;
  int64_t rsa = 0, csa = 1, rsb = 0, csb = 1; ///< element strides of A (M x K) and B (K x N)
  double alpha = 1, beta = 1;
  int64_t rsc = 0, csc = 0;         ///< strides of C broadcast to M x N
  std::vector<int64_t> batch;       ///< output batch dims (empty: one product)
  std::vector<int64_t> a_bs, b_bs;  ///< batch strides of A and B, in whole matrices
  int64_t a_count = 1, b_count = 1; ///< number of distinct A / B matrices
};

/// Attributes by which the fuse-activation pass marks a Conv, Gemm or MatMul whose output goes
/// through an activation applied inside the kernel (private namespace "onnxc.").
inline constexpr char kActivationAttr[] = "onnxc.activation";              ///< String: op name
inline constexpr char kActivationParamsAttr[] = "onnxc.activation_params"; ///< Floats: {a, b}

/// Int attribute (1) by which the fuse-bias pass marks a MatMul whose third input is a bias of
/// N values added to every row of the product (compiler/passes/fuse_bias.h).
inline constexpr char kBiasAttr[] = "onnxc.bias";

/// Floats attribute {s, divide} by which the fuse-scale pass marks a MatMul whose product is
/// multiplied by s (divide 0) or divided by s (divide 1): the GEMM's alpha
/// (compiler/passes/fuse_scale.h).
inline constexpr char kScaleAttr[] = "onnxc.scale";

/// Int attribute (1) by which the fuse-transpose pass marks a MatMul whose B input is stored
/// with its last two axes swapped ([.., N, K]: attention's K where Q K^T was written with a
/// Transpose): matmul_shape swaps them back and the GEMM reads B with row stride 1 and column
/// stride K (compiler/passes/fuse_transpose.h).
inline constexpr char kTransBAttr[] = "onnxc.trans_b";

/// Ints attribute {L, off} by which the fuse-causal-mask pass marks a float Softmax along the
/// last axis whose scores are causally masked: row i of each L-row plane keeps its first
/// i + off + 1 positions, the rest are 0 (compiler/passes/fuse_causal_mask.h).
inline constexpr char kCausalAttr[] = "onnxc.causal";

/// Int attribute (1) by which the fuse-residual pass marks a Conv whose fourth input is a
/// residual of the output's shape, added after the bias and before any fused activation
/// (compiler/passes/fuse_residual.h).
inline constexpr char kResidualAttr[] = "onnxc.residual";

/// Int attribute (1) by which the fuse-channel-scale pass marks a pointwise Conv whose fifth
/// input S (1 x C x 1 x 1) scales its input's channels: Y = W (S * X) + B, computed as
/// (W diag(S)) X with W's columns scaled at run time (compiler/passes/fuse_channel_scale.h).
inline constexpr char kInScaleAttr[] = "onnxc.in_scale";

/// Int attribute (1) by which the pack-weights pass lets a Conv, Gemm or MatMul lowering store
/// its constant weight operand pre-packed (templates/cpu/gemm_params.h).
inline constexpr char kPackWeightsAttr[] = "onnxc.pack_weights";
/// Set by lower-extent on a node it lowers for every value of a run-time extent: a GEMM with a
/// pre-packed constant B then reads the packed B for every M (no matrix-vector path on the
/// unpacked B for M <= kSmallM), so the library holds the weight once.
inline constexpr char kExtentLoweringAttr[] = "onnxc.extent_lowering";
/// Set by the conv-paths pass (compiler/passes/conv_paths.h): Conv may use its direct and
/// pointwise paths (value 1), and also Winograd (value 1 | kConvWinogradBit); without it every
/// Conv runs as im2col + GEMM.
inline constexpr char kConvPathsAttr[] = "onnxc.conv_paths";
/// Bit of kConvPathsAttr's value: 3x3 stride-1 Convs may run as Winograd F(2x2, 3x3).
inline constexpr int64_t kConvWinogradBit = 2;
/// Bit of kConvPathsAttr's value: float depthwise Convs may run on channel vectors
/// (kConvDwChannels, templates/cpu/conv_params.h).
inline constexpr int64_t kConvDwChannelsBit = 4;
/// Bit of kConvPathsAttr's value: float Convs with few input channels may run directly
/// (kConvFewChannels, templates/cpu/conv_params.h).
inline constexpr int64_t kConvFewChannelsBit = 8;
/// Bit of kConvPathsAttr's value: strided float Convs from many channels may run directly on
/// output-channel vectors (kConvChanVec, templates/cpu/conv_params.h).
inline constexpr int64_t kConvChanVecBit = 16;
/// Bit of kConvPathsAttr's value (with kConvWinogradBit): Winograd may run as F(4x4, 3x3)
/// (kConvWinograd4, templates/cpu/conv_params.h) where conv_wino4_preferred.
inline constexpr int64_t kConvWinograd4Bit = 32;

/// Int attribute: the GEMM micro-tile rows (1, 2, 4, 6 or 8) for a Conv, Gemm or MatMul, chosen for
/// the target's vector registers (mark_gemm_tile_rows); absent: the kernels' default.
inline constexpr char kGemmTileRowsAttr[] = "onnxc.gemm_tile_rows";

/// Kernel activation kind for an activation name ("Relu", "Clip", "LeakyRelu", "Sigmoid",
/// "HardSigmoid", "HardSwish", "Silu"), or -1 if it cannot be fused.
int64_t activation_kind(const std::string &name);

/// n's fused activation as typed params ({kActNone, 0, 0}: none).
onnxc_k::ActParams activation(const Node &n);

/// The kernel params {kind, a (f64), b (f64)} of n's fused activation ({0, 0, 0}: none).
std::vector<int64_t> activation_params(const Node &n);

/// Shapes of a numpy matrix product (MatMul and the integer MatMuls) of inputs 0 and 1.
struct MatMulShape {
  std::vector<int64_t> a, b; ///< operand dims after 1-D promotion (rank >= 2)
  std::vector<int64_t> batch, out;
};

/// 1-D operands promoted (A: [K] -> [1, K], B: [K] -> [K, 1], the added dim removed from
/// `out`), batch dims broadcast. Throws naming the node on mismatched inner dims.
MatMulShape matmul_shape(const Node &n, size_t a = 0, size_t b = 1);

/// Lowers to onnxc_k_gemm_<dtype> (templates/cpu/matmul.cpp; params gemm::GemmParams), with a
/// scratch buffer for the packed right-hand matrices (none when they are a constant the
/// pack-weights pass lets it pre-pack) and n's fused activation, if any. Narrow products (N small,
/// M larger) run transposed.
KernelCall gemm_call(const Node &n, GemmSpec s);

} // namespace onnxc
