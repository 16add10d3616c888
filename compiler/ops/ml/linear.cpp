// ai.onnx.ml LinearClassifier and LinearRegressor: scores = X · coefficientsᵀ + intercepts
// (computed in float, as ONNX Runtime does), then post_transform; the classifier's label is the
// best class, or for a single score the sign (ONNX Runtime's conventions, int64 labels only).
// Kernel: templates/cpu/ml_linear.cpp.
#include "compiler/ops/ml/ml_util.h"

namespace onnxc {

namespace {

struct Linear {
  int64_t rows = 0, cols = 0, targets = 0;
  std::vector<double> coef, intercepts;
};

Linear read_linear(const Node &n, int64_t targets_attr) {
  require_real_input(n, 0);
  Linear L;
  std::tie(L.rows, L.cols) = ml_rows_cols(n, 0);
  L.coef = attr_reals(n, "coefficients");
  L.intercepts = attr_reals(n, "intercepts");
  if (L.cols == 0 || L.coef.empty() || L.coef.size() % static_cast<size_t>(L.cols) != 0)
    node_fail(n, "'coefficients' has {} entries, not a multiple of the {} input features",
              L.coef.size(), L.cols);
  L.targets = static_cast<int64_t>(L.coef.size()) / L.cols;
  if (targets_attr > 0 && targets_attr != L.targets)
    node_fail(n, "'coefficients' gives {} targets but 'targets' is {}", L.targets, targets_attr);
  if (!L.intercepts.empty() && L.intercepts.size() != static_cast<size_t>(L.targets))
    node_fail(n, "'intercepts' has {} entries, expected {}", L.intercepts.size(), L.targets);
  if (L.intercepts.empty())
    L.intercepts.assign(static_cast<size_t>(L.targets), 0.0);
  return L;
}

std::vector<int64_t> linear_params(const Linear &L, int64_t kind, PostTransform post,
                                   const std::vector<int64_t> &labels) {
  std::vector<int64_t> p{L.rows,
                         L.cols,
                         L.targets,
                         kind,
                         static_cast<int64_t>(post),
                         static_cast<int64_t>(labels.size())};
  push_reals(p, L.coef);
  push_reals(p, L.intercepts);
  p.insert(p.end(), labels.begin(), labels.end());
  return p;
}

std::string linear_kernel(const Node &n) { return kernel_name(n, "ml_linear", input_dtype(n, 0)); }

/// Score columns: a single score with two labels is expanded to two columns.
int64_t classifier_columns(const Linear &L, const std::vector<int64_t> &labels) {
  return L.targets == 1 && labels.size() == 2 ? 2 : L.targets;
}

} // namespace

const OpDef &op_LinearClassifier() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "LinearClassifier";
    d.domain = kMlDomain;
    d.max_opset = 5;
    d.infer = [](Node &n) {
      refuse_string_labels(n, "classlabels_strings");
      Linear L = read_linear(n, 0);
      std::vector<int64_t> labels = attr_ints(n, "classlabels_ints");
      if (L.targets > 1 && labels.size() != static_cast<size_t>(L.targets))
        node_fail(n, "'classlabels_ints' has {} labels for {} classes", labels.size(), L.targets);
      post_transform_attr(n);
      set_output(n, 0, DType::Int64, {L.rows});
      set_output(n, 1, DType::Float, {L.rows, classifier_columns(L, labels)});
    };
    d.lower = [](const Node &n) {
      Linear L = read_linear(n, 0);
      return call_on_all(
          n, linear_kernel(n),
          linear_params(L, 1, post_transform_attr(n), attr_ints(n, "classlabels_ints")));
    };
    return d;
  }();
  return def;
}

const OpDef &op_LinearRegressor() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "LinearRegressor";
    d.domain = kMlDomain;
    d.max_opset = 5;
    d.infer = [](Node &n) {
      Linear L = read_linear(n, attr_int(n, "targets", 1));
      post_transform_attr(n);
      set_output(n, 0, DType::Float, {L.rows, L.targets});
    };
    d.lower = [](const Node &n) {
      Linear L = read_linear(n, attr_int(n, "targets", 1));
      return call_on_all(n, linear_kernel(n), linear_params(L, 0, post_transform_attr(n), {}));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
