/* NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (which first takes the log-softmax over
 * the class axis). Parameters and tensors: templates/cpu/loss_params.h. Per-element losses are
 * computed in the input type, as ONNX defines them; sums accumulate in double. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/loss_params.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_k {
namespace {

/// log-softmax over C of every (n, d) row of x ([N, C, D]) into lp.
template <typename T> void log_softmax_rows(onnxc_rt *rt, const LossParams &p, const T *x, T *lp) {
  const i64 C = p.C, D = p.D;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const i64 base = (r / D) * C * D + r % D;
      T m = x[base];
      for (i64 c = 1; c < C; ++c)
        m = x[base + c * D] > m ? x[base + c * D] : m;
      T sum = 0;
      for (i64 c = 0; c < C; ++c)
        sum += ex(T(x[base + c * D] - m));
      const T ls = lg(sum);
      for (i64 c = 0; c < C; ++c)
        lp[base + c * D] = x[base + c * D] - m - ls;
    }
  };
  parallel_for(rt, p.N * D, 1 + 4096 / (C + 1), body);
}

template <typename I> bool ignored(const LossParams &p, I t) {
  return p.has_ignore && static_cast<i64>(t) == p.ignore_index;
}

template <typename T, typename I> int32_t loss(onnxc_rt *rt, void *const *t, const i64 *params) {
  const LossParams p = params_of<LossParams>(params);
  const I *target = static_cast<const I *>(t[1]);
  const T *w = static_cast<const T *>(t[2]);
  T *y = static_cast<T *>(t[3]);
  const T *x = static_cast<const T *>(t[0]);
  if (p.softmax) {
    T *lp = static_cast<T *>(p.has_log_prob ? t[4] : t[5]);
    log_softmax_rows(rt, p, x, lp);
    x = lp;
  }
  const i64 rows = p.N * p.D;
  for (i64 r = 0; r < rows; ++r)
    if (!ignored(p, target[r]) && (target[r] < 0 || static_cast<i64>(target[r]) >= p.C))
      return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE,
                           "loss: target class index out of range [0, C) and not ignore_index");
  double sum = 0, wsum = 0;
  for (i64 r = 0; r < rows; ++r) {
    T l = 0, wt = 0;
    if (!ignored(p, target[r])) {
      const i64 c = static_cast<i64>(target[r]);
      wt = w ? w[c] : T(1);
      l = T(-x[((r / p.D) * p.C + c) * p.D + r % p.D] * wt);
    }
    if (p.reduction == kLossNone)
      y[r] = l;
    sum += static_cast<double>(l), wsum += static_cast<double>(wt);
  }
  if (p.reduction == kLossSum)
    y[0] = static_cast<T>(sum);
  else if (p.reduction == kLossMean)
    y[0] = static_cast<T>(sum / wsum);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_LOSS_KERNEL(ct, sfx, it, isfx)                                                       \
  extern "C" int32_t onnxc_k_loss_##sfx##_##isfx(onnxc_rt *rt, void *const *t, const int64_t *p) { \
    return onnxc_k::loss<ct, it>(rt, t, p);                                                        \
  }
ONNXC_LOSS_KERNEL(float, f32, int, i32)
ONNXC_LOSS_KERNEL(float, f32, long long, i64)
ONNXC_LOSS_KERNEL(double, f64, int, i32)
ONNXC_LOSS_KERNEL(double, f64, long long, i64)
