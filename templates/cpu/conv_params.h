/* The contract between the Conv lowering (compiler/ops/nn/conv.cpp) and its kernel
 * onnxc_k_conv_<dtype> (templates/cpu/conv.cpp): the parameter struct, the algorithms and the
 * scratch size. Spatial dims are padded to 3 with leading 1s. */
#ifndef ONNXC_CONV_PARAMS_H
#define ONNXC_CONV_PARAMS_H

#include "templates/cpu/gemm_params.h"
#include "templates/cpu/params.h"

namespace onnxc_k {

/// How the kernel computes the convolution (chosen by the lowering).
enum ConvAlgo : int64_t {
  kConvIm2col = 0,    ///< GEMM on im2col panels packed into the scratch buffer
  kConvDirect = 1,    ///< depthwise (one input channel per group), 1-D/2-D: vector rows
  kConvPointwise = 2, ///< 1x1, stride 1, no padding: the input plane is the GEMM's B as is
};

struct ConvParams {
  int64_t N, C, M, G; ///< batch, input channels, output channels, groups
  WindowGeom w;
  int64_t algo;     ///< ConvAlgo
  int64_t has_bias; ///< 0/1: tensor 2 is the bias
  int64_t w_packed; ///< 0/1: tensor 1 is W pre-packed per group (conv_pack_weights), GEMM algos
  ActParams act;    ///< fused activation, applied as each output element is final
  int64_t gemm_mr;  ///< GEMM micro-tile rows (GemmParams::mr); 0: gemm::kMR
};

/// GEMM panel width in elements for an element of `elem_bytes` (gemm::panel_width).
constexpr int64_t conv_panel_width(int64_t elem_bytes) { return gemm::panel_width(elem_bytes); }

/// The GEMM's K: one group's input channels times the kernel size.
constexpr int64_t conv_gemm_k(const ConvParams &p) { return p.C / p.G * p.w.k_size(); }

/// Elements of W pre-packed for the GEMM algos: each group's Mg x K block as packed A
/// (gemm_params.h), one after the other.
constexpr int64_t conv_packed_w_elems(const ConvParams &p) {
  return p.G * gemm::packed_a_elems(p.M / p.G, conv_gemm_k(p));
}

/// Packs W (M x Cg x k...) for the GEMM algos into dst (conv_packed_w_elems elements).
template <typename T> inline void conv_pack_weights(const ConvParams &p, const T *w, T *dst) {
  const int64_t Mg = p.M / p.G, K = conv_gemm_k(p);
  for (int64_t g = 0; g < p.G; ++g)
    gemm::pack_a(dst + g * gemm::packed_a_elems(Mg, K), w + g * Mg * K, Mg, K, K, 1);
}

/// Elements of one group's packed K x (output plane) matrix in the scratch buffer (GEMM algos).
constexpr int64_t conv_group_cols_elems(const ConvParams &p, int64_t elem_bytes) {
  return gemm::packed_b_elems(conv_gemm_k(p), p.w.out_size(), elem_bytes);
}

/// kConvDirect: at least this many work items (output rows are split when there are fewer planes).
constexpr int64_t kConvDirectMinItems = 16;

/// kConvDirect: blocks of output rows per (image, channel) plane.
constexpr int64_t conv_dw_splits(const ConvParams &p) {
  const int64_t lines = p.w.out[0] * p.w.out[1], planes = p.N * p.M;
  const int64_t want = (kConvDirectMinItems + planes - 1) / planes;
  return lines < want ? lines : want;
}

/// True when kConvDirect can run the window: 1-D and 2-D (every work item copies the input rows
/// it reads, zero-padded, into its part of the scratch).
constexpr bool conv_dw_supported(const ConvParams &p) {
  return p.w.in[0] == 1 && p.w.out[0] == 1 && p.w.k[0] == 1 && p.w.p[0] == 0;
}

/// kConvDirect: elements of one padded input row (every vector's loads stay inside it,
/// including the two-vector loads of stride 2), and rows one work item copies.
constexpr int64_t conv_dw_row_elems(const ConvParams &p, int64_t elem_bytes) {
  const int64_t lanes = 64 / elem_bytes, w = p.w.out[2] > lanes ? p.w.out[2] : lanes;
  return (w - 1) * p.w.s[2] + (p.w.k[2] - 1) * p.w.d[2] + 2;
}
constexpr int64_t conv_dw_item_rows(const ConvParams &p) {
  const int64_t splits = conv_dw_splits(p), lines = (p.w.out[1] + splits - 1) / splits;
  return (lines - 1) * p.w.s[1] + (p.w.k[1] - 1) * p.w.d[1] + 1;
}

/// Scratch bytes: every group's packed K x (output plane) matrix of one image (GEMM algos), so
/// that all groups are packed and multiplied in one parallel loop; for kConvDirect one
/// zero-padded block of input rows per work item (image, channel, block of output rows).
constexpr int64_t conv_scratch_bytes(const ConvParams &p, int64_t elem_bytes) {
  if (p.algo == kConvDirect) {
    const int64_t items = p.N * p.M * conv_dw_splits(p);
    return items * conv_dw_item_rows(p) * conv_dw_row_elems(p, elem_bytes) * elem_bytes;
  }
  return p.G * conv_group_cols_elems(p, elem_bytes) * elem_bytes;
}

} // namespace onnxc_k

#endif
