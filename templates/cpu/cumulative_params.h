/* The contract between CumSum / CumProd (compiler/ops/math/cumsum.cpp) and their kernels
 * onnxc_k_cumsum_<dtype> / onnxc_k_cumprod_<dtype> (templates/cpu/cumsum.cpp): the tensor is
 * viewed as [outer, len, inner] and accumulated along len. Tensors {X, Y, AXIS (or null)}. */
#ifndef ONNXC_CUMULATIVE_PARAMS_H
#define ONNXC_CUMULATIVE_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

struct CumulativeParams {
  int64_t outer, len, inner;
  int64_t exclusive; ///< 0/1: element i gets the accumulation of the elements before it
  int64_t reverse;   ///< 0/1: accumulate from the end of the axis
  /// 0: the axis is constant (outer, len, inner above). 4 or 8: it is computed at run time,
  /// an int32 or int64 scalar (tensor AXIS), and outer/len/inner come from rank and dims.
  int64_t axis_bytes;
  int64_t rank, dims[8];
};

} // namespace onnxc_k

#endif
