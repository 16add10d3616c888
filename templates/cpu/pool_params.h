/* The contract between LpPool (compiler/ops/nn/pool.cpp) and its kernel onnxc_k_lp_pool_<dtype>
 * (templates/cpu/pool.cpp). Tensors {X [N, C, in...], Y [N, C, out...]}. */
#ifndef ONNXC_POOL_PARAMS_H
#define ONNXC_POOL_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

struct LpPoolParams {
  int64_t planes; ///< N * C
  WindowGeom w;   ///< padded positions count as zeros
  double p;       ///< the norm's exponent: y = (sum |x|^p)^(1/p)
};

} // namespace onnxc_k

#endif
