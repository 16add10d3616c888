/* ConvTranspose's scratch (templates/cpu/conv_transpose.cpp), shared by the lowering
 * (compiler/ops/nn/conv_transpose.cpp) and the kernel so that the two cannot disagree: per
 * (image, group), in turn, the group's input channels packed as the GEMM's B (Cg x in-size),
 * then the column matrix W_g^T X_g (Mg * kernel-size rows x in-size) that col2im adds into Y. */
#ifndef ONNXC_CONV_TRANSPOSE_PARAMS_H
#define ONNXC_CONV_TRANSPOSE_PARAMS_H

#include "templates/cpu/gemm_params.h"

namespace onnxc_k {

/// Elements before the column matrix (the packed B, rounded to 64 bytes).
constexpr int64_t ct_cols_offset(int64_t Cg, int64_t isz, int64_t elem_bytes) {
  return gemm::ceil_div(gemm::packed_b_elems(Cg, isz, elem_bytes), 64 / elem_bytes) *
         (64 / elem_bytes);
}

/// Scratch bytes: the packed B and the column matrix of one (image, group).
constexpr int64_t ct_scratch_bytes(int64_t Cg, int64_t Mg, int64_t ks, int64_t isz,
                                   int64_t elem_bytes) {
  return (ct_cols_offset(Cg, isz, elem_bytes) + Mg * ks * isz) * elem_bytes;
}

} // namespace onnxc_k

#endif
