// FlexAttention (ai.onnx.preview opset 1): softmax(scale * Q K^T) V over 4-D Q [B, Hq, L, E],
// K [B, Hkv, S, E], V [B, Hkv, S, Ev] with grouped-query heads, scale (default 1/sqrt(E)).
// Lowered to the Attention kernel (templates/cpu/attention.cpp) without mask or cache. With
// score_mod / prob_mod subgraphs, infer-shapes expands it into standard ops first
// (compiler/passes/expand_ops.h), so such a node never reaches this lowering.
#include "compiler/ops/op_util.h"
#include "templates/cpu/attention_params.h"

namespace onnxc {
namespace {

onnxc_k::AttentionParams flex_params(const Node &n) {
  for (const char *g : {"score_mod", "prob_mod", "mask_mod"})
    if (has_attr(n, g))
      node_fail(n, "internal error: the graph attribute '{}' was not expanded", g);
  const std::vector<int64_t> q = input_dims(n, 0), k = input_dims(n, 1), v = input_dims(n, 2);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    node_fail(n, "Q {}, K {} and V {} must be 4-D", dims_to_string(q), dims_to_string(k),
              dims_to_string(v));
  if (k[0] != q[0] || v[0] != q[0] || k[3] != q[3] || v[1] != k[1] || v[2] != k[2] || k[1] < 1 ||
      q[1] % k[1] != 0)
    node_fail(n,
              "inconsistent Q {}, K {}, V {}: batch, K/V heads and length, Q/K head size "
              "must match and Q's heads be a multiple of K's",
              dims_to_string(q), dims_to_string(k), dims_to_string(v));
  onnxc_k::AttentionParams p{};
  p.B = q[0], p.Hq = q[1], p.L = q[2], p.D = q[3];
  p.Hkv = k[1], p.S = k[2], p.Dv = v[3];
  p.scale = has_attr(n, "scale") ? attr_float(n, "scale", 1.0f) : 1.0 / __builtin_sqrt(p.D);
  return p;
}

} // namespace

const OpDef &op_FlexAttention() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "FlexAttention";
    d.domain = "ai.onnx.preview";
    d.min_opset = 1;
    d.max_opset = 1;
    d.attrs = {{"scale", Attribute::Kind::Float}, {"softmax_precision", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      const DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double, DType::Float16});
      require_inputs_dtype(n, dt, 1, 3);
      const onnxc_k::AttentionParams p = flex_params(n);
      set_output(n, 0, dt, {p.B, p.Hq, p.L, p.Dv});
    };
    d.lower = [](const Node &n) {
      const onnxc_k::AttentionParams p = flex_params(n);
      KernelCall call;
      call.kernel = kernel_name(n, "attention", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1],  n.inputs[2], nullptr, nullptr, nullptr,
                   nullptr,     n.outputs[0], nullptr,     nullptr, nullptr};
      set_params(call, p);
      call.scratch_bytes = onnxc_k::attention_scratch_bytes(p, dtype_bits(input_dtype(n, 0)) / 8);
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
