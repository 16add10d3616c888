/* The contract between the Conv lowering (compiler/ops/nn/conv.cpp) and its kernel
 * onnxc_k_conv_<dtype> (templates/cpu/conv.cpp): the parameter struct, the algorithms and the
 * scratch size. Spatial dims are padded to 3 with leading 1s. */
#ifndef ONNXC_CONV_PARAMS_H
#define ONNXC_CONV_PARAMS_H

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
  ActParams act;    ///< fused activation, applied as each output element is final
};

/// GEMM panel width in elements for an element of `elem_bytes` (one 64-byte vector).
constexpr int64_t conv_panel_width(int64_t elem_bytes) { return 64 / elem_bytes; }

/// Scratch bytes: the packed K x (output plane) matrix of one image and group (GEMM algos).
constexpr int64_t conv_scratch_bytes(const ConvParams &p, int64_t elem_bytes) {
  if (p.algo == kConvDirect)
    return 0;
  const int64_t nr = conv_panel_width(elem_bytes);
  int64_t K = p.C / p.G * p.w.k_size();
  if (K < 1)
    K = 1;
  return K * ((p.w.out_size() + nr - 1) / nr) * nr * elem_bytes;
}

} // namespace onnxc_k

#endif
