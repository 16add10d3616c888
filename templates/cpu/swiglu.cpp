/* SwiGLU (opset 28): y = a * sigmoid(alpha * a) * b, element-wise over equal shapes; float16
 * computed in float. Params: SwiGluParams in templates/cpu/attention_params.h. */
#include "templates/cpu/attention_common.h"
#include "templates/cpu/attention_params.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_k {
namespace {

template <typename S> int32_t swiglu(onnxc_rt *rt, void *const *t, const i64 *params) {
  using E = Elem<S>;
  using A = typename E::A;
  const SwiGluParams p = params_of<SwiGluParams>(params);
  const S *a = static_cast<const S *>(t[0]), *b = static_cast<const S *>(t[1]);
  S *y = static_cast<S *>(t[2]);
  const A alpha = A(p.alpha);
  auto body = [&](i64 lo, i64 hi) {
    for (i64 i = lo; i < hi; ++i) {
      const A g = E::load(a[i]);
      y[i] = E::store(g / (A(1) + ex(-alpha * g)) * E::load(b[i]));
    }
  };
  parallel_for(rt, p.n, 16384, body);
  return 0;
}

} // namespace
} // namespace onnxc_k

ONNXC_ATTN_KERNELS(swiglu, swiglu)
