/* CumSum and CumProd along one axis. Parameters: templates/cpu/cumulative_params.h. */
#include "templates/cpu/cumulative_params.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {
template <typename T, bool Prod> int32_t cumulate(onnxc_rt *rt, void *const *t, const i64 *params) {
  const CumulativeParams p = params_of<CumulativeParams>(params);
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  i64 outer = p.outer, len = p.len, inner = p.inner;
  if (p.axis_bytes) { /* the axis, given at run time */
    i64 axis = p.axis_bytes == 4 ? *static_cast<const int32_t *>(t[2])
                                 : *static_cast<const int64_t *>(t[2]);
    if (axis < -p.rank || axis >= p.rank)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "the axis is outside [-rank, rank) of the input");
    axis += axis < 0 ? p.rank : 0;
    outer = len = inner = 1;
    for (i64 d = 0; d < p.rank; ++d)
      (d < axis ? outer : d == axis ? len : inner) *= p.dims[d];
  }
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      const T *xo = x + o * len * inner;
      T *yo = y + o * len * inner;
      for (i64 in = 0; in < inner; ++in) {
        T acc = T(Prod ? 1 : 0);
        for (i64 s = 0; s < len; ++s) {
          const i64 k = (p.reverse ? len - 1 - s : s) * inner + in;
          if (p.exclusive)
            yo[k] = acc;
          acc = Prod ? onnxc_k::wmul(acc, xo[k]) : onnxc_k::wadd(acc, xo[k]);
          if (!p.exclusive)
            yo[k] = acc;
        }
      }
    }
  };
  parallel_for(rt, outer, 1 + 16384 / (len * inner > 0 ? len * inner : 1), body);
  return 0;
}
} // namespace
} // namespace onnxc_k

#define ONNXC_CUMULATIVE_KERNELS(ct, sfx, unused)                                                  \
  extern "C" int32_t onnxc_k_cumsum_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return onnxc_k::cumulate<ct, false>(rt, t, p);                                                 \
  }                                                                                                \
  extern "C" int32_t onnxc_k_cumprod_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {       \
    return onnxc_k::cumulate<ct, true>(rt, t, p);                                                  \
  }
ONNXC_NUMERIC_TYPES(ONNXC_CUMULATIVE_KERNELS, 0)
