/* The contract between the strided-copy lowerings (Slice, Transpose, DepthToSpace/SpaceToDepth:
 * compiler/ops/tensor/strided_copy.h) and the kernel onnxc_k_strided_copy
 * (templates/cpu/strided_copy.cpp):
 *   y[c] = x[base + sum_d c[d] * strides[d]] for every output coordinate c (row-major y).
 * Strides are in elements and may be negative (negative Slice steps). */
#ifndef ONNXC_STRIDED_COPY_H
#define ONNXC_STRIDED_COPY_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// Most dims a copy has after merging dims that are contiguous in both tensors.
constexpr int64_t kMaxCopyRank = 8;

struct StridedCopyParams {
  int64_t elem_bytes; ///< 1, 2, 4 or 8
  int64_t rank;       ///< 0..kMaxCopyRank
  int64_t base;       ///< element offset of y[0, ..., 0] in x
  int64_t dims[kMaxCopyRank], strides[kMaxCopyRank];
};

} // namespace onnxc_k

#endif
