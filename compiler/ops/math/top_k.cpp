// TopK (opset 1: attribute k; opset 10+: input K; opset 11+: largest, sorted): the k largest
// or smallest elements along an axis and their int64 indices, always sorted (ties: lower index
// first). A K computed at run time is a run-time count (OpDef::count_bound): the outputs are
// planned for the axis' size and the kernel reports K. Numeric dtypes; kernel
// templates/cpu/top_k.cpp, params misc_params.h.
#include "compiler/ops/op_util.h"
#include "compiler/ops/sym_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {
onnxc_k::TopKParams top_k_params(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0);
  if (x.empty())
    node_fail(n, "input must have rank >= 1");
  const int64_t axis = normalize_axis(n, attr_int(n, "axis", -1), static_cast<int64_t>(x.size()));
  int64_t k = attr_int(n, "k", -1);
  const bool run_time = run_time_count_dim(n).has_value();
  if (run_time) {
    if (input_dtype(n, 1) != DType::Int64 || product(input_dims(n, 1)) != 1)
      node_fail(n, "K must be an int64 tensor of one element, it is {}",
                shape_to_string(n.inputs[1]->type));
    k = x[static_cast<size_t>(axis)]; // the bound; the kernel reads K
  } else if (n.opset >= 10) {
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
  p.k_symbol = run_time ? kCountSymbolIndex : -1;
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
    d.count_bound = [](const Node &n) -> int64_t { // K computed at run time
      if (n.opset < 10 || !n.has_input(1) || n.inputs[1]->constant || n.inputs[1]->sym_value)
        return -1;
      const std::vector<int64_t> x = input_dims(n, 0);
      if (x.empty())
        node_fail(n, "input must have rank >= 1");
      return x[static_cast<size_t>(
          normalize_axis(n, attr_int(n, "axis", -1), static_cast<int64_t>(x.size())))];
    };
    d.infer = [](Node &n) {
      kernel_name(n, "top_k", input_dtype(n, 0));
      const onnxc_k::TopKParams p = top_k_params(n);
      std::vector<int64_t> out = input_dims(n, 0);
      const auto axis = static_cast<size_t>(
          normalize_axis(n, attr_int(n, "axis", -1), static_cast<int64_t>(out.size())));
      if (auto c = run_time_count_dim(n)) { // K at run time: the count at the axis
        std::vector<SymInt> dims(out.begin(), out.end());
        dims[axis] = *c;
        set_output_sym(n, 0, input_dtype(n, 0), dims);
        set_output_sym(n, 1, DType::Int64, dims);
        return;
      }
      out[axis] = p.k;
      set_output(n, 0, input_dtype(n, 0), out);
      set_output(n, 1, DType::Int64, out);
    };
    d.lower = [](const Node &n) {
      const onnxc_k::TopKParams p = top_k_params(n);
      KernelCall call;
      call.kernel = kernel_name(n, "top_k", input_dtype(n, 0));
      call.args = {n.inputs[0], n.outputs[0], indices_used(n) ? n.outputs[1] : nullptr,
                   p.k_symbol >= 0 ? n.inputs[1] : nullptr};
      set_params(call, p);
      call.scratch_bytes = onnxc_k::top_k_scratch_bytes(p, indices_used(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
