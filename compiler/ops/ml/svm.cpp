// ai.onnx.ml SVMClassifier and SVMRegressor with ONNX Runtime's conventions: kernel values in
// float (LINEAR, POLY, RBF, SIGMOID with kernel_params {gamma, coef0, degree}); the classifier's
// one-vs-one decision values, votes (ties go to the lower class index) and, with prob_a/prob_b,
// Platt probabilities coupled into class probabilities; without support vectors both run in
// liblinear mode (one coefficient row per class, plus rho[0]). Only int64 class labels.
// Kernel and parameter layout: templates/cpu/ml_svm.cpp.
#include "compiler/ops/ml/ml_util.h"

#include <algorithm>

namespace onnxc {

namespace {

enum SvmKernel : int64_t { kLinear = 0, kPoly = 1, kRbf = 2, kSigmoid = 3 };
constexpr int64_t kHaveProba = 1, kAllPositive = 2, kOneClass = 4; // kernel flags

/// Everything the kernel needs, read and validated from a node.
struct Svm {
  int64_t rows = 0, cols = 0, kind = 0, classes = 1, vectors = 0, flags = 0, width = 1;
  int64_t kernel = kLinear;
  PostTransform post = PostTransform::None;
  double gamma = 0, coef0 = 0, degree = 0;
  std::vector<double> sv, coef, rho, prob_a, prob_b;
  std::vector<int64_t> vpc, labels;
  bool linear_mode() const { return vectors == 0; }
  int64_t pairs() const { return classes * (classes - 1) / 2; }
};

int64_t kernel_code(const Node &n) {
  std::string s = attr_string(n, "kernel_type", "LINEAR");
  if (s == "LINEAR")
    return kLinear;
  if (s == "POLY")
    return kPoly;
  if (s == "RBF")
    return kRbf;
  if (s == "SIGMOID")
    return kSigmoid;
  node_fail(n, "kernel_type '{}' is not one of LINEAR, POLY, RBF, SIGMOID", s);
}

/// Reads what SVMClassifier and SVMRegressor share: input shape, kernel, coefficients, rho.
Svm read_common(const Node &n) {
  require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double, DType::Int64, DType::Int32});
  Svm s;
  std::tie(s.rows, s.cols) = ml_rows_cols(n, 0);
  s.kernel = kernel_code(n);
  std::vector<double> kp = attr_reals(n, "kernel_params");
  if (!kp.empty() && kp.size() != 3)
    node_fail(n, "'kernel_params' has {} entries, expected 3 (gamma, coef0, degree)", kp.size());
  if (kp.size() == 3)
    s.gamma = kp[0], s.coef0 = kp[1], s.degree = kp[2];
  s.sv = attr_reals(n, "support_vectors");
  s.coef = attr_reals(n, "coefficients");
  s.rho = attr_reals(n, "rho");
  if (s.coef.empty())
    node_fail(n, "attribute 'coefficients' is missing or empty");
  if (s.rho.empty())
    node_fail(n, "attribute 'rho' is missing or empty");
  s.post = post_transform_attr(n);
  return s;
}

/// Throws unless `v` has at least `need` entries; keeps exactly `need`.
void take(const Node &n, const char *name, std::vector<double> &v, int64_t need) {
  if (v.size() < static_cast<size_t>(need))
    node_fail(n, "attribute '{}' has {} entries, expected {}", name, v.size(), need);
  v.resize(static_cast<size_t>(need));
}

void check_support_vectors(const Node &n, const Svm &s) {
  if (s.sv.size() != static_cast<size_t>(s.vectors * s.cols))
    node_fail(n, "'support_vectors' has {} values, expected {} vectors x {} input features",
              s.sv.size(), s.vectors, s.cols);
}

/// liblinear mode (no support vectors): one coefficient row per class, rho[0], LINEAR kernel.
void finish_linear_classifier(const Node &n, Svm &s) {
  s.kernel = kLinear;
  s.vpc.clear();
  s.prob_a.clear();
  s.prob_b.clear();
  if (s.coef.size() != static_cast<size_t>(s.classes * s.cols))
    node_fail(n, "'coefficients' has {} values, expected {} classes x {} input features",
              s.coef.size(), s.classes, s.cols);
  s.rho.resize(1);
  s.width = s.classes;
}

/// Support-vector mode: per-class vectors, (classes-1) coefficient rows, one rho (and prob_a,
/// prob_b) per class pair.
void finish_svc_classifier(const Node &n, Svm &s) {
  if (s.vpc.size() != static_cast<size_t>(s.classes) || s.classes < 2)
    node_fail(n, "'vectors_per_class' has {} entries for {} class labels (2 or more needed)",
              s.vpc.size(), s.classes);
  check_support_vectors(n, s);
  take(n, "coefficients", s.coef, (s.classes - 1) * s.vectors);
  take(n, "rho", s.rho, s.pairs());
  bool proba = !s.prob_a.empty();
  if (proba) {
    take(n, "prob_a", s.prob_a, s.pairs());
    take(n, "prob_b", s.prob_b, s.pairs());
  }
  s.width = proba ? s.classes : (s.classes > 2 ? s.pairs() : 2);
}

Svm read_classifier(const Node &n) {
  refuse_string_labels(n, "classlabels_strings");
  Svm s = read_common(n);
  s.labels = attr_ints(n, "classlabels_ints");
  s.classes = static_cast<int64_t>(s.labels.size());
  if (s.classes == 0)
    node_fail(n, "attribute 'classlabels_ints' is missing or empty");
  s.prob_a = attr_reals(n, "prob_a");
  s.prob_b = attr_reals(n, "prob_b");
  if (s.prob_a.size() != s.prob_b.size())
    node_fail(n, "'prob_a' has {} entries but 'prob_b' has {}", s.prob_a.size(), s.prob_b.size());
  s.vpc = attr_ints(n, "vectors_per_class");
  for (int64_t v : s.vpc) {
    if (v < 0)
      node_fail(n, "'vectors_per_class' has a negative entry {}", v);
    s.vectors += v;
  }
  s.flags = s.prob_a.empty() ? 0 : kHaveProba;
  if (std::all_of(s.coef.begin(), s.coef.end(), [](double c) { return c >= 0; }))
    s.flags |= kAllPositive;
  if (s.linear_mode())
    finish_linear_classifier(n, s);
  else
    finish_svc_classifier(n, s);
  return s;
}

Svm read_regressor(const Node &n) {
  Svm s = read_common(n);
  s.kind = 1;
  if (s.post != PostTransform::None)
    node_fail(n,
              "post_transform '{}' is not supported for SVMRegressor (ONNX Runtime ignores "
              "it); only NONE",
              attr_string(n, "post_transform", "NONE"));
  s.vectors = attr_int(n, "n_supports", 0);
  if (s.vectors < 0)
    node_fail(n, "'n_supports' is negative ({})", s.vectors);
  s.flags = attr_int(n, "one_class", 0) != 0 ? kOneClass : 0;
  if (s.linear_mode()) {
    s.kernel = kLinear;
    if (s.coef.size() != static_cast<size_t>(s.cols))
      node_fail(n, "'coefficients' has {} values, expected one per input feature ({})",
                s.coef.size(), s.cols);
  } else {
    check_support_vectors(n, s);
    take(n, "coefficients", s.coef, s.vectors);
  }
  s.rho.resize(1);
  return s;
}

/// The kernel's params (layout in templates/cpu/ml_svm.cpp).
std::vector<int64_t> svm_params(const Svm &s) {
  auto sz = [](const auto &v) { return static_cast<int64_t>(v.size()); };
  std::vector<int64_t> p{s.rows,       s.cols,
                         s.kind,       s.linear_mode() ? 1 : 0,
                         s.kernel,     static_cast<int64_t>(s.post),
                         s.classes,    s.vectors,
                         s.flags,      s.width,
                         sz(s.coef),   sz(s.rho),
                         sz(s.prob_a), sz(s.vpc)};
  push_reals(p, {s.gamma, s.coef0, s.degree});
  for (const auto *v : {&s.sv, &s.coef, &s.rho, &s.prob_a, &s.prob_b})
    push_reals(p, *v);
  p.insert(p.end(), s.vpc.begin(), s.vpc.end());
  p.insert(p.end(), s.labels.begin(), s.labels.end());
  return p;
}

/// Scratch bytes for one row (the kernel runs the rows in turn): vote counts (int64), then the
/// row as float, kernel values, pair scores, the pairwise probability matrix, the coupling's Q
/// and Qp (float).
int64_t svm_scratch(const Svm &s) {
  int64_t c = s.classes;
  return 8 * c + 4 * (s.cols + s.vectors + s.pairs() + 2 * c * c + c);
}

KernelCall svm_call(const Node &n, const Svm &s) {
  KernelCall c = call_on_all(n, kernel_name(n, "ml_svm", input_dtype(n, 0)), svm_params(s));
  c.scratch_bytes = svm_scratch(s);
  return c;
}

OpDef svm_op(const char *name) {
  OpDef d;
  d.name = name;
  d.domain = kMlDomain;
  d.max_opset = 5;
  return d;
}

} // namespace

const OpDef &op_SVMClassifier() {
  static const OpDef def = [] {
    OpDef d = svm_op("SVMClassifier");
    d.infer = [](Node &n) {
      Svm s = read_classifier(n);
      if (n.outputs.size() != 2 || !n.outputs[0] || !n.outputs[1])
        node_fail(n, "both outputs (label and scores) must be present");
      set_output(n, 0, DType::Int64, {s.rows});
      set_output(n, 1, DType::Float, {s.rows, s.width});
    };
    d.lower = [](const Node &n) { return svm_call(n, read_classifier(n)); };
    return d;
  }();
  return def;
}

const OpDef &op_SVMRegressor() {
  static const OpDef def = [] {
    OpDef d = svm_op("SVMRegressor");
    d.infer = [](Node &n) {
      Svm s = read_regressor(n);
      set_output(n, 0, DType::Float, {s.rows, 1});
    };
    d.lower = [](const Node &n) { return svm_call(n, read_regressor(n)); };
    return d;
  }();
  return def;
}

} // namespace onnxc
