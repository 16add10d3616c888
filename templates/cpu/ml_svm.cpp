/* ai.onnx.ml SVMClassifier / SVMRegressor (compiler/ops/ml/svm.cpp), as ONNX Runtime computes
 * them: the input is read as float, kernel values are float.
 * params {rows, cols, kind (0 classifier, 1 regressor), linear_mode (no support vectors),
 *         kernel (0 LINEAR, 1 POLY, 2 RBF, 3 SIGMOID), post_transform, classes, vectors,
 *         flags (1 prob_a/prob_b given, 2 coefficients all >= 0, 4 one_class), width,
 *         n_coef, n_rho, n_prob, n_vpc, gamma, coef0, degree (f64),
 *         support_vectors[vectors * cols], coefficients[n_coef], rho[n_rho], prob_a[n_prob],
 *         prob_b[n_prob] (f64), vectors_per_class[n_vpc], labels[classes]}
 * tensors: classifier {X, label [rows] (i64), scores [rows, width], scratch};
 *          regressor {X, Y [rows, 1], scratch}.
 * scratch (one row at a time): votes[classes] (i64), then the row as float[cols], kernel
 *          values[vectors], pair scores[classes*(classes-1)/2], pairwise probabilities
 *          [classes^2], Q[classes^2], Qp[classes] (float). */
#include "templates/cpu/ml_common.h"

namespace {
using onnxc_k::i64;
using onnxc_k::param_f64;

enum Kernel : i64 { kLinear = 0, kPoly = 1, kRbf = 2, kSigmoid = 3 };

struct Svm {
  i64 rows, cols, kind, linear, kernel, post, classes, vectors, flags, width, ncoef, nrho, nprob,
      nvpc;
  float gamma, coef0, degree;
  const i64 *sv, *coef, *rho, *pa, *pb, *vpc, *labels;

  explicit Svm(const i64 *p)
      : rows(p[0]), cols(p[1]), kind(p[2]), linear(p[3]), kernel(p[4]), post(p[5]), classes(p[6]),
        vectors(p[7]), flags(p[8]), width(p[9]), ncoef(p[10]), nrho(p[11]), nprob(p[12]),
        nvpc(p[13]), gamma(float(param_f64(p, 14))), coef0(float(param_f64(p, 15))),
        degree(float(param_f64(p, 16))) {
    sv = p + 17;
    coef = sv + vectors * cols;
    rho = coef + ncoef;
    pa = rho + nrho;
    pb = pa + nprob;
    vpc = pb + nprob;
    labels = vpc + nvpc;
  }
  float f(const i64 *a, i64 i) const { return float(param_f64(a, int(i))); }
};

/// One row's working memory, carved out of the scratch buffer (layout in the header comment).
struct Scratch {
  i64 *votes;
  float *x, *kv, *sc, *r, *q, *qp;
  Scratch(const Svm &s, void *base) {
    const i64 k = s.classes;
    votes = (i64 *)base;
    x = (float *)(votes + k);
    kv = x + s.cols;
    sc = kv + s.vectors;
    r = sc + k * (k - 1) / 2;
    q = r + k * k;
    qp = q + k * k;
  }
};

/// The kernel function of input row x and vector v (a row of support vectors or coefficients).
float kernel_value(const Svm &s, const float *x, const i64 *v) {
  float acc = 0;
  if (s.kernel == kRbf) {
    for (i64 c = 0; c < s.cols; ++c) {
      const float d = x[c] - s.f(v, c);
      acc += d * d;
    }
    return onnxc_k::ex(-s.gamma * acc);
  }
  for (i64 c = 0; c < s.cols; ++c)
    acc += x[c] * s.f(v, c);
  if (s.kernel == kLinear)
    return acc;
  const float t = s.gamma * acc + s.coef0;
  if (s.kernel == kSigmoid)
    return onnxc_k::th(t);
  if (s.degree == 2.0f)
    return t * t;
  if (s.degree == 3.0f)
    return t * t * t;
  return __builtin_powf(t, s.degree);
}

/// 1 - logistic(score * a + b), clamped to [1e-7, 1 - 1e-7]: Platt's pairwise probability.
float platt(float score, float a, float b) {
  const float v = score * a + b, av = v < 0 ? -v : v;
  const float e = 1.0f / (1.0f + onnxc_k::ex(-av));
  float p = 1.0f - (v < 0 ? 1.0f - e : e);
  p = p < 1e-7f ? 1e-7f : p;
  return p > 1.0f - 1e-7f ? 1.0f - 1e-7f : p;
}

/// Couples the pairwise probabilities r[k][k] (r[i][j]: class i over j) into class
/// probabilities p[k] by the fixed-point iteration of Wu, Lin and Weng (2004), in float.
void couple(i64 k, const float *r, float *q, float *qp, float *p) {
  for (i64 i = 0; i < k; ++i) {
    p[i] = 1.0f / float(k);
    q[i * k + i] = 0;
    for (i64 j = 0; j < k; ++j)
      if (j != i) {
        q[i * k + i] += r[j * k + i] * r[j * k + i];
        q[i * k + j] = -r[j * k + i] * r[i * k + j];
      }
  }
  const float eps = 0.005f / float(k);
  for (int iter = 0; iter < 100; ++iter) {
    float pqp = 0, worst = 0;
    for (i64 i = 0; i < k; ++i) {
      qp[i] = 0;
      for (i64 j = 0; j < k; ++j)
        qp[i] += q[i * k + j] * p[j];
      pqp += p[i] * qp[i];
    }
    for (i64 i = 0; i < k; ++i) {
      const float e = qp[i] > pqp ? qp[i] - pqp : pqp - qp[i];
      worst = e > worst ? e : worst;
    }
    if (worst < eps)
      break;
    for (i64 i = 0; i < k; ++i) {
      const float d = (pqp - qp[i]) / q[i * k + i];
      p[i] += d;
      pqp = (pqp + d * (d * q[i * k + i] + 2 * qp[i])) / (1 + d) / (1 + d);
      for (i64 j = 0; j < k; ++j) {
        qp[j] = (qp[j] + d * q[i * k + j]) / (1 + d);
        p[j] /= (1 + d);
      }
    }
  }
}

/// One-vs-one decision values (pairs i < j in order) and votes; returns the winning class
/// (most votes, the lowest index on a tie).
i64 one_vs_one(const Svm &s, const float *kv, float *scores, i64 *votes) {
  i64 start_i = 0, pair = 0;
  for (i64 c = 0; c < s.classes; ++c)
    votes[c] = 0;
  for (i64 i = 0; i < s.classes; ++i) {
    i64 start_j = start_i + s.vpc[i];
    for (i64 j = i + 1; j < s.classes; ++j) {
      double sum = 0;
      for (i64 m = 0; m < s.vpc[i]; ++m)
        sum += double(s.f(s.coef, (j - 1) * s.vectors + start_i + m) * kv[start_i + m]);
      for (i64 m = 0; m < s.vpc[j]; ++m)
        sum += double(s.f(s.coef, i * s.vectors + start_j + m) * kv[start_j + m]);
      sum += double(s.f(s.rho, pair));
      scores[pair++] = float(sum);
      ++votes[sum > 0 ? i : j];
      start_j += s.vpc[j];
    }
    start_i += s.vpc[i];
  }
  i64 best = 0;
  for (i64 c = 1; c < s.classes; ++c)
    if (votes[c] > votes[best])
      best = c;
  return best;
}

/// Support-vector classifier row: the label index, and the scores in `out`.
i64 classify_svc(const Svm &s, const Scratch &w, float *out) {
  const i64 k = s.classes, pairs = k * (k - 1) / 2;
  float *sc = w.sc, *r = w.r;
  for (i64 v = 0; v < s.vectors; ++v)
    w.kv[v] = kernel_value(s, w.x, s.sv + v * s.cols);
  const i64 best = one_vs_one(s, w.kv, sc, w.votes);
  if (s.flags & 1) {
    for (i64 i = 0, pair = 0; i < k; ++i)
      for (i64 j = i + 1; j < k; ++j, ++pair) {
        r[i * k + j] = platt(sc[pair], s.f(s.pa, pair), s.f(s.pb, pair));
        r[j * k + i] = 1.0f - r[i * k + j];
      }
    couple(k, r, w.q, w.qp, out);
    onnxc_ml::transform(out, k, s.post);
  } else if (k > 2) {
    for (i64 i = 0; i < pairs; ++i)
      out[i] = sc[i];
    onnxc_ml::transform(out, pairs, s.post);
  } else if (s.post == onnxc_ml::kProbit) {
    out[0] = onnxc_ml::probit(sc[0]), out[1] = 0;
  } else {
    out[0] = s.post == onnxc_ml::kNone ? -sc[0] : 1.0f - sc[0], out[1] = sc[0];
  }
  return best;
}

/// liblinear-mode classifier row: one score per class plus rho[0]; ONNX Runtime's label rule.
i64 classify_linear(const Svm &s, const float *x, float *out) {
  const i64 k = s.classes;
  for (i64 c = 0; c < k; ++c)
    out[c] = kernel_value(s, x, s.coef + c * s.cols) + s.f(s.rho, 0);
  i64 best = 0;
  for (i64 c = 1; c < k; ++c)
    if (out[c] > out[best])
      best = c;
  const float top = out[best];
  if (k == 2 && !(s.flags & 1) && (s.flags & 2 ? top >= 0.5f : top > 0))
    best = 1;
  if (k >= 2)
    onnxc_ml::transform(out, k, s.post);
  else if (s.post == onnxc_ml::kProbit)
    out[0] = onnxc_ml::probit(out[0]);
  return best;
}

float regress(const Svm &s, const Scratch &w) {
  float y;
  if (s.linear) {
    y = kernel_value(s, w.x, s.coef) + s.f(s.rho, 0);
  } else {
    for (i64 v = 0; v < s.vectors; ++v)
      w.kv[v] = kernel_value(s, w.x, s.sv + v * s.cols);
    y = 0;
    for (i64 v = 0; v < s.vectors; ++v)
      y += w.kv[v] * s.f(s.coef, v);
    y += s.f(s.rho, 0);
  }
  if (s.flags & 4)
    y = y > 0 ? 1.0f : -1.0f;
  return y;
}

template <typename T> int32_t svm(void *const *t, const i64 *p) {
  const Svm s(p);
  const T *x = (const T *)t[0];
  Scratch w(s, t[s.kind == 0 ? 3 : 2]);
  for (i64 r = 0; r < s.rows; ++r) {
    for (i64 c = 0; c < s.cols; ++c)
      w.x[c] = float(x[r * s.cols + c]);
    if (s.kind == 1) {
      ((float *)t[1])[r] = regress(s, w);
      continue;
    }
    float *out = (float *)t[2] + r * s.width;
    const i64 best = s.linear ? classify_linear(s, w.x, out) : classify_svc(s, w, out);
    ((int64_t *)t[1])[r] = s.labels[best];
  }
  return 0;
}
} // namespace

#define ONNXC_SVM_KERNEL(sfx, T)                                                                   \
  extern "C" int32_t onnxc_k_ml_svm_##sfx(onnxc_rt *, void *const *t, const int64_t *p) {          \
    return svm<T>(t, p);                                                                           \
  }
ONNXC_SVM_KERNEL(f32, float)
ONNXC_SVM_KERNEL(f64, double)
ONNXC_SVM_KERNEL(i64, int64_t)
ONNXC_SVM_KERNEL(i32, int32_t)
#undef ONNXC_SVM_KERNEL
