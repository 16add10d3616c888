// Tree ensembles flattened for the kernel (templates/cpu/ml_tree.cpp). The tree structure of
// TreeEnsembleClassifier, TreeEnsembleRegressor and TreeEnsemble (opset 5) is constant, so the
// compiler validates it once and turns it into compact arrays that are passed to the kernel as
// constant parameters (read-only data in the library), walked with a tight loop per tree.
#pragma once

#include "compiler/ops/ml/ml_util.h"

#include <cstdint>
#include <vector>

namespace onnxc {

/// Node comparison modes; the numbers are the kernel's (and TreeEnsemble opset 5's).
enum class TreeMode : int64_t { Leq = 0, Lt = 1, Gte = 2, Gt = 3, Eq = 4, Neq = 5, Member = 6 };

/// A child reference: >= 0 is a branch node index, < 0 is leaf ~ref.
struct TreeBranch {
  int64_t feature = 0;
  TreeMode mode = TreeMode::Leq;
  bool missing_tracks_true = false;
  double threshold = 0;
  int64_t if_true = 0, if_false = 0;
  int64_t member_begin = 0, member_count = 0; ///< TreeMode::Member: its set in `members`
};

/// A whole ensemble: branch nodes, leaves with their (target, weight) lists, and tree roots.
struct TreeForest {
  int64_t n_targets = 1;
  std::vector<int64_t> roots; ///< child references, one per tree
  std::vector<TreeBranch> branches;
  std::vector<std::pair<int64_t, int64_t>> leaves;     ///< [begin, count) into leaf_values
  std::vector<std::pair<int64_t, double>> leaf_values; ///< (target, weight)
  std::vector<double> members;
};

/// Builds the forest of TreeEnsembleClassifier (prefix "class") or TreeEnsembleRegressor
/// (prefix "target"); `n_targets` is the number of classes or targets. Validates every id.
TreeForest forest_from_legacy(const Node &n, const std::string &prefix, int64_t n_targets);
/// Builds the forest of TreeEnsemble (ai.onnx.ml opset 5).
TreeForest forest_from_v5(const Node &n);
/// Throws naming the node unless every feature index is in [0, n_features).
void check_forest_features(const Node &n, const TreeForest &f, int64_t n_features);

/// Kernel configuration besides the forest (see templates/cpu/ml_tree.cpp for the layout).
struct TreeKernelConfig {
  int64_t rows = 0, cols = 0;
  int64_t kind = 0;      ///< 0 regressor, 1 classifier, 2 TreeEnsemble (opset 5)
  int64_t aggregate = 0; ///< 0 SUM, 1 AVERAGE, 2 MIN, 3 MAX
  PostTransform post = PostTransform::None;
  std::vector<double> base_values;
  std::vector<int64_t> labels;                   ///< classifier only
  bool binary_case = false, all_positive = true; ///< classifier only (see the kernel)
};

/// The kernel's int64 params for `forest` and `cfg`.
std::vector<int64_t> tree_params(const TreeForest &forest, const TreeKernelConfig &cfg);

} // namespace onnxc
