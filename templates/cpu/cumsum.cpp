/* CumSum. params {outer, len, inner, exclusive, reverse}; tensors {X, Y}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {
template <typename T> int32_t cumsum(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  const i64 outer = p[0], len = p[1], inner = p[2];
  const bool exclusive = p[3] != 0, reverse = p[4] != 0;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      const T *xo = x + o * len * inner;
      T *yo = y + o * len * inner;
      for (i64 in = 0; in < inner; ++in) {
        T acc = T(0);
        for (i64 s = 0; s < len; ++s) {
          const i64 k = (reverse ? len - 1 - s : s) * inner + in;
          if (exclusive) {
            yo[k] = acc;
            acc = T(acc + xo[k]);
          } else {
            acc = T(acc + xo[k]);
            yo[k] = acc;
          }
        }
      }
    }
  };
  parallel_for(rt, outer, 1 + 16384 / (len * inner > 0 ? len * inner : 1), body);
  return 0;
}
} // namespace
} // namespace onnxc_k

#define ONNXC_CUMSUM_KERNEL(ct, sfx, unused)                                                       \
  extern "C" int32_t onnxc_k_cumsum_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return onnxc_k::cumsum<ct>(rt, t, p);                                                          \
  }
ONNXC_NUMERIC_TYPES(ONNXC_CUMSUM_KERNEL, 0)
