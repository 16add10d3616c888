/* Tree ensembles (ai.onnx.ml TreeEnsembleRegressor, TreeEnsembleClassifier, TreeEnsemble).
 * The forest is flattened by compiler/ops/ml/tree_forest.cpp into the params:
 *   {rows, cols, n_targets, n_trees, kind (0 regressor, 1 classifier, 2 TreeEnsemble),
 *    aggregate (0 SUM, 1 AVERAGE, 2 MIN, 3 MAX), post_transform, n_branches, n_leaves,
 *    n_leaf_values, n_members, n_base, n_labels, flags (1 binary case, 2 weights all >= 0),
 *    roots[n_trees], branches[n_branches][5] {feature | mode << 32 | missing_tracks_true << 40,
 *    threshold (f64), true child, false child, member begin | count << 32},
 *    leaves[n_leaves][2] {begin, count}, leaf_values[n_leaf_values][2] {target, weight (f64)},
 *    members[n_members] (f64), base_values[n_base] (f64), labels[n_labels]}.
 * A child reference >= 0 is a branch, < 0 the leaf ~ref. Modes: 0 LEQ, 1 LT, 2 GTE, 3 GT,
 * 4 EQ, 5 NEQ, 6 MEMBER.
 * tensors: regressor/TreeEnsemble {X, Y, scratch}; classifier {X, label (i64), scores, scratch};
 * scratch: rows * n_targets bytes (which scores some leaf has set). */
#include "templates/cpu/ml_common.h"

namespace {
using onnxc_k::i64;
using onnxc_k::param_f64;

struct Forest {
  i64 rows, cols, nt, trees, kind, agg, post, nb, nl, nlv, nm, nbase, nlabels, flags;
  const i64 *roots, *branches, *leaves, *leaf_values, *members, *base, *labels;

  explicit Forest(const i64 *p)
      : rows(p[0]), cols(p[1]), nt(p[2]), trees(p[3]), kind(p[4]), agg(p[5]), post(p[6]), nb(p[7]),
        nl(p[8]), nlv(p[9]), nm(p[10]), nbase(p[11]), nlabels(p[12]), flags(p[13]) {
    roots = p + 14;
    branches = roots + trees;
    leaves = branches + 5 * nb;
    leaf_values = leaves + 2 * nl;
    members = leaf_values + 2 * nlv;
    base = members + nm;
    labels = base + nbase;
  }
  double base_at(i64 k) const { return param_f64(base, int(k)); }
};

template <typename TX> bool member(const Forest &f, i64 packed, double v) {
  const i64 begin = packed & 0xffffffff, count = packed >> 32;
  for (i64 k = 0; k < count; ++k)
    if (param_f64(f.members, int(begin + k)) == v)
      return true;
  return false;
}

/// Walks one tree from `ref` for the row x; returns the leaf index.
template <typename TX> i64 walk(const Forest &f, const TX *x, i64 ref) {
  while (ref >= 0) {
    const i64 *b = f.branches + 5 * ref;
    const i64 feature = b[0] & 0xffffffff, mode = (b[0] >> 32) & 0xff;
    const double v = double(x[feature]), t = param_f64(b, 1);
    bool c;
    switch (mode) {
    case 0:
      c = v <= t;
      break;
    case 1:
      c = v < t;
      break;
    case 2:
      c = v >= t;
      break;
    case 3:
      c = v > t;
      break;
    case 4:
      c = v == t;
      break;
    case 5:
      c = v != t;
      break;
    default:
      c = member<TX>(f, b[4], v);
      break;
    }
    if (((b[0] >> 40) & 1) && v != v)
      c = true;
    ref = c ? b[2] : b[3];
  }
  return ~ref;
}

/// Adds one leaf's weights to the row's scores s (has: which are set).
template <typename TO> void add_leaf(const Forest &f, i64 leaf, TO *s, unsigned char *has) {
  const i64 begin = f.leaves[2 * leaf], count = f.leaves[2 * leaf + 1];
  for (i64 k = begin; k < begin + count; ++k) {
    const i64 t = f.leaf_values[2 * k];
    const TO w = TO(param_f64(f.leaf_values, int(2 * k + 1)));
    if (f.agg <= 1)
      s[t] += w;
    else if (!has[t] || (f.agg == 2 ? w < s[t] : w > s[t]))
      s[t] = w;
    has[t] = 1;
  }
}

/// Regressor and TreeEnsemble: base values, averaging, post transform (single target: only
/// PROBIT applies to a regressor, as in ONNX Runtime).
template <typename TO> void finish_regression(const Forest &f, TO *s, const unsigned char *has) {
  const bool use_base = f.nbase == f.nt;
  for (i64 t = 0; t < f.nt; ++t) {
    TO v = has[t] ? s[t] : TO(0);
    if (f.agg == 1)
      v /= TO(f.trees);
    s[t] = v + (use_base ? TO(f.base_at(t)) : TO(0));
  }
  if (f.nt >= 2 || f.kind == 2 || f.post == onnxc_ml::kProbit)
    onnxc_ml::transform(s, f.nt, f.post);
}

template <typename TO> i64 finish_multiclass(const Forest &f, TO *s, unsigned char *has) {
  for (i64 k = 0; k < f.nbase; ++k) {
    s[k] = has[k] ? TO(s[k] + TO(f.base_at(k))) : TO(f.base_at(k));
    has[k] = 1;
  }
  i64 best = -1;
  for (i64 k = 0; k < f.nt; ++k)
    if (has[k] && (best < 0 || s[k] > s[best]))
      best = k;
  onnxc_ml::transform(s, f.nt, f.post);
  return f.labels[best < 0 ? 0 : best];
}

/// Two classes, following ONNX Runtime's TreeAggregatorClassifier (one score expanded to two).
template <typename TO> i64 finish_binary(const Forest &f, TO *s, const unsigned char *has) {
  i64 size = 2, add = -1;
  if (f.nbase == 2) {
    if (has[1]) {
      s[1] = TO(f.base_at(1)) + s[0];
      s[0] = -s[1];
    } else {
      s[1] += TO(f.base_at(1));
      s[0] += TO(f.base_at(0));
    }
  } else {
    if (f.nbase == 1)
      s[0] += TO(f.base_at(0));
    else
      add = 3;
    if (!has[1])
      size = 1;
  }
  const TO pos = (size == 2 && has[1]) ? s[1] : (has[0] ? s[0] : TO(0));
  i64 label = pos > TO(0) ? 1 : 0;
  if (f.flags & 1) {
    const bool positive = (f.flags & 2) ? pos > TO(0.5) : pos > TO(0);
    add = (f.flags & 2) ? (positive ? 0 : 1) : (positive ? 2 : 3);
    label = f.labels[positive ? 1 : 0];
  }
  if (size == 2) {
    onnxc_ml::transform(s, 2, f.post);
    return label;
  }
  const TO v = s[0];
  s[1] = TO(0);
  if (f.post == onnxc_ml::kProbit)
    s[0] = TO(onnxc_ml::probit(float(v)));
  else if (add == 0 || add == 1)
    s[0] = TO(1) - v, s[1] = v;
  else if ((add == 2 || add == 3) && f.post == onnxc_ml::kLogistic)
    s[0] = TO(onnxc_ml::logistic(float(-v))), s[1] = TO(onnxc_ml::logistic(float(v)));
  else if (add == 2)
    s[0] = -v, s[1] = v;
  else if (add == 3)
    s[1] = -v;
  return label;
}

template <typename TX, typename TO>
void run(onnxc_rt *rt, const Forest &f, const TX *x, TO *out, int64_t *labels, unsigned char *has) {
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      TO *s = out + r * f.nt;
      unsigned char *h = has + r * f.nt;
      for (i64 t = 0; t < f.nt; ++t)
        s[t] = TO(0), h[t] = 0;
      for (i64 tree = 0; tree < f.trees; ++tree)
        add_leaf(f, walk(f, x + r * f.cols, f.roots[tree]), s, h);
      if (f.kind != 1)
        finish_regression(f, s, h);
      else
        labels[r] = f.nt > 2 ? finish_multiclass(f, s, h) : finish_binary(f, s, h);
    }
  };
  onnxc_k::parallel_for(rt, f.rows, 16, body);
}

template <typename TX, typename TO>
int32_t tree_kernel(onnxc_rt *rt, void *const *t, const i64 *p) {
  Forest f(p);
  if (f.kind == 1)
    run(rt, f, (const TX *)t[0], (TO *)t[2], (int64_t *)t[1], (unsigned char *)t[3]);
  else
    run(rt, f, (const TX *)t[0], (TO *)t[1], (int64_t *)nullptr, (unsigned char *)t[2]);
  return 0;
}
} // namespace

extern "C" int32_t onnxc_k_ml_tree_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return tree_kernel<float, float>(rt, t, p);
}
extern "C" int32_t onnxc_k_ml_tree_f64(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return tree_kernel<double, double>(rt, t, p);
}
extern "C" int32_t onnxc_k_ml_tree_f64_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return tree_kernel<double, float>(rt, t, p);
}
