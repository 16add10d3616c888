/* GroupNormalization kernel (float/double); parameters: templates/cpu/group_norm_params.h.
 * (batch, group) blocks run in parallel. */
#include "templates/cpu/group_norm_params.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

template <typename T> int32_t group_norm(onnxc_rt *rt, void *const *t, const i64 *params) {
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const GroupNormParams p = params_of<GroupNormParams>(pp);
    const T *x = static_cast<const T *>(t[0]), *scale = static_cast<const T *>(t[1]),
            *bias = static_cast<const T *>(t[2]);
    T *y = static_cast<T *>(t[3]);
    const i64 cg = p.channels / p.groups, len = cg * p.spatial;
    for (i64 blk = lo; blk < hi; ++blk) {
      const i64 g = blk % p.groups, off = blk * len;
      double s = 0.0, v = 0.0;
      for (i64 i = 0; i < len; ++i)
        s += double(x[off + i]);
      const double mean = len ? s / double(len) : 0.0;
      for (i64 i = 0; i < len; ++i)
        v += (double(x[off + i]) - mean) * (double(x[off + i]) - mean);
      const double inv = 1.0 / __builtin_sqrt((len ? v / double(len) : 0.0) + p.epsilon);
      for (i64 c = 0; c < cg; ++c) {
        const i64 k = p.per_group ? g : g * cg + c;
        const double a = double(scale[k]) * inv, b = double(bias[k]) - mean * a;
        for (i64 i = 0; i < p.spatial; ++i)
          y[off + c * p.spatial + i] = T(double(x[off + c * p.spatial + i]) * a + b);
      }
    }
  };
  const GroupNormParams p0 = params_of<GroupNormParams>(params);
  const i64 len = p0.channels / p0.groups * p0.spatial;
  parallel_for(rt, params, p0.n * p0.groups, 1 + 4096 / (len + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_GROUP_NORM_KERNEL(ct, sfx, unused)                                                   \
  extern "C" int32_t onnxc_k_group_norm_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {    \
    return onnxc_k::group_norm<ct>(rt, t, p);                                                      \
  }
ONNXC_FLOAT_TYPES(ONNXC_GROUP_NORM_KERNEL, 0)
