/* TensorScatter (compiler/ops/tensor/tensor_scatter.cpp; kernel templates/cpu/tensor_scatter.cpp):
 * present = past_cache, with update's `seq` rows written along the cache axis starting at
 * write_indices[b] (0 without it) in each batch b. past/present viewed as
 * [batch, pre, max_seq, row_bytes], update as [batch, pre, seq, row_bytes]. Circular mode wraps
 * the index modulo max_seq; in linear mode rows past the end are not written (the ONNX spec
 * leaves them undefined). tensors {past, update, write_indices (int64 [batch]) or null,
 * present}. */
#ifndef ONNXC_TENSOR_SCATTER_PARAMS_H
#define ONNXC_TENSOR_SCATTER_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

struct TensorScatterParams {
  int64_t batch, pre, max_seq, seq, row_bytes;
  int64_t circular; ///< 1: indices wrap modulo max_seq
};

} // namespace onnxc_k

#endif
