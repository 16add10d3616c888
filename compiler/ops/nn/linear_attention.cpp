// LinearAttention (opset 27): recurrent linear attention over 3-D query [B, T, Hq * Dk], key
// [B, T, Hkv * Dk], value [B, T, Hkv * Dv] (Hq a multiple of Hkv), with update_rule linear,
// gated (decay), delta (beta) or gated_delta (default), optional past_state [B, Hkv, Dk, Dv],
// erase_gate, scale (default 1/sqrt(Dk)); outputs output [B, T, Hq * Dv] and present_state.
// float, double, float16 (state kept in float). Kernel: templates/cpu/linear_attention.cpp.
#include "compiler/ops/nn/attention_util.h"
#include "compiler/ops/op_util.h"
#include "templates/cpu/attention_params.h"

namespace onnxc {
namespace {

enum : size_t { kQuery, kKey, kValue, kPast, kDecay, kBeta, kErase };

int64_t update_rule(const Node &n) {
  const std::string r = attr_string(n, "update_rule", "gated_delta");
  if (r == "linear")
    return onnxc_k::kLinear;
  if (r == "gated")
    return onnxc_k::kGated;
  if (r == "delta")
    return onnxc_k::kDelta;
  if (r == "gated_delta")
    return onnxc_k::kGatedDelta;
  node_fail(n, "update_rule '{}' is not one of linear, gated, delta, gated_delta", r);
}

/// Checks that input i is [B, T, last] with last one of the allowed sizes; returns its index.
size_t check_btx(const Node &n, size_t i, const char *what, const onnxc_k::LinearAttentionParams &p,
                 std::initializer_list<int64_t> last) {
  const std::vector<int64_t> d = input_dims(n, i);
  size_t k = 0;
  for (int64_t l : last) {
    if (d == std::vector<int64_t>{p.B, p.T, l})
      return k;
    ++k;
  }
  node_fail(n, "{} has shape {}, which is not {}x{}xX with an allowed X", what, dims_to_string(d),
            p.B, p.T);
}

/// The inputs each update rule requires or forbids.
void check_rule_inputs(const Node &n, onnxc_k::LinearAttentionParams &p) {
  const bool gated = p.rule == onnxc_k::kGated || p.rule == onnxc_k::kGatedDelta;
  const bool delta = p.rule == onnxc_k::kDelta || p.rule == onnxc_k::kGatedDelta;
  if (gated != n.has_input(kDecay))
    node_fail(n, "update_rule '{}' {} the decay input",
              attr_string(n, "update_rule", "gated_delta"), gated ? "requires" : "forbids");
  if (delta != n.has_input(kBeta))
    node_fail(n, "update_rule '{}' {} the beta input", attr_string(n, "update_rule", "gated_delta"),
              delta ? "requires" : "forbids");
  if (!delta && n.has_input(kErase))
    node_fail(n, "erase_gate needs a delta update_rule");
  if (gated)
    p.decay_per_key = check_btx(n, kDecay, "decay", p, {p.Hkv, p.Hkv * p.Dk}) == 1;
  if (delta)
    p.beta_per_head = check_btx(n, kBeta, "beta", p, {1, p.Hkv}) == 1;
  if (n.has_input(kErase))
    check_btx(n, kErase, "erase_gate", p, {p.Hkv * p.Dk});
  if (n.has_input(kPast) && input_dims(n, kPast) != std::vector<int64_t>{p.B, p.Hkv, p.Dk, p.Dv})
    node_fail(n, "past_state has shape {}, expected {}x{}x{}x{}",
              dims_to_string(input_dims(n, kPast)), p.B, p.Hkv, p.Dk, p.Dv);
}

onnxc_k::LinearAttentionParams linear_attention_params(const Node &n) {
  const std::vector<int64_t> q = input_dims(n, kQuery), k = input_dims(n, kKey),
                             v = input_dims(n, kValue);
  onnxc_k::LinearAttentionParams p{};
  p.Hq = attr_int(n, "q_num_heads", 0), p.Hkv = attr_int(n, "kv_num_heads", 0);
  if (p.Hq < 1 || p.Hkv < 1 || p.Hq % p.Hkv != 0)
    node_fail(n, "q_num_heads ({}) must be a positive multiple of kv_num_heads ({})", p.Hq, p.Hkv);
  if (q.size() != 3 || k.size() != 3 || v.size() != 3 || q[2] % p.Hq != 0 || v[2] % p.Hkv != 0)
    node_fail(n, "query {}, key {}, value {} must be 3-D [B, T, heads * size]", dims_to_string(q),
              dims_to_string(k), dims_to_string(v));
  p.B = q[0], p.T = q[1], p.Dk = q[2] / p.Hq, p.Dv = v[2] / p.Hkv;
  if (k != std::vector<int64_t>{p.B, p.T, p.Hkv * p.Dk} || v[0] != p.B || v[1] != p.T)
    node_fail(n, "key {} / value {} do not match query {} (key must be {}x{}x{})",
              dims_to_string(k), dims_to_string(v), dims_to_string(q), p.B, p.T, p.Hkv * p.Dk);
  p.rule = update_rule(n);
  check_rule_inputs(n, p);
  const float scale = attr_float(n, "scale", 0.0f);
  p.scale = scale != 0.0f ? scale : 1.0 / __builtin_sqrt(double(p.Dk));
  return p;
}

} // namespace

const OpDef &op_LinearAttention() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "LinearAttention";
    d.min_opset = 27;
    d.attrs = {{"chunk_size", Attribute::Kind::Int},
               {"kv_num_heads", Attribute::Kind::Int},
               {"q_num_heads", Attribute::Kind::Int},
               {"scale", Attribute::Kind::Float},
               {"update_rule", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      const DType dt = input_dtype(n, kQuery);
      require_dtype(n, dt, {DType::Float, DType::Double, DType::Float16});
      require_inputs_dtype(n, dt, kKey, kErase + 1);
      const onnxc_k::LinearAttentionParams p = linear_attention_params(n);
      set_output(n, 0, dt, {p.B, p.T, p.Hq * p.Dv});
      set_output(n, 1, dt, {p.B, p.Hkv, p.Dk, p.Dv});
    };
    d.lower = [](const Node &n) {
      const onnxc_k::LinearAttentionParams p = linear_attention_params(n);
      const DType dt = input_dtype(n, kQuery);
      KernelCall call;
      call.kernel = kernel_name(n, "linear_attention", dt);
      for (size_t i = kQuery; i <= kErase; ++i)
        call.args.push_back(n.input(i));
      call.args.push_back(n.outputs[0]);
      call.args.push_back(used_output(n, 1));
      set_params(call, p);
      call.scratch_bytes = onnxc_k::linear_attention_scratch_bytes(p, dtype_bits(dt) / 8);
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
