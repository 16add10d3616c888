/* ai.onnx.ml LinearRegressor / LinearClassifier.
 * params {rows, cols, targets, kind (0 regressor, 1 classifier), post_transform, n_labels,
 *         coefficients[targets * cols] (f64), intercepts[targets] (f64), labels[n_labels]}
 * tensors: regressor {X, Y [rows, targets]}; classifier {X, label [rows] (i64),
 *          scores [rows, targets, or 2 when targets == 1 and n_labels == 2]}. */
#include "templates/cpu/ml_common.h"

namespace {
using onnxc_k::i64;
using onnxc_k::param_f64;

/// One row's scores (float, as ONNX Runtime's float GEMM).
template <typename T> void scores(const T *x, const i64 *p, float *s) {
  const i64 cols = p[1], targets = p[2];
  const i64 *coef = p + 6, *icpt = coef + targets * cols;
  for (i64 t = 0; t < targets; ++t) {
    float acc = 0;
    for (i64 c = 0; c < cols; ++c)
      acc += float(x[c]) * float(param_f64(coef, int(t * cols + c)));
    s[t] = acc + float(param_f64(icpt, int(t)));
  }
}

/// Classifier row: label, then the transformed scores (one score: ONNX Runtime's expansion).
int64_t classify(const i64 *p, float *s) {
  const i64 cols = p[1], targets = p[2], post = p[4], nl = p[5];
  const i64 *labels = p + 6 + targets * cols + targets;
  if (targets == 1) {
    const float v = s[0];
    const int64_t label = v > 0 ? (nl == 2 ? labels[1] : 1) : (nl == 2 ? labels[0] : 0);
    if (post == onnxc_ml::kProbit)
      s[0] = onnxc_ml::probit(v);
    else if (nl == 2)
      s[0] = 1.0f - v, s[1] = v;
    else
      onnxc_ml::transform(s, 1, post);
    return label;
  }
  i64 best = 0;
  for (i64 t = 1; t < targets; ++t)
    if (s[t] > s[best])
      best = t;
  onnxc_ml::transform(s, targets, post);
  return labels[best];
}

template <typename T> int32_t linear(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 rows = p[0], cols = p[1], targets = p[2], kind = p[3], post = p[4], nl = p[5];
  const T *x = (const T *)t[0];
  const i64 width = (kind == 1 && targets == 1 && nl == 2) ? 2 : targets;
  float *out = (float *)t[kind == 1 ? 2 : 1];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      float *s = out + r * width;
      scores(x + r * cols, p, s);
      if (kind == 1)
        ((int64_t *)t[1])[r] = classify(p, s);
      else if (targets >= 2 || post == onnxc_ml::kProbit)
        onnxc_ml::transform(s, targets, post);
    }
  };
  onnxc_k::parallel_for(rt, rows, 64, body);
  return 0;
}
} // namespace

extern "C" int32_t onnxc_k_ml_linear_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return linear<float>(rt, t, p);
}
extern "C" int32_t onnxc_k_ml_linear_f64(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return linear<double>(rt, t, p);
}
