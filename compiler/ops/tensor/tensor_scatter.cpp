// TensorScatter (opset 24): writes update into a copy of past_cache along `axis` (a KV-cache
// update), at write_indices[b] per batch, linear or circular. Kernel:
// templates/cpu/tensor_scatter.cpp.
#include "compiler/ops/op_util.h"
#include "templates/cpu/tensor_scatter_params.h"

namespace onnxc {
namespace {

onnxc_k::TensorScatterParams scatter_params(const Node &n) {
  std::vector<int64_t> past = input_dims(n, 0), upd = input_dims(n, 1);
  const auto r = static_cast<int64_t>(past.size());
  if (r < 2 || upd.size() != past.size())
    node_fail(n, "past_cache and update must have the same rank (2 or more), got {} and {}",
              dims_to_string(past), dims_to_string(upd));
  int64_t axis = normalize_axis(n, attr_int(n, "axis", -2), r);
  if (axis == 0)
    node_fail(n, "axis must not be the batch axis 0");
  for (int64_t i = 0; i < r; ++i)
    if (i != axis && past[size_t(i)] != upd[size_t(i)])
      node_fail(n, "update {} must match past_cache {} except along axis {}", dims_to_string(upd),
                dims_to_string(past), axis);
  if (upd[size_t(axis)] > past[size_t(axis)])
    node_fail(n, "update has {} rows along axis {}, more than the cache's {}", upd[size_t(axis)],
              axis, past[size_t(axis)]);
  if (n.has_input(2) &&
      (input_dtype(n, 2) != DType::Int64 || input_dims(n, 2) != std::vector<int64_t>{past[0]}))
    node_fail(n, "write_indices must be int64 [{}]", past[0]);
  std::string mode = attr_string(n, "mode", "linear");
  if (mode != "linear" && mode != "circular")
    node_fail(n, "mode must be \"linear\" or \"circular\", not \"{}\"", mode);
  onnxc_k::TensorScatterParams p{};
  p.batch = past[0];
  p.pre = product({past.begin() + 1, past.begin() + axis});
  p.max_seq = past[size_t(axis)];
  p.seq = upd[size_t(axis)];
  p.row_bytes = product({past.begin() + axis + 1, past.end()}) * dtype_bits(input_dtype(n, 0)) / 8;
  p.circular = mode == "circular";
  return p;
}

} // namespace

const OpDef &op_TensorScatter() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "TensorScatter";
    d.min_opset = 24;
    d.attrs = {{"axis", Attribute::Kind::Int}, {"mode", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      DType t = input_dtype(n, 0);
      if (input_dtype(n, 1) != t)
        node_fail(n, "update must have past_cache's element type");
      if (dtype_bits(t) % 8 != 0)
        node_fail(n, "element type {} is not supported (sub-byte types)", dtype_name(t));
      scatter_params(n);
      set_output(n, 0, t, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      KernelCall call;
      call.kernel = "onnxc_k_tensor_scatter";
      call.args = {n.inputs[0], n.inputs[1], n.input(2), n.outputs[0]};
      set_params(call, scatter_params(n));
      call.inplace = {{0, 3}};
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
