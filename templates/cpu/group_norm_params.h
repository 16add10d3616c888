/* GroupNormalization (compiler/ops/nn/group_norm.cpp; kernel templates/cpu/group_norm.cpp):
 * X [n, c, spatial...] in groups of c / groups channels, each group normalised over its
 * channels and spatial elements (moments in double), then y = x_hat * scale + bias per channel
 * (opset 21) or per group (opset 18, per_group = 1). tensors {X, scale, bias, Y}. */
#ifndef ONNXC_GROUP_NORM_PARAMS_H
#define ONNXC_GROUP_NORM_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

struct GroupNormParams {
  int64_t n, groups, channels, spatial;
  int64_t per_group; ///< 1: scale and bias have one value per group, else per channel
  double epsilon;
};

} // namespace onnxc_k

#endif
