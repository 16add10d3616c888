/* LRN (local response normalisation across channels):
 *   y[n,c,s] = x[n,c,s] / (bias + alpha / size * sum_{c' in window(c)} x[n,c',s]^2) ^ beta
 * window(c) = [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to [0, C).
 * params {N, C, S (spatial size), size, alpha, beta, bias (f64 bits)}; tensors {x, y}. */
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;

template <typename T> int32_t lrn(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  const i64 N = p[0], C = p[1], S = p[2], size = p[3];
  const double alpha = onnxc_k::param_f64(p, 4), beta = onnxc_k::param_f64(p, 5),
               bias = onnxc_k::param_f64(p, 6);
  const i64 before = (size - 1) / 2, after = size - 1 - before;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 nc = lo; nc < hi; ++nc) {
      const i64 n = nc / C, c = nc % C;
      const i64 c0 = c - before < 0 ? 0 : c - before, c1 = c + after >= C ? C - 1 : c + after;
      const T *xn = x + n * C * S;
      for (i64 s = 0; s < S; ++s) {
        double sum = 0;
        for (i64 k = c0; k <= c1; ++k)
          sum += double(xn[k * S + s]) * double(xn[k * S + s]);
        double d = __builtin_pow(bias + alpha / double(size) * sum, beta);
        y[nc * S + s] = static_cast<T>(double(xn[c * S + s]) / d);
      }
    }
  };
  onnxc_k::parallel_for(rt, N * C, 1, body);
  return 0;
}
} // namespace

extern "C" int32_t onnxc_k_lrn_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return lrn<float>(rt, t, p);
}
extern "C" int32_t onnxc_k_lrn_f64(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return lrn<double>(rt, t, p);
}
