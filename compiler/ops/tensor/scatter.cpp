// ScatterND, ScatterElements and Scatter (its deprecated opset 9-10 name): a copy of `data`
// with `updates` written (or combined with reduction add/mul/max/min) at the positions given
// by `indices` (int32/int64, negative counts from the end). Constant indices are checked here;
// run-time ones by the kernel, which fails with INDEX_OUT_OF_RANGE before writing anything.
// Kernel: templates/cpu/scatter.cpp.
#include "compiler/ops/op_util.h"

namespace onnxc {
namespace {

enum Reduction : int64_t { kNone = 0, kAdd = 1, kMul = 2, kMax = 3, kMin = 4 };

Reduction reduction(const Node &n) {
  std::string r = n.op_type == "Scatter" ? "none" : attr_string(n, "reduction", "none");
  if (r == "none")
    return kNone;
  if (r == "add")
    return kAdd;
  if (r == "mul")
    return kMul;
  if (r == "max")
    return kMax;
  if (r == "min")
    return kMin;
  node_fail(n, "reduction '{}' is not none, add, mul, max or min", r);
}

void check_types(const Node &n) {
  require_dtype(n, input_dtype(n, 1), {DType::Int32, DType::Int64});
  if (input_dtype(n, 2) != input_dtype(n, 0))
    node_fail(n, "updates have element type {} but data has {}", dtype_name(input_dtype(n, 2)),
              dtype_name(input_dtype(n, 0)));
}

std::string scatter_kernel(const Node &n, const char *base) {
  DType dt = input_dtype(n, 0);
  if (dt == DType::Bool && reduction(n) == kNone)
    dt = DType::Uint8; // a plain copy of bytes
  return kernel_name(n, base, dt);
}

/// Throws if a constant index is out of range; len_of(i) is the axis length for element i.
template <typename F> void check_constant(const Node &n, F len_of) {
  const Tensor *t = input_constant(n, 1);
  if (!t)
    return;
  for (int64_t i = 0; i < t->numel(); ++i) {
    const int64_t len = len_of(i), v = t->int_at(i);
    if (v < -len || v >= len)
      node_fail(n, "index {} (element {} of the indices) is out of range for an axis of size {}",
                v, i, len);
  }
}

// ---- ScatterND ----

int64_t scatter_nd_q(const Node &n) {
  std::vector<int64_t> data = input_dims(n, 0), idx = input_dims(n, 1), upd = input_dims(n, 2);
  check_types(n);
  if (data.empty() || idx.empty())
    node_fail(n, "data and indices must have rank >= 1");
  const int64_t q = idx.back();
  if (q < 1 || q > static_cast<int64_t>(data.size()))
    node_fail(n, "the last dim of indices ({}) must be in [1, {}]", q, data.size());
  std::vector<int64_t> want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), data.begin() + q, data.end());
  if (upd != want)
    node_fail(n, "updates have shape {} but must have {}", dims_to_string(upd),
              dims_to_string(want));
  check_constant(n, [&](int64_t i) { return data[size_t(i % q)]; });
  return q;
}

} // namespace

const OpDef &op_ScatterND() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "ScatterND";
    d.min_opset = 11;
    d.attrs = {{"reduction", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      scatter_nd_q(n);
      scatter_kernel(n, "scatter_nd");
      set_output(n, 0, input_dtype(n, 0), input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> data = input_dims(n, 0), idx = input_dims(n, 1);
      const int64_t q = scatter_nd_q(n);
      std::vector<int64_t> params{reduction(n),
                                  dtype_bits(input_dtype(n, 1)) / 8,
                                  product(data),
                                  product({idx.begin(), idx.end() - 1}),
                                  q,
                                  product({data.begin() + q, data.end()})};
      for (int64_t k = 0; k < q; ++k)
        params.push_back(data[size_t(k)]);
      for (int64_t k = 0; k < q; ++k)
        params.push_back(product({data.begin() + k + 1, data.end()}));
      return call_on_all(n, scatter_kernel(n, "scatter_nd"), params);
    };
    return d;
  }();
  return def;
}

namespace {

// ---- ScatterElements / Scatter ----

size_t scatter_elements_axis(const Node &n) {
  std::vector<int64_t> data = input_dims(n, 0), idx = input_dims(n, 1), upd = input_dims(n, 2);
  check_types(n);
  if (data.empty() || idx.size() != data.size())
    node_fail(n, "indices {} must have the same rank as the data {} (at least 1)",
              dims_to_string(idx), dims_to_string(data));
  if (upd != idx)
    node_fail(n, "updates have shape {} but indices have {}", dims_to_string(upd),
              dims_to_string(idx));
  const size_t axis = static_cast<size_t>(
      normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(data.size())));
  for (size_t k = 0; k < data.size(); ++k)
    if (k != axis && idx[k] > data[k])
      node_fail(n, "indices {} are larger than the data {} along axis {}", dims_to_string(idx),
                dims_to_string(data), k);
  check_constant(n, [&](int64_t) { return data[axis]; });
  return axis;
}

OpDef scatter_elements_def(const char *name) {
  OpDef d;
  d.name = name;
  d.infer = [](Node &n) {
    scatter_elements_axis(n);
    scatter_kernel(n, "scatter_elements");
    set_output(n, 0, input_dtype(n, 0), input_dims(n, 0));
  };
  d.lower = [](const Node &n) {
    std::vector<int64_t> data = input_dims(n, 0), idx = input_dims(n, 1);
    const size_t axis = scatter_elements_axis(n);
    std::vector<int64_t> params{reduction(n),
                                dtype_bits(input_dtype(n, 1)) / 8,
                                product(data),
                                static_cast<int64_t>(data.size()),
                                static_cast<int64_t>(axis),
                                data[axis]};
    params.insert(params.end(), idx.begin(), idx.end());
    for (size_t k = 0; k < data.size(); ++k)
      params.push_back(product({data.begin() + int64_t(k) + 1, data.end()}));
    return call_on_all(n, scatter_kernel(n, "scatter_elements"), params);
  };
  return d;
}

} // namespace

const OpDef &op_ScatterElements() {
  static const OpDef def = [] {
    OpDef d = scatter_elements_def("ScatterElements");
    d.min_opset = 11;
    d.attrs = {{"axis", Attribute::Kind::Int}, {"reduction", Attribute::Kind::String}};
    return d;
  }();
  return def;
}

const OpDef &op_Scatter() {
  static const OpDef def = [] {
    OpDef d = scatter_elements_def("Scatter");
    d.min_opset = 9;
    d.max_opset = 10;
    d.attrs = {{"axis", Attribute::Kind::Int}};
    return d;
  }();
  return def;
}

} // namespace onnxc
