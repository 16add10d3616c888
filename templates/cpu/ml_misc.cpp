/* ai.onnx.ml element-wise and per-row transforms (compiler/ops/ml/preprocess.cpp).
 * scaler:     params {rows, cols, n_offset, n_scale, offset[] (f64), scale[] (f64)};
 *             tensors {X, Y (float)}; y = (x - offset[c]) * scale[c] (one value = all columns).
 * normalizer: params {rows, cols, norm (0 MAX, 1 L1, 2 L2)}; tensors {X, Y (float)}.
 * binarizer:  params {count, threshold (f64)}; tensors {X, Y}; y = x > threshold ? 1 : 0.
 * imputer:    params {rows, cols, n_imputed, replaced (f64), imputed[] (f64)}; tensors {X, Y};
 *             x equal to `replaced` (or NaN when replaced is NaN) becomes imputed[c]. */
#include "templates/cpu/ml_common.h"

namespace {
using onnxc_k::i64;
using onnxc_k::param_f64;

template <typename T> int32_t scaler(void *const *t, const i64 *p) {
  const i64 rows = p[0], cols = p[1], no = p[2], ns = p[3];
  const T *x = (const T *)t[0];
  float *y = (float *)t[1];
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c) {
      const float off = no ? float(param_f64(p + 4, int(no == 1 ? 0 : c))) : 0.0f;
      const float sc = ns ? float(param_f64(p + 4 + no, int(ns == 1 ? 0 : c))) : 1.0f;
      y[r * cols + c] = (float(x[r * cols + c]) - off) * sc;
    }
  return 0;
}

template <typename T> int32_t normalizer(void *const *t, const i64 *p) {
  const i64 rows = p[0], cols = p[1], norm = p[2];
  const T *x = (const T *)t[0];
  float *y = (float *)t[1];
  for (i64 r = 0; r < rows; ++r) {
    const T *xr = x + r * cols;
    float d = norm == 0 ? float(xr[0]) : 0.0f;
    for (i64 c = 0; c < cols; ++c) {
      const float v = float(xr[c]);
      if (norm == 0)
        d = v > d ? v : d;
      else
        d += norm == 1 ? (v < 0 ? -v : v) : v * v;
    }
    if (norm == 2)
      d = onnxc_k::sq(d);
    for (i64 c = 0; c < cols; ++c)
      y[r * cols + c] = float(xr[c]) / d;
  }
  return 0;
}

template <typename T> int32_t binarizer(void *const *t, const i64 *p) {
  const T *x = (const T *)t[0];
  T *y = (T *)t[1];
  const T th = T(param_f64(p, 1));
  for (i64 i = 0; i < p[0]; ++i)
    y[i] = x[i] > th ? T(1) : T(0);
  return 0;
}

template <typename T> int32_t imputer(void *const *t, const i64 *p) {
  const i64 rows = p[0], cols = p[1], ni = p[2];
  const T *x = (const T *)t[0];
  T *y = (T *)t[1];
  const T rep = T(param_f64(p, 3));
  const bool rep_nan = rep != rep;
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c) {
      const T v = x[r * cols + c];
      const bool hit = rep_nan ? v != v : v == rep;
      y[r * cols + c] = hit ? T(param_f64(p + 4, int(ni == 1 ? 0 : c))) : v;
    }
  return 0;
}
} // namespace

#define ONNXC_ML_KERNEL(name, sfx, T)                                                              \
  extern "C" int32_t onnxc_k_ml_##name##_##sfx(onnxc_rt *, void *const *t, const int64_t *p) {     \
    return name<T>(t, p);                                                                          \
  }
ONNXC_ML_KERNEL(scaler, f32, float)
ONNXC_ML_KERNEL(scaler, f64, double)
ONNXC_ML_KERNEL(scaler, i64, int64_t)
ONNXC_ML_KERNEL(scaler, i32, int32_t)
ONNXC_ML_KERNEL(normalizer, f32, float)
ONNXC_ML_KERNEL(normalizer, f64, double)
ONNXC_ML_KERNEL(normalizer, i64, int64_t)
ONNXC_ML_KERNEL(normalizer, i32, int32_t)
ONNXC_ML_KERNEL(binarizer, f32, float)
ONNXC_ML_KERNEL(binarizer, f64, double)
ONNXC_ML_KERNEL(imputer, f32, float)
ONNXC_ML_KERNEL(imputer, i64, int64_t)
#undef ONNXC_ML_KERNEL
