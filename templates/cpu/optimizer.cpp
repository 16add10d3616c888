/* Adagrad / Momentum / Adam update kernels (float, double); layout and formulas:
 * templates/cpu/optimizer_params.h and the ONNX ai.onnx.preview.training specs. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/optimizer_params.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

double powi(double b, i64 e) {
  double r = 1.0;
  for (i64 i = 0; i < e; ++i)
    r *= b;
  return r;
}

template <typename T>
void update(const OptimizerParams &p, double r, i64 t, i64 j, void *const *ts) {
  const i64 n = p.n, s = optimizer_states(p.kind), first_out = 2 + n * (2 + s);
  const T *x = static_cast<const T *>(ts[2 + j]), *g = static_cast<const T *>(ts[2 + n + j]);
  const T *s1 = static_cast<const T *>(ts[2 + 2 * n + j]);
  const T *s2 = s == 2 ? static_cast<const T *>(ts[2 + 3 * n + j]) : nullptr;
  T *xo = static_cast<T *>(ts[first_out + j]), *s1o = static_cast<T *>(ts[first_out + n + j]);
  T *s2o = s == 2 ? static_cast<T *>(ts[first_out + 2 * n + j]) : nullptr;
  double lr = r, beta_m = t > 0 ? p.beta : 1.0;
  if (p.kind == kAdagrad)
    lr = r / (1.0 + double(t) * p.decay_factor);
  if (p.kind == kAdam && t > 0)
    lr = r * __builtin_sqrt(1.0 - powi(p.beta, t)) / (1.0 - powi(p.alpha, t));
  for (i64 i = 0; i < p.sizes[j]; ++i) {
    const double xv = double(x[i]), gr = p.norm_coefficient * xv + double(g[i]);
    double xn, v1, v2 = 0.0;
    if (p.kind == kAdagrad) {
      v1 = double(s1[i]) + gr * gr;
      xn = xv - lr * gr / (__builtin_sqrt(v1) + p.epsilon);
    } else if (p.kind == kAdam) {
      v1 = p.alpha * double(s1[i]) + (1.0 - p.alpha) * gr;
      v2 = p.beta * double(s2[i]) + (1.0 - p.beta) * gr * gr;
      xn = (1.0 - p.norm_coefficient_post) * (xv - lr * (v1 / (__builtin_sqrt(v2) + p.epsilon)));
    } else {
      v1 = p.alpha * double(s1[i]) + beta_m * gr;
      xn = xv - lr * (p.kind == kNesterov ? gr + p.alpha * v1 : v1);
    }
    if (xo)
      xo[i] = T(xn);
    if (s1o)
      s1o[i] = T(v1);
    if (s2o)
      s2o[i] = T(v2);
  }
}

template <typename T> int32_t optimizer(void *const *ts, const i64 *params) {
  const OptimizerParams p = params_of<OptimizerParams>(params);
  const double r = double(*static_cast<const T *>(ts[0]));
  const i64 t = *static_cast<const i64 *>(ts[1]);
  for (i64 j = 0; j < p.n; ++j)
    update<T>(p, r, t, j, ts);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_OPTIMIZER_KERNEL(ct, sfx, unused)                                                    \
  extern "C" int32_t onnxc_k_optimizer_##sfx(onnxc_rt *, void *const *t, const int64_t *p) {       \
    return onnxc_k::optimizer<ct>(t, p);                                                           \
  }
ONNXC_FLOAT_TYPES(ONNXC_OPTIMIZER_KERNEL, 0)
