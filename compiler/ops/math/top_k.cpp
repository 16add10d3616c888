// TopK (opset 1: attribute k; opset 10+: input K, which must be a compile-time constant;
// opset 11+: largest, sorted): the k largest or smallest elements along an axis and their
// int64 indices, always sorted (ties: lower index first). Numeric dtypes; kernel
// templates/cpu/top_k.cpp, params misc_params.h.
#include "compiler/ops/op_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {
onnxc_k::TopKParams top_k_params(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0);
  if (x.empty())
    node_fail(n, "input must have rank >= 1");
  const int64_t axis = normalize_axis(n, attr_int(n, "axis", -1), static_cast<int64_t>(x.size()));
  int64_t k = attr_int(n, "k", -1);
  if (n.opset >= 10) {
    const Tensor &kt = require_constant(n, 1, "K");
    if (kt.numel() != 1)
      node_fail(n, "K must have one element, it has {}", kt.numel());
    k = kt.int_at(0);
  }
  const auto a = static_cast<size_t>(axis);
  if (k < 0 || k > x[a])
    node_fail(n, "k = {} is outside [0, {}] (the size of axis {})", k, x[a], axis);
  onnxc_k::TopKParams p{};
  p.outer = product({x.begin(), x.begin() + axis});
  p.len = x[a];
  p.inner = product({x.begin() + axis + 1, x.end()});
  p.k = k;
  p.largest = attr_int(n, "largest", 1) != 0;
  return p;
}

bool indices_used(const Node &n) {
  const Value *v = n.outputs.size() > 1 ? n.outputs[1] : nullptr;
  return v && (!v->uses.empty() || v->is_graph_output);
}
} // namespace

const OpDef &op_TopK() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "TopK";
    d.attrs = {{"axis", Attribute::Kind::Int},
               {"k", Attribute::Kind::Int},
               {"largest", Attribute::Kind::Int},
               {"sorted", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      kernel_name(n, "top_k", input_dtype(n, 0));
      const onnxc_k::TopKParams p = top_k_params(n);
      std::vector<int64_t> out = input_dims(n, 0);
      out[static_cast<size_t>(
          normalize_axis(n, attr_int(n, "axis", -1), static_cast<int64_t>(out.size())))] = p.k;
      set_output(n, 0, input_dtype(n, 0), out);
      set_output(n, 1, DType::Int64, out);
    };
    d.lower = [](const Node &n) {
      const onnxc_k::TopKParams p = top_k_params(n);
      KernelCall call;
      call.kernel = kernel_name(n, "top_k", input_dtype(n, 0));
      call.args = {n.inputs[0], n.outputs[0], indices_used(n) ? n.outputs[1] : nullptr};
      set_params(call, p);
      call.scratch_bytes = onnxc_k::top_k_scratch_bytes(p, indices_used(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
