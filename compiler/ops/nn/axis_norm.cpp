// Ops that treat the input as rows over a set of reduced axes: RMSNormalization (opset 23),
// LpNormalization, MeanVarianceNormalization and Hardmax. float/double; one kernel file,
// templates/cpu/axis_norm.cpp, whose common params describe the kept and reduced axes.
#include "compiler/ops/op_util.h"

namespace onnxc {
namespace {

enum AxisNormKind : int64_t { kRms = 0, kLp = 1, kMvn = 2, kHardmax = 3 };

/// {n_kept, n_red, kept_dims, kept_strides, red_dims, red_strides} for X with `reduced` axes.
std::vector<int64_t> axis_params(const std::vector<int64_t> &x, const std::vector<bool> &reduced) {
  std::vector<int64_t> strides(x.size(), 1), kd, ks, rd, rs;
  for (size_t k = x.size(); k-- > 1;)
    strides[k - 1] = strides[k] * x[k];
  for (size_t k = 0; k < x.size(); ++k) {
    (reduced[k] ? rd : kd).push_back(x[k]);
    (reduced[k] ? rs : ks).push_back(strides[k]);
  }
  std::vector<int64_t> p{static_cast<int64_t>(kd.size()), static_cast<int64_t>(rd.size())};
  for (auto *v : {&kd, &ks, &rd, &rs})
    p.insert(p.end(), v->begin(), v->end());
  return p;
}

/// Reduced axes: [axis, rank) ("trailing") or just {axis}.
std::vector<bool> from_axis(const Node &n, int64_t axis, size_t rank, bool trailing) {
  axis = normalize_axis(n, axis, static_cast<int64_t>(rank));
  std::vector<bool> red(rank, false);
  for (size_t k = static_cast<size_t>(axis); k < rank; ++k)
    red[k] = trailing || k == static_cast<size_t>(axis);
  return red;
}

std::vector<bool> reduced_axes(const Node &n, AxisNormKind kind) {
  const size_t rank = input_dims(n, 0).size();
  switch (kind) {
  case kRms: return from_axis(n, attr_int(n, "axis", -1), rank, true);
  case kLp: return from_axis(n, attr_int(n, "axis", -1), rank, false);
  case kHardmax:
    return n.opset < 13 ? from_axis(n, attr_int(n, "axis", 1), rank, true)
                        : from_axis(n, attr_int(n, "axis", -1), rank, false);
  case kMvn: {
    std::vector<bool> red(rank, false);
    for (int64_t a : attr_ints(n, "axes", {0, 2, 3}))
      red[static_cast<size_t>(normalize_axis(n, a, static_cast<int64_t>(rank)))] = true;
    return red;
  }
  }
  return {};
}

/// RMSNormalization's scale must broadcast to the normalised (trailing) dims: its count.
int64_t rms_scale_count(const Node &n, const std::vector<int64_t> &x,
                        const std::vector<bool> &red) {
  std::vector<int64_t> s = input_dims(n, 1);
  while (!s.empty() && s.front() == 1 && s.size() > 1)
    s.erase(s.begin());
  size_t first = 0;
  while (first < red.size() && !red[first])
    ++first;
  std::vector<int64_t> tail(x.begin() + static_cast<int64_t>(first), x.end());
  bool ok = s.size() <= tail.size() &&
            std::equal(s.begin(), s.end(), tail.end() - static_cast<int64_t>(s.size()));
  if (!ok && product(s) != 1)
    node_fail(n, "scale has shape {} but the normalised dims are {}",
              dims_to_string(input_dims(n, 1)), dims_to_string(tail));
  return product(s);
}

OpDef axis_norm_def(const char *name, AxisNormKind kind) {
  OpDef d;
  d.name = name;
  d.infer = [kind](Node &n) {
    DType dt = input_dtype(n, 0);
    require_dtype(n, dt, {DType::Float, DType::Double});
    std::vector<int64_t> x = input_dims(n, 0);
    if (x.empty())
      node_fail(n, "input must have rank >= 1");
    std::vector<bool> red = reduced_axes(n, kind);
    if (kind == kRms) {
      if (input_dtype(n, 1) != dt)
        node_fail(n, "scale has element type {} but X has {}", dtype_name(input_dtype(n, 1)),
                  dtype_name(dt));
      rms_scale_count(n, x, red);
    }
    if (kind == kLp) {
      int64_t p = attr_int(n, "p", 2);
      if (p != 1 && p != 2)
        node_fail(n, "p must be 1 or 2, it is {}", p);
    }
    set_output(n, 0, dt, x);
  };
  d.lower = [kind](const Node &n) {
    std::vector<int64_t> x = input_dims(n, 0);
    std::vector<bool> red = reduced_axes(n, kind);
    KernelCall call;
    call.kernel = kernel_name(n, "axis_norm", input_dtype(n, 0));
    call.args = {n.inputs[0], n.input(1), n.outputs[0]};
    double eps = kind == kMvn ? 1e-9 : attr_float(n, "epsilon", 1e-5f);
    int64_t extra = kind == kRms ? rms_scale_count(n, x, red) : kind == kLp ? attr_int(n, "p", 2) : 0;
    call.params = {kind, param_f64(eps), extra};
    std::vector<int64_t> ap = axis_params(x, red);
    call.params.insert(call.params.end(), ap.begin(), ap.end());
    return call;
  };
  return d;
}

} // namespace

const OpDef &op_RMSNormalization() {
  static const OpDef def = [] {
    OpDef d = axis_norm_def("RMSNormalization", kRms);
    d.min_opset = 23;
    d.attrs = {{"axis", Attribute::Kind::Int},
               {"epsilon", Attribute::Kind::Float},
               {"stash_type", Attribute::Kind::Int}};
    return d;
  }();
  return def;
}

const OpDef &op_LpNormalization() {
  static const OpDef def = [] {
    OpDef d = axis_norm_def("LpNormalization", kLp);
    d.attrs = {{"axis", Attribute::Kind::Int}, {"p", Attribute::Kind::Int}};
    return d;
  }();
  return def;
}

const OpDef &op_MeanVarianceNormalization() {
  static const OpDef def = [] {
    OpDef d = axis_norm_def("MeanVarianceNormalization", kMvn);
    d.min_opset = 9;
    d.attrs = {{"axes", Attribute::Kind::Ints}};
    return d;
  }();
  return def;
}

const OpDef &op_Hardmax() {
  static const OpDef def = [] {
    OpDef d = axis_norm_def("Hardmax", kHardmax);
    d.attrs = {{"axis", Attribute::Kind::Int}};
    return d;
  }();
  return def;
}

} // namespace onnxc
