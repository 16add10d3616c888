/* The contract between CumSum / CumProd (compiler/ops/math/cumsum.cpp) and their kernels
 * onnxc_k_cumsum_<dtype> / onnxc_k_cumprod_<dtype> (templates/cpu/cumsum.cpp): the tensor is
 * viewed as [outer, len, inner] and accumulated along len. Tensors {X, Y}. */
#ifndef ONNXC_CUMULATIVE_PARAMS_H
#define ONNXC_CUMULATIVE_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

struct CumulativeParams {
  int64_t outer, len, inner;
  int64_t exclusive; ///< 0/1: element i gets the accumulation of the elements before it
  int64_t reverse;   ///< 0/1: accumulate from the end of the axis
};

} // namespace onnxc_k

#endif
