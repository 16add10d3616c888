/* Gelu. params {count, tanh_approximation}; tensors {X, Y}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {
template <typename T> int32_t gelu(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  const bool approx = p[1] != 0;
  auto body = [&](i64 lo, i64 hi) {
    if (approx) {
      const T c = T(0.7978845608028654), k = T(0.044715); /* sqrt(2/pi) */
      for (i64 i = lo; i < hi; ++i) {
        const T v = x[i];
        y[i] = T(0.5) * v * (T(1) + th(c * (v + k * v * v * v)));
      }
    } else {
      for (i64 i = lo; i < hi; ++i)
        y[i] = T(0.5) * x[i] * (T(1) + er(x[i] * T(0.7071067811865476)));
    }
  };
  parallel_for(rt, p[0], 16384, body);
  return 0;
}
} // namespace
} // namespace onnxc_k

#define ONNXC_GELU_KERNEL(ct, sfx, unused)                                                         \
  extern "C" int32_t onnxc_k_gelu_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {          \
    return onnxc_k::gelu<ct>(rt, t, p);                                                            \
  }
ONNXC_FLOAT_TYPES(ONNXC_GELU_KERNEL, 0)
