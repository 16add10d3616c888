/* Row-wise ops over a set of reduced axes (compiler/ops/nn/axis_norm.cpp): a "row" is one index
 * of the kept axes, its elements are all indices of the reduced axes (row-major).
 * params {kind, eps (f64), extra, nk, nr, kept_dims[nk], kept_strides[nk], red_dims[nr],
 *         red_strides[nr]}
 *   kind 0 RMSNormalization: y = x / sqrt(mean(x^2) + eps) * scale[j % extra]
 *   kind 1 LpNormalization:  y = x / ||x||_p, p = extra (1 or 2); 0 where ||x||_p is 0
 *   kind 2 MeanVarianceNormalization: y = (x - mean) / (sqrt(var) + eps)
 *   kind 3 Hardmax: 1 at the first maximum of the row, 0 elsewhere
 * tensors {X, scale (kind 0, else null), Y}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

constexpr i64 kMaxRank = 16;

struct Axes {
  i64 n;
  const i64 *dims, *strides;
  i64 count() const {
    i64 c = 1;
    for (i64 k = 0; k < n; ++k)
      c *= dims[k];
    return c;
  }
};

/// Calls f(j, offset) for every index j of the axes, in row-major order.
template <typename F> inline void for_each(const Axes &a, F &&f) {
  i64 idx[kMaxRank] = {}, off = 0;
  const i64 total = a.count();
  for (i64 j = 0; j < total; ++j) {
    f(j, off);
    for (i64 k = a.n - 1; k >= 0; --k) { /* increment the mixed-radix counter */
      off += a.strides[k];
      if (++idx[k] < a.dims[k])
        break;
      off -= idx[k] * a.strides[k];
      idx[k] = 0;
    }
  }
}

template <typename T>
void row(i64 kind, double eps, i64 extra, const Axes &red, const T *x, const T *scale, T *y) {
  if (kind == 3) {
    i64 best = -1;
    T bv = T(0);
    for_each(red, [&](i64, i64 o) {
      if (best < 0 || x[o] > bv)
        best = o, bv = x[o];
    });
    for_each(red, [&](i64, i64 o) { y[o] = o == best ? T(1) : T(0); });
    return;
  }
  const double cnt = double(red.count());
  double s1 = 0, s2 = 0;
  for_each(red, [&](i64, i64 o) {
    const double v = double(x[o]);
    s1 += kind == 1 && extra == 1 ? (v < 0 ? -v : v) : v;
    s2 += v * v;
  });
  if (kind == 0) {
    const double inv = 1.0 / __builtin_sqrt(s2 / cnt + eps);
    for_each(red, [&](i64 j, i64 o) { y[o] = T(double(x[o]) * inv * double(scale[j % extra])); });
  } else if (kind == 1) {
    /* A zero vector has no direction: its normalisation is zero (as in ONNX's reference and
       ONNX Runtime), not 0/0. */
    const double norm = extra == 1 ? s1 : __builtin_sqrt(s2);
    for_each(red, [&](i64, i64 o) { y[o] = norm != 0 ? T(double(x[o]) / norm) : T(0); });
  } else {
    const double mean = s1 / cnt, var = s2 / cnt - mean * mean;
    const double den = __builtin_sqrt(var > 0 ? var : 0) + eps;
    for_each(red, [&](i64, i64 o) { y[o] = T((double(x[o]) - mean) / den); });
  }
}

template <typename T> int32_t axis_norm(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 kind = p[0], extra = p[2], nk = p[3], nr = p[4];
  const double eps = param_f64(p, 1);
  if (nk > kMaxRank || nr > kMaxRank)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "axis_norm: rank too large");
  const Axes kept{nk, p + 5, p + 5 + nk}, red{nr, p + 5 + 2 * nk, p + 5 + 2 * nk + nr};
  const T *x = static_cast<const T *>(t[0]), *scale = static_cast<const T *>(t[1]);
  T *y = static_cast<T *>(t[2]);
  const i64 rows = kept.count(), per_row = red.count();
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      i64 rem = r, off = 0;
      for (i64 k = nk - 1; k >= 0; --k) {
        off += (rem % kept.dims[k]) * kept.strides[k];
        rem /= kept.dims[k];
      }
      row(kind, eps, extra, red, x + off, scale, y + off);
    }
  };
  parallel_for(rt, rows, 1 + 16384 / (per_row ? per_row : 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_AXIS_NORM_KERNEL(ct, sfx, unused)                                                    \
  extern "C" int32_t onnxc_k_axis_norm_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {     \
    return onnxc_k::axis_norm<ct>(rt, t, p);                                                       \
  }
ONNXC_FLOAT_TYPES(ONNXC_AXIS_NORM_KERNEL, 0)
