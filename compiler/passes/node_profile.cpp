#include "compiler/passes/node_profile.h"

#include "compiler/ops/op_util.h"

#include <algorithm>
#include <set>

namespace onnxc {
namespace {

/// Static dims of `v`, or empty if absent or not static.
std::vector<int64_t> dims_of(const Value *v) {
  if (!v || !v->type.is_static())
    return {};
  return v->type.static_dims();
}

/// Product of dims[from, end) as a double (no overflow for huge tensors).
double product(const std::vector<int64_t> &dims, size_t from = 0) {
  double p = 1;
  for (size_t i = from; i < dims.size(); ++i)
    p *= static_cast<double>(dims[i]);
  return p;
}

double numel(const Value *v) {
  if (!v || !v->type.is_static())
    return 0;
  return product(v->type.static_dims());
}

/// Ops that copy, index or reinterpret data without arithmetic.
bool moves_data_only(const std::string &op) {
  static const std::set<std::string> ops = {
      "Reshape", "Flatten", "Squeeze",   "Unsqueeze",       "Identity",       "Transpose",
      "Concat",  "Split",   "Slice",     "Gather",          "GatherElements", "GatherND",
      "Expand",  "Tile",    "Pad",       "DepthToSpace",    "SpaceToDepth",   "Shape",
      "Size",    "Cast",    "ScatterND", "ScatterElements", "Dropout",        "Copy"};
  return ops.count(op) > 0;
}

double matmul_flops(const Node &n) {
  std::vector<int64_t> a = dims_of(n.input(0));
  if (a.empty())
    return 0;
  return 2.0 * numel(n.outputs[0]) * static_cast<double>(a.back());
}

double gemm_flops(const Node &n) {
  std::vector<int64_t> a = dims_of(n.input(0));
  if (a.size() != 2)
    return 0;
  double k = static_cast<double>(attr_int(n, "transA", 0) ? a[0] : a[1]);
  return 2.0 * numel(n.outputs[0]) * k;
}

/// Conv: every output element is a dot product over W's dims after the first (C/group · k...).
/// ConvTranspose: every input element is scattered over W's dims after the first.
double conv_flops(const Node &n, bool transpose) {
  std::vector<int64_t> w = dims_of(n.input(1));
  if (w.size() < 2)
    return 0;
  double per = product(w, 1);
  return 2.0 * per * numel(transpose ? n.input(0) : n.outputs[0]);
}

std::string shapes(const std::vector<Value *> &values) {
  std::string s;
  for (const Value *v : values) {
    if (!v)
      continue;
    if (!s.empty())
      s += ", ";
    s += shape_to_string(v->type);
  }
  return s;
}

} // namespace

uint64_t estimate_flops(const Node &n) {
  if (n.outputs.empty())
    return 0;
  double f = 0;
  if (n.op_type == "MatMul")
    f = matmul_flops(n);
  else if (n.op_type == "Gemm")
    f = gemm_flops(n);
  else if (n.op_type == "Conv" || n.op_type == "ConvTranspose")
    f = conv_flops(n, n.op_type == "ConvTranspose");
  else if (!moves_data_only(n.op_type)) {
    for (const Value *v : n.inputs)
      f = std::max(f, numel(v));
    for (const Value *v : n.outputs)
      f = std::max(f, numel(v));
  }
  return f > 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(f);
}

NodeProfile describe_for_profile(const Node &n) {
  NodeProfile p;
  p.name = n.name.empty() ? n.describe() : n.name;
  p.op_type = n.op_type;
  p.input_shapes = shapes(n.inputs);
  p.output_shapes = shapes(n.outputs);
  p.flops = estimate_flops(n);
  return p;
}

} // namespace onnxc
