// ai.onnx.ml tree ensembles: TreeEnsembleRegressor, TreeEnsembleClassifier (opsets 1..5, int64
// class labels only) and TreeEnsemble (opset 5). The trees are validated and flattened at compile
// time (tree_forest.cpp) and walked by templates/cpu/ml_tree.cpp; scores follow ONNX Runtime,
// including its binary-classification conventions.
#include "compiler/ops/ml/tree_forest.h"

#include <set>

namespace onnxc {

namespace {

int64_t aggregate_code(const Node &n) {
  std::string a = attr_string(n, "aggregate_function", "SUM");
  if (a == "SUM")
    return 0;
  if (a == "AVERAGE")
    return 1;
  if (a == "MIN")
    return 2;
  if (a == "MAX")
    return 3;
  node_fail(n, "aggregate_function '{}' is not one of SUM, AVERAGE, MIN, MAX", a);
}

/// Kernel name for input dtype `x` and output dtype `y`.
std::string tree_kernel(DType x, DType y) {
  if (x == DType::Float)
    return "onnxc_k_ml_tree_f32";
  return y == DType::Double ? "onnxc_k_ml_tree_f64" : "onnxc_k_ml_tree_f64_f32";
}

KernelCall tree_call(const Node &n, const TreeForest &f, TreeKernelConfig cfg, DType out) {
  auto [rows, cols] = ml_rows_cols(n, 0);
  cfg.rows = rows;
  cfg.cols = cols;
  KernelCall c = call_on_all(n, tree_kernel(input_dtype(n, 0), out), tree_params(f, cfg));
  c.scratch_bytes = std::max<int64_t>(rows * f.n_targets, 1);
  return c;
}

/// Classifier: the forest, labels and ONNX Runtime's binary-case flags.
std::pair<TreeForest, TreeKernelConfig> classifier(const Node &n) {
  refuse_string_labels(n, "classlabels_strings");
  TreeKernelConfig cfg;
  cfg.kind = 1;
  cfg.labels = attr_ints(n, "classlabels_int64s");
  if (cfg.labels.size() < 2)
    node_fail(n, "attribute 'classlabels_int64s' must list at least 2 classes");
  TreeForest f = forest_from_legacy(n, "class", static_cast<int64_t>(cfg.labels.size()));
  std::set<int64_t> classes;
  for (auto [target, w] : f.leaf_values) {
    classes.insert(target);
    cfg.all_positive = cfg.all_positive && w >= 0;
  }
  cfg.binary_case = cfg.labels.size() == 2 && classes.size() == 1;
  cfg.post = post_transform_attr(n);
  cfg.base_values = attr_reals(n, "base_values");
  return {f, cfg};
}

void check_base_values(const Node &n, const TreeKernelConfig &cfg, int64_t targets) {
  size_t nb = cfg.base_values.size();
  if (nb != 0 && nb != static_cast<size_t>(targets) && !(cfg.kind == 1 && nb == 1))
    node_fail(n, "attribute 'base_values' has {} entries, expected 0 or {}", nb, targets);
}

} // namespace

const OpDef &op_TreeEnsembleClassifier() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "TreeEnsembleClassifier";
    d.domain = kMlDomain;
    d.max_opset = 5;
    d.infer = [](Node &n) {
      require_real_input(n, 0);
      auto [f, cfg] = classifier(n);
      auto [rows, cols] = ml_rows_cols(n, 0);
      check_forest_features(n, f, cols);
      check_base_values(n, cfg, f.n_targets);
      if (n.outputs.size() != 2 || !n.outputs[0] || !n.outputs[1])
        node_fail(n, "both outputs (label and scores) must be present");
      set_output(n, 0, DType::Int64, {rows});
      set_output(n, 1, DType::Float, {rows, f.n_targets});
    };
    d.lower = [](const Node &n) {
      auto [f, cfg] = classifier(n);
      return tree_call(n, f, cfg, DType::Float);
    };
    return d;
  }();
  return def;
}

const OpDef &op_TreeEnsembleRegressor() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "TreeEnsembleRegressor";
    d.domain = kMlDomain;
    d.max_opset = 5;
    d.infer = [](Node &n) {
      require_real_input(n, 0);
      int64_t targets = attr_int(n, "n_targets", 1);
      TreeForest f = forest_from_legacy(n, "target", targets);
      auto [rows, cols] = ml_rows_cols(n, 0);
      check_forest_features(n, f, cols);
      TreeKernelConfig cfg;
      cfg.base_values = attr_reals(n, "base_values");
      check_base_values(n, cfg, targets);
      aggregate_code(n);
      post_transform_attr(n);
      set_output(n, 0, DType::Float, {rows, targets});
    };
    d.lower = [](const Node &n) {
      TreeForest f = forest_from_legacy(n, "target", attr_int(n, "n_targets", 1));
      TreeKernelConfig cfg;
      cfg.aggregate = aggregate_code(n);
      cfg.post = post_transform_attr(n);
      cfg.base_values = attr_reals(n, "base_values");
      return tree_call(n, f, cfg, DType::Float);
    };
    return d;
  }();
  return def;
}

namespace {
/// TreeEnsemble's aggregate_function: 0 AVERAGE, 1 SUM, 2 MIN, 3 MAX → the kernel's codes.
TreeKernelConfig v5_config(const Node &n) {
  static const int64_t agg[] = {1, 0, 2, 3};
  TreeKernelConfig cfg;
  cfg.kind = 2;
  int64_t a = attr_int(n, "aggregate_function", 1), p = attr_int(n, "post_transform", 0);
  if (a < 0 || a > 3)
    node_fail(n, "aggregate_function {} is not 0..3 (AVERAGE, SUM, MIN, MAX)", a);
  if (p < 0 || p > 4)
    node_fail(n, "post_transform {} is not 0..4", p);
  cfg.aggregate = agg[a];
  cfg.post = static_cast<PostTransform>(p);
  return cfg;
}
} // namespace

const OpDef &op_TreeEnsemble() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "TreeEnsemble";
    d.domain = kMlDomain;
    d.min_opset = 5;
    d.max_opset = 5;
    d.infer = [](Node &n) {
      require_real_input(n, 0);
      TreeForest f = forest_from_v5(n);
      v5_config(n);
      auto [rows, cols] = ml_rows_cols(n, 0);
      check_forest_features(n, f, cols);
      set_output(n, 0, input_dtype(n, 0), {rows, f.n_targets});
    };
    d.lower = [](const Node &n) {
      return tree_call(n, forest_from_v5(n), v5_config(n), input_dtype(n, 0));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
