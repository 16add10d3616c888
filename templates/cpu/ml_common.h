/* Score transforms shared by the ai.onnx.ml kernels (ml_tree.cpp, ml_linear.cpp, ml_svm.cpp):
 * the post_transform codes of compiler/ops/ml/ml_util.h, computed as ONNX Runtime does (float
 * logistic, Winitzki's erfinv approximation for PROBIT, SOFTMAX_ZERO skipping zero scores). */
#ifndef ONNXC_ML_COMMON_H
#define ONNXC_ML_COMMON_H

#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_ml {
using onnxc_k::i64;

enum Post : i64 { kNone = 0, kSoftmax = 1, kLogistic = 2, kSoftmaxZero = 3, kProbit = 4 };

inline float logistic(float x) { return 1.0f / (1.0f + onnxc_k::ex(-x)); }

inline float probit(float p) {
  float x = 2.0f * p - 1.0f, sgn = x < 0 ? -1.0f : 1.0f;
  float l = onnxc_k::lg((1.0f - x) * (1.0f + x));
  float v = 2.0f / (3.14159f * 0.147f) + 0.5f * l, v2 = 1.0f / 0.147f * l;
  return 1.41421356f * sgn * onnxc_k::sq(-v + onnxc_k::sq(v * v - v2));
}

template <typename T> void softmax(T *s, i64 n, bool skip_zero) {
  T m = s[0];
  for (i64 j = 1; j < n; ++j)
    m = s[j] > m ? s[j] : m;
  T sum = 0, e0 = onnxc_k::ex(-m);
  for (i64 j = 0; j < n; ++j) {
    if (skip_zero && s[j] > T(-1e-7) && s[j] < T(1e-7)) {
      s[j] *= e0;
      continue;
    }
    s[j] = onnxc_k::ex(s[j] - m);
    sum += s[j];
  }
  for (i64 j = 0; j < n; ++j)
    s[j] /= sum;
}

/// Applies `post` to the n scores of one row.
template <typename T> void transform(T *s, i64 n, i64 post) {
  switch (post) {
  case kSoftmax:
  case kSoftmaxZero:
    softmax(s, n, post == kSoftmaxZero);
    break;
  case kLogistic:
    for (i64 j = 0; j < n; ++j)
      s[j] = T(logistic(float(s[j])));
    break;
  case kProbit:
    for (i64 j = 0; j < n; ++j)
      s[j] = T(probit(float(s[j])));
    break;
  default:
    break;
  }
}

} // namespace onnxc_ml

#endif
