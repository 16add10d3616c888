/* Gelu. params {count, tanh_approximation}; tensors {X, Y}. float runs 16 lanes at a time with
 * vec_math.h's erf / tanh. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {
namespace {

/// 0.5 x (1 + erf(x / sqrt 2)) for a float or a vf32.
template <typename F> inline F gelu_erf(F v) {
  return 0.5f * v * (1.0f + vm::erf(v * 0.7071067811865476f));
}
/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) for a float or a vf32.
template <typename F> inline F gelu_tanh(F v) {
  return 0.5f * v * (1.0f + vm::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}

template <typename T> int32_t gelu(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  const bool approx = p[1] != 0;
  auto body = [&](i64 lo, i64 hi) {
    if constexpr (is_f32<T>) {
      if (approx)
        map_f32(x + lo, y + lo, hi - lo, [](vf32 v) { return gelu_tanh(v); });
      else
        map_f32(x + lo, y + lo, hi - lo, [](vf32 v) { return gelu_erf(v); });
    } else if (approx) {
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
