/* The contract between the Cast / CastLike lowering (compiler/ops/math/cast.cpp) and its kernel
 * onnxc_k_cast (templates/cpu/cast.cpp). */
#ifndef ONNXC_CAST_PARAMS_H
#define ONNXC_CAST_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

struct CastParams {
  int64_t from, to; ///< ONNX TensorProto.DataType numbers of x and y
  int64_t count;    ///< elements
  int64_t saturate; ///< 0/1: float8 targets clamp out-of-range values (and infinities) to the
                    ///< largest finite value instead of giving infinity / NaN
  int64_t round_mode; ///< float8e8m0 targets: quant::E8M0Round (quant_common.h)
};

} // namespace onnxc_k

#endif
