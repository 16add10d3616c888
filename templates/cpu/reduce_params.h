/* The contract between the Reduce* ops (compiler/ops/math/reduce.cpp) and their kernel for axes
 * computed at run time, onnxc_k_reduce_axes_<dtype> (templates/cpu/reduce.cpp): it reads the
 * axes, checks them, reduces as onnxc_k_reduce_<dtype> does for constant axes, and reports the
 * output's shape (onnxc_rt_set_shape). Tensors {X, AXES (int64), Y (planned for the largest)}. */
#ifndef ONNXC_REDUCE_PARAMS_H
#define ONNXC_REDUCE_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

struct ReduceAxesParams {
  int64_t op; ///< the ReduceOp of templates/cpu/reduce.cpp
  int64_t rank, dims[8];
  int64_t keepdims, noop_with_empty_axes;
  int64_t naxes; ///< elements of AXES
};

} // namespace onnxc_k

#endif
