/* Normalisations (float/double).
 * batchnorm: params {N, C, S, eps (f64)}; tensors {X, scale, B, mean, var, Y}:
 *            y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + B[c].
 * instnorm:  params {N, C, S, eps}; tensors {X, scale, B, Y}: mean/variance per (n, c).
 * layernorm: params {outer, inner, eps, scale_stride, b_stride}; tensors {X, Scale, B (may be
 *            null), Y, Mean (may be null), InvStdDev (may be null)}: each of the `outer` rows of
 *            `inner` elements is normalised; Scale/B are indexed j * stride (0: broadcast).
 *            float: one vectorised pass for the mean and variance, one for the output.
 */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {
namespace {

/// Mean and 1/sqrt(variance + eps) of x[0..n), in double for accuracy.
template <typename T> void moments(const T *x, i64 n, double eps, double &mean, double &inv) {
  double s = 0;
  for (i64 i = 0; i < n; ++i)
    s += (double)x[i];
  mean = n > 0 ? s / (double)n : 0;
  double v = 0;
  for (i64 i = 0; i < n; ++i) {
    const double d = (double)x[i] - mean;
    v += d * d;
  }
  v = n > 0 ? v / (double)n : 0;
  inv = 1.0 / __builtin_sqrt(v + eps);
}

typedef double vd8 __attribute__((vector_size(64))); /* 8 doubles */
typedef float vf8 __attribute__((vector_size(32)));  /* 8 floats */

/// moments() of a float row in one vectorised pass: sums of d and d^2 in 8 double lanes, with
/// d = x - x[0] (the shift keeps E[d^2] - E[d]^2 free of cancellation for rows far from 0).
inline void moments_f32(const float *x, i64 n, double eps, double &mean, double &inv) {
  const double x0 = n > 0 ? double(x[0]) : 0.0;
  vd8 s1 = {}, s2 = {};
  i64 i = 0;
  for (; i + 8 <= n; i += 8) {
    vf8 v;
    __builtin_memcpy(&v, x + i, sizeof v);
    const vd8 d = __builtin_convertvector(v, vd8) - x0;
    s1 += d;
    s2 += d * d;
  }
  double a = 0, b = 0;
  for (int k = 0; k < 8; ++k)
    a += s1[k], b += s2[k];
  for (; i < n; ++i) {
    const double d = double(x[i]) - x0;
    a += d;
    b += d * d;
  }
  const double m = n > 0 ? a / double(n) : 0;
  double v = n > 0 ? b / double(n) - m * m : 0;
  v = v > 0 ? v : 0;
  mean = x0 + m;
  inv = 1.0 / __builtin_sqrt(v + eps);
}

/// One normalised float row with unit-stride scale (and bias, if any), 16 lanes at a time.
inline void layernorm_row_f32(const float *x, float *y, i64 n, float m, float s, const float *sc,
                              const float *b) {
  i64 j = 0;
  for (; j + kVecF32 <= n; j += kVecF32) {
    const vf32 v = (load_f32(x + j) - m) * s * load_f32(sc + j);
    store_f32(y + j, b ? v + load_f32(b + j) : v);
  }
  for (; j < n; ++j) {
    const float v = (x[j] - m) * s * sc[j];
    y[j] = b ? v + b[j] : v;
  }
}

template <typename T> int32_t batchnorm(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 N = p[0], C = p[1], S = p[2];
  const double eps = param_f64(p, 3);
  const T *x = static_cast<const T *>(t[0]), *scale = static_cast<const T *>(t[1]),
          *bias = static_cast<const T *>(t[2]), *mean = static_cast<const T *>(t[3]),
          *var = static_cast<const T *>(t[4]);
  T *y = static_cast<T *>(t[5]);
  auto body = [&](i64 lo, i64 hi) {
    for (i64 nc = lo; nc < hi; ++nc) {
      const i64 c = nc % C;
      const T a = T((double)scale[c] / __builtin_sqrt((double)var[c] + eps));
      const T b = T((double)bias[c] - (double)mean[c] * (double)a);
      const T *xp = x + nc * S;
      T *yp = y + nc * S;
      for (i64 i = 0; i < S; ++i)
        yp[i] = xp[i] * a + b;
    }
  };
  parallel_for(rt, N * C, 1 + 16384 / (S + 1), body);
  return 0;
}

template <typename T> int32_t instnorm(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 C = p[1], S = p[2];
  const double eps = param_f64(p, 3);
  const T *x = static_cast<const T *>(t[0]), *scale = static_cast<const T *>(t[1]),
          *bias = static_cast<const T *>(t[2]);
  T *y = static_cast<T *>(t[3]);
  auto body = [&](i64 lo, i64 hi) {
    for (i64 nc = lo; nc < hi; ++nc) {
      const i64 c = nc % C;
      double mean, inv;
      moments(x + nc * S, S, eps, mean, inv);
      const T a = T((double)scale[c] * inv), b = T((double)bias[c] - mean * (double)scale[c] * inv);
      for (i64 i = 0; i < S; ++i)
        y[nc * S + i] = x[nc * S + i] * a + b;
    }
  };
  parallel_for(rt, p[0] * C, 1, body);
  return 0;
}

template <typename T> int32_t layernorm(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 outer = p[0], inner = p[1];
  const T *x = static_cast<const T *>(t[0]), *scale = static_cast<const T *>(t[1]),
          *bias = static_cast<const T *>(t[2]);
  T *y = static_cast<T *>(t[3]), *mean_out = static_cast<T *>(t[4]),
    *inv_out = static_cast<T *>(t[5]);
  // Row length, strides and epsilon are read from the body's params: node-specialised also on
  // the thread pool (codegen/cpu/specialise_parallel.h).
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const i64 inner = pp[1], ss = pp[3], bs = pp[4];
    const double eps = param_f64(pp, 2);
    for (i64 r = lo; r < hi; ++r) {
      const T *xr = x + r * inner;
      T *yr = y + r * inner;
      double mean, inv;
      if constexpr (is_f32<T>)
        moments_f32(xr, inner, eps, mean, inv);
      else
        moments(xr, inner, eps, mean, inv);
      const T m = T(mean), s = T(inv);
      bool done = false;
      if constexpr (is_f32<T>) {
        if (ss == 1 && (bs == 1 || !bias)) {
          layernorm_row_f32(xr, yr, inner, m, s, scale, bias);
          done = true;
        }
      }
      for (i64 j = 0; !done && j < inner; ++j) {
        T v = (xr[j] - m) * s * scale[j * ss];
        yr[j] = bias ? v + bias[j * bs] : v;
      }
      if (mean_out)
        mean_out[r] = m;
      if (inv_out)
        inv_out[r] = s;
    }
  };
  parallel_for(rt, p, outer, 1 + 4096 / (inner + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_NORM_KERNELS(ct, sfx, unused)                                                        \
  extern "C" int32_t onnxc_k_batchnorm_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {     \
    return onnxc_k::batchnorm<ct>(rt, t, p);                                                       \
  }                                                                                                \
  extern "C" int32_t onnxc_k_instnorm_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {      \
    return onnxc_k::instnorm<ct>(rt, t, p);                                                        \
  }                                                                                                \
  extern "C" int32_t onnxc_k_layernorm_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {     \
    return onnxc_k::layernorm<ct>(rt, t, p);                                                       \
  }
ONNXC_FLOAT_TYPES(ONNXC_NORM_KERNELS, 0)
