/* Gelu. params {count, tanh_approximation}; tensors {X, Y}. float runs 16 lanes at a time with
 * vec_math.h's erf / tanh; the formulas are activation.h's (also the fused Gelu epilogue). */
#include "templates/cpu/activation.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {
namespace {

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
      for (i64 i = lo; i < hi; ++i)
        y[i] = act_gelu_tanh(x[i]);
    } else {
      for (i64 i = lo; i < hi; ++i)
        y[i] = act_gelu(x[i]);
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
