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
  kConvDirect = 1,    ///< depthwise (one input channel per group): per-row axpys
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

/// Scratch bytes: the packed K x (output plane) matrix of one image and group (GEMM algos).
constexpr int64_t conv_scratch_bytes(const ConvParams &p, int64_t elem_bytes) {
  if (p.algo == kConvDirect)
    return 0;
  const int64_t nr = conv_panel_width(elem_bytes);
  int64_t K = conv_gemm_k(p);
  if (K < 1)
    K = 1;
  return K * ((p.w.out_size() + nr - 1) / nr) * nr * elem_bytes;
}

} // namespace onnxc_k

#endif
