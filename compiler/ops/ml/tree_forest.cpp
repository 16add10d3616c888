#include "compiler/ops/ml/tree_forest.h"

#include <cmath>
#include <map>
#include <set>

namespace onnxc {
namespace {

bool legacy_mode(const std::string &s, TreeMode &m) {
  static const std::map<std::string, TreeMode> modes = {
      {"BRANCH_LEQ", TreeMode::Leq}, {"BRANCH_LT", TreeMode::Lt}, {"BRANCH_GTE", TreeMode::Gte},
      {"BRANCH_GT", TreeMode::Gt},   {"BRANCH_EQ", TreeMode::Eq}, {"BRANCH_NEQ", TreeMode::Neq}};
  auto it = modes.find(s);
  if (it == modes.end())
    return false;
  m = it->second;
  return true;
}

void require_size(const Node &n, const std::string &name, size_t got, size_t want) {
  if (got != want)
    node_fail(n, "attribute '{}' has {} entries, expected {} (one per node or weight)", name, got,
              want);
}

/// Rejects cycles and shared subtrees: walking from every root visits each node at most once.
void check_acyclic(const Node &n, const TreeForest &f) {
  std::vector<char> seen(f.branches.size(), 0);
  for (int64_t root : f.roots) {
    std::vector<int64_t> stack{root};
    while (!stack.empty()) {
      int64_t r = stack.back();
      stack.pop_back();
      if (r < 0)
        continue;
      if (seen[static_cast<size_t>(r)])
        node_fail(n,
                  "the trees are not trees: node {} is reached twice (a cycle or a shared "
                  "subtree)",
                  r);
      seen[static_cast<size_t>(r)] = 1;
      stack.push_back(f.branches[static_cast<size_t>(r)].if_true);
      stack.push_back(f.branches[static_cast<size_t>(r)].if_false);
    }
  }
}

struct LegacyNodes {
  std::vector<int64_t> tree, id, feature, yes, no, mtt;
  std::vector<std::string> mode;
  std::vector<double> value;
  std::map<std::pair<int64_t, int64_t>, size_t> index; ///< (tree id, node id) -> position
  std::vector<int64_t> ref;                            ///< position -> child reference
};

LegacyNodes read_legacy_nodes(const Node &n) {
  LegacyNodes L;
  L.tree = attr_ints(n, "nodes_treeids");
  size_t cnt = L.tree.size();
  L.id = attr_ints(n, "nodes_nodeids");
  L.feature = attr_ints(n, "nodes_featureids");
  L.yes = attr_ints(n, "nodes_truenodeids");
  L.no = attr_ints(n, "nodes_falsenodeids");
  L.mtt = attr_ints(n, "nodes_missing_value_tracks_true");
  L.mode = attr_strings(n, "nodes_modes");
  L.value = attr_reals(n, "nodes_values");
  if (cnt == 0)
    node_fail(n, "the ensemble has no nodes (attribute 'nodes_treeids' is empty)");
  for (auto [name, size] : {std::pair{"nodes_nodeids", L.id.size()},
                            {"nodes_featureids", L.feature.size()},
                            {"nodes_truenodeids", L.yes.size()},
                            {"nodes_falsenodeids", L.no.size()},
                            {"nodes_modes", L.mode.size()}})
    require_size(n, name, size, cnt);
  if (L.value.empty())
    L.value.assign(cnt, 0.0);
  if (L.mtt.empty())
    L.mtt.assign(cnt, 0);
  require_size(n, "nodes_values", L.value.size(), cnt);
  require_size(n, "nodes_missing_value_tracks_true", L.mtt.size(), cnt);
  for (size_t i = 0; i < cnt; ++i)
    if (!L.index.emplace(std::pair{L.tree[i], L.id[i]}, i).second)
      node_fail(n, "node id {} appears twice in tree {}", L.id[i], L.tree[i]);
  return L;
}

int64_t legacy_child(const Node &n, const LegacyNodes &L, int64_t tree, int64_t id) {
  auto it = L.index.find({tree, id});
  if (it == L.index.end())
    node_fail(n, "tree {} refers to node id {}, which it does not define", tree, id);
  return L.ref[it->second];
}

} // namespace

TreeForest forest_from_legacy(const Node &n, const std::string &prefix, int64_t n_targets) {
  LegacyNodes L = read_legacy_nodes(n);
  TreeForest f;
  f.n_targets = n_targets;
  size_t cnt = L.tree.size();
  L.ref.resize(cnt);
  std::vector<TreeMode> modes(cnt);
  for (size_t i = 0; i < cnt; ++i) {
    if (L.mode[i] == "LEAF") {
      L.ref[i] = ~static_cast<int64_t>(f.leaves.size());
      f.leaves.push_back({0, 0});
    } else if (legacy_mode(L.mode[i], modes[i])) {
      L.ref[i] = static_cast<int64_t>(f.branches.size());
      f.branches.push_back({});
    } else {
      node_fail(n,
                "node mode '{}' is not one of BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, "
                "BRANCH_EQ, BRANCH_NEQ, LEAF",
                L.mode[i]);
    }
  }
  std::vector<int64_t> referenced(cnt, 0);
  for (size_t i = 0; i < cnt; ++i) {
    if (L.ref[i] < 0)
      continue;
    TreeBranch &b = f.branches[static_cast<size_t>(L.ref[i])];
    b = {L.feature[i],
         modes[i],
         L.mtt[i] != 0,
         L.value[i],
         legacy_child(n, L, L.tree[i], L.yes[i]),
         legacy_child(n, L, L.tree[i], L.no[i])};
    referenced[L.index.at({L.tree[i], L.yes[i]})] = 1;
    referenced[L.index.at({L.tree[i], L.no[i]})] = 1;
  }
  for (size_t i = 0; i < cnt; ++i) // roots: unreferenced nodes, in the order trees appear
    if (!referenced[i])
      f.roots.push_back(L.ref[i]);
  if (f.roots.size() != std::set<int64_t>(L.tree.begin(), L.tree.end()).size())
    node_fail(n, "every tree must have exactly one root (a node no other node points to); the "
                 "trees have {} in all, for {} trees (a cycle?)",
              f.roots.size(), std::set<int64_t>(L.tree.begin(), L.tree.end()).size());
  std::vector<int64_t> wt = attr_ints(n, prefix + "_treeids"),
                       wn = attr_ints(n, prefix + "_nodeids"), wid = attr_ints(n, prefix + "_ids");
  std::vector<double> ww = attr_reals(n, prefix + "_weights");
  require_size(n, prefix + "_nodeids", wn.size(), wt.size());
  require_size(n, prefix + "_ids", wid.size(), wt.size());
  require_size(n, prefix + "_weights", ww.size(), wt.size());
  std::vector<std::vector<std::pair<int64_t, double>>> per_leaf(f.leaves.size());
  for (size_t j = 0; j < wt.size(); ++j) {
    int64_t r = legacy_child(n, L, wt[j], wn[j]);
    if (r >= 0)
      node_fail(n, "weight {} is attached to node {} of tree {}, which is not a LEAF", j, wn[j],
                wt[j]);
    if (wid[j] < 0 || wid[j] >= n_targets)
      node_fail(n, "{}_ids[{}] = {} is outside [0, {})", prefix, j, wid[j], n_targets);
    per_leaf[static_cast<size_t>(~r)].push_back({wid[j], ww[j]});
  }
  for (size_t l = 0; l < per_leaf.size(); ++l) {
    f.leaves[l] = {static_cast<int64_t>(f.leaf_values.size()),
                   static_cast<int64_t>(per_leaf[l].size())};
    f.leaf_values.insert(f.leaf_values.end(), per_leaf[l].begin(), per_leaf[l].end());
  }
  check_acyclic(n, f);
  return f;
}

namespace {

std::vector<int64_t> tensor_ints(const Node &n, const std::string &name) {
  TensorPtr t = attr_tensor(n, name);
  if (!t)
    node_fail(n, "attribute '{}' is required", name);
  std::vector<int64_t> out(static_cast<size_t>(t->numel()));
  for (int64_t i = 0; i < t->numel(); ++i)
    out[static_cast<size_t>(i)] = t->int_at(i);
  return out;
}

int64_t v5_child(const Node &n, int64_t id, bool leaf, size_t nodes, size_t leaves) {
  if (id < 0 || static_cast<size_t>(id) >= (leaf ? leaves : nodes))
    node_fail(n, "child {} {} is out of range ({} nodes, {} leaves)", leaf ? "leaf" : "node", id,
              nodes, leaves);
  return leaf ? ~id : id;
}

/// Assigns each BRANCH_MEMBER node its NaN-terminated run of membership_values.
void v5_members(const Node &n, TreeForest &f) {
  std::vector<double> mv = attr_tensor_reals(n, "membership_values");
  size_t pos = 0;
  for (TreeBranch &b : f.branches) {
    if (b.mode != TreeMode::Member)
      continue;
    if (pos >= mv.size())
      node_fail(n, "'membership_values' has fewer sets than there are BRANCH_MEMBER nodes");
    b.member_begin = static_cast<int64_t>(f.members.size());
    while (pos < mv.size() && !std::isnan(mv[pos]))
      f.members.push_back(mv[pos++]);
    ++pos; // the NaN separator
    b.member_count = static_cast<int64_t>(f.members.size()) - b.member_begin;
  }
}

} // namespace

TreeForest forest_from_v5(const Node &n) {
  TreeForest f;
  f.n_targets = attr_int(n, "n_targets", 0);
  if (f.n_targets < 1)
    node_fail(n, "attribute 'n_targets' must be at least 1");
  std::vector<int64_t> feat = attr_ints(n, "nodes_featureids"),
                       yes = attr_ints(n, "nodes_truenodeids"),
                       no = attr_ints(n, "nodes_falsenodeids"),
                       yes_leaf = attr_ints(n, "nodes_trueleafs"),
                       no_leaf = attr_ints(n, "nodes_falseleafs"),
                       mtt = attr_ints(n, "nodes_missing_value_tracks_true"),
                       modes = tensor_ints(n, "nodes_modes"),
                       targets = attr_ints(n, "leaf_targetids");
  std::vector<double> splits = attr_tensor_reals(n, "nodes_splits"),
                      weights = attr_tensor_reals(n, "leaf_weights");
  size_t cnt = feat.size(), leaves = targets.size();
  if (mtt.empty())
    mtt.assign(cnt, 0);
  for (auto [name, size] : {std::pair{"nodes_truenodeids", yes.size()},
                            {"nodes_falsenodeids", no.size()},
                            {"nodes_trueleafs", yes_leaf.size()},
                            {"nodes_falseleafs", no_leaf.size()},
                            {"nodes_missing_value_tracks_true", mtt.size()},
                            {"nodes_modes", modes.size()},
                            {"nodes_splits", splits.size()}})
    require_size(n, name, size, cnt);
  require_size(n, "leaf_weights", weights.size(), leaves);
  for (size_t i = 0; i < cnt; ++i) {
    if (modes[i] < 0 || modes[i] > 6)
      node_fail(n, "nodes_modes[{}] = {} is not a mode (0..6)", i, modes[i]);
    f.branches.push_back({feat[i], static_cast<TreeMode>(modes[i]), mtt[i] != 0, splits[i],
                          v5_child(n, yes[i], yes_leaf[i] != 0, cnt, leaves),
                          v5_child(n, no[i], no_leaf[i] != 0, cnt, leaves)});
  }
  for (size_t l = 0; l < leaves; ++l) {
    if (targets[l] < 0 || targets[l] >= f.n_targets)
      node_fail(n, "leaf_targetids[{}] = {} is outside [0, {})", l, targets[l], f.n_targets);
    f.leaves.push_back({static_cast<int64_t>(l), 1});
    f.leaf_values.push_back({targets[l], weights[l]});
  }
  for (int64_t r : attr_ints(n, "tree_roots"))
    f.roots.push_back(v5_child(n, r, false, cnt, leaves));
  if (f.roots.empty())
    node_fail(n, "attribute 'tree_roots' is empty");
  v5_members(n, f);
  check_acyclic(n, f);
  return f;
}

void check_forest_features(const Node &n, const TreeForest &f, int64_t n_features) {
  for (const TreeBranch &b : f.branches)
    if (b.feature < 0 || b.feature >= n_features)
      node_fail(n, "a node tests feature {}, but the input has {} features", b.feature, n_features);
}

std::vector<int64_t> tree_params(const TreeForest &f, const TreeKernelConfig &c) {
  std::vector<int64_t> p{c.rows,
                         c.cols,
                         f.n_targets,
                         static_cast<int64_t>(f.roots.size()),
                         c.kind,
                         c.aggregate,
                         static_cast<int64_t>(c.post),
                         static_cast<int64_t>(f.branches.size()),
                         static_cast<int64_t>(f.leaves.size()),
                         static_cast<int64_t>(f.leaf_values.size()),
                         static_cast<int64_t>(f.members.size()),
                         static_cast<int64_t>(c.base_values.size()),
                         static_cast<int64_t>(c.labels.size()),
                         (c.binary_case ? 1 : 0) | (c.all_positive ? 2 : 0)};
  p.insert(p.end(), f.roots.begin(), f.roots.end());
  for (const TreeBranch &b : f.branches)
    p.insert(p.end(), {b.feature | (static_cast<int64_t>(b.mode) << 32) |
                           (static_cast<int64_t>(b.missing_tracks_true) << 40),
                       param_f64(b.threshold), b.if_true, b.if_false,
                       b.member_begin | (b.member_count << 32)});
  for (auto [begin, count] : f.leaves)
    p.insert(p.end(), {begin, count});
  for (auto [target, w] : f.leaf_values)
    p.insert(p.end(), {target, param_f64(w)});
  push_reals(p, f.members);
  push_reals(p, c.base_values);
  p.insert(p.end(), c.labels.begin(), c.labels.end());
  return p;
}

} // namespace onnxc
