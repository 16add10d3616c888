// Attention (opset 23/24): scaled dot-product attention with 3-D ([B, seq, heads * size]) or 4-D
// ([B, heads, seq, size]) Q/K/V, grouped-query attention (query heads a multiple of kv heads),
// boolean or additive attn_mask (broadcast to [B, Hq, L, T], last dim padded as masked out),
// is_causal, the past_key/past_value cache with present_key/present_value outputs,
// nonpad_kv_seqlen, scale, softcap and the four qk_matmul_output modes. float, double, float16
// (computed in float). One fused kernel: templates/cpu/attention.cpp.
#include "compiler/ops/nn/attention_util.h"
#include "compiler/ops/op_util.h"
#include "templates/cpu/attention_params.h"

namespace onnxc {
namespace {

enum : size_t { kQ, kK, kV, kMask, kPastK, kPastV, kNonpad };

/// Heads and head size of a Q/K/V input: 4-D [B, H, seq, size] or 3-D [B, seq, H * size].
void heads_and_size(const Node &n, size_t i, int64_t heads_3d, int64_t &heads, int64_t &size,
                    int64_t &seq) {
  std::vector<int64_t> d = input_dims(n, i);
  if (d.size() == 4) {
    heads = d[1], seq = d[2], size = d[3];
    return;
  }
  if (heads_3d < 1 || d[2] % heads_3d != 0)
    node_fail(n,
              "3-D input {} of shape {} needs q_num_heads/kv_num_heads attributes dividing "
              "its last dim (got {})",
              i, dims_to_string(d), heads_3d);
  heads = heads_3d, seq = d[1], size = d[2] / heads_3d;
}

/// Fills the mask fields: attn_mask right-aligned against [B, Hq, L, T].
void mask_params(const Node &n, onnxc_k::AttentionParams &p) {
  std::vector<int64_t> m = input_dims(n, kMask);
  const int64_t T = p.P + p.S;
  if (m.empty() || m.size() > 4)
    node_fail(n, "attn_mask must have rank 1 to 4, got shape {}", dims_to_string(m));
  m.insert(m.begin(), 4 - m.size(), 1);
  const int64_t want[4] = {p.B, p.Hq, p.L, T};
  for (int k = 0; k < 3; ++k)
    if (m[k] != 1 && m[k] != want[k])
      node_fail(n, "attn_mask of shape {} does not broadcast to {}x{}x{}x{}",
                dims_to_string(input_dims(n, kMask)), p.B, p.Hq, p.L, T);
  if (m[3] > T)
    node_fail(n, "attn_mask's last dim {} exceeds the total key length {}", m[3], T);
  p.mask = input_dtype(n, kMask) == DType::Bool ? onnxc_k::kAttnMaskBool : onnxc_k::kAttnMaskAdd;
  p.mask_len = m[3];
  p.mask_sl = m[2] == 1 ? 0 : m[3];
  p.mask_sh = m[1] == 1 ? 0 : m[2] * m[3];
  p.mask_sb = m[0] == 1 ? 0 : m[1] * m[2] * m[3];
}

/// Validates the past cache and nonpad_kv_seqlen against the other inputs' dims.
void check_cache(const Node &n, const onnxc_k::AttentionParams &p) {
  if (n.has_input(kPastK) != n.has_input(kPastV))
    node_fail(n, "past_key and past_value must be given together");
  if (n.has_input(kPastK)) {
    if (input_dims(n, kPastK) != std::vector<int64_t>{p.B, p.Hkv, p.P, p.D})
      node_fail(n, "past_key has shape {}, expected {}x{}xPx{}",
                dims_to_string(input_dims(n, kPastK)), p.B, p.Hkv, p.D);
    if (input_dims(n, kPastV) != std::vector<int64_t>{p.B, p.Hkv, p.P, p.Dv})
      node_fail(n, "past_value has shape {}, expected {}x{}x{}x{}",
                dims_to_string(input_dims(n, kPastV)), p.B, p.Hkv, p.P, p.Dv);
  }
  if (n.has_input(kNonpad)) {
    if (input_dtype(n, kNonpad) != DType::Int64)
      node_fail(n, "nonpad_kv_seqlen must be int64, got {}", dtype_name(input_dtype(n, kNonpad)));
    if (input_dims(n, kNonpad) != std::vector<int64_t>{p.B})
      node_fail(n, "nonpad_kv_seqlen has shape {}, expected one entry per batch ({})",
                dims_to_string(input_dims(n, kNonpad)), p.B);
  }
}

/// Every dim and flag of the node, validated.
onnxc_k::AttentionParams attention_params(const Node &n) {
  onnxc_k::AttentionParams p{};
  const size_t rank = input_dims(n, kQ).size();
  if (rank != 3 && rank != 4)
    node_fail(n, "Q must be 3-D or 4-D, got shape {}", dims_to_string(input_dims(n, kQ)));
  for (size_t i : {kK, kV})
    if (input_dims(n, i).size() != rank || input_dims(n, i)[0] != input_dims(n, kQ)[0])
      node_fail(n, "K and V must have Q's rank and batch size ({}), got {} and {}",
                dims_to_string(input_dims(n, kQ)), dims_to_string(input_dims(n, kK)),
                dims_to_string(input_dims(n, kV)));
  int64_t hk = 0, hv = 0, sv = 0;
  p.B = input_dims(n, kQ)[0];
  p.q_3d = rank == 3;
  heads_and_size(n, kQ, attr_int(n, "q_num_heads", 0), p.Hq, p.D, p.L);
  const int64_t kv_heads = attr_int(n, "kv_num_heads", 0);
  int64_t dk = 0;
  heads_and_size(n, kK, kv_heads, hk, dk, p.S);
  heads_and_size(n, kV, kv_heads, hv, p.Dv, sv);
  p.Hkv = hk;
  if (dk != p.D || hk != hv || sv != p.S || hk < 1 || p.Hq % hk != 0)
    node_fail(n,
              "inconsistent Q {}, K {}, V {}: K and V need the same heads and length, K "
              "Q's head size, and Q's heads must be a multiple of K's",
              dims_to_string(input_dims(n, kQ)), dims_to_string(input_dims(n, kK)),
              dims_to_string(input_dims(n, kV)));
  p.P = n.has_input(kPastK) ? input_dims(n, kPastK).at(2) : 0;
  check_cache(n, p);
  p.scale = has_attr(n, "scale") ? attr_float(n, "scale", 1.0f) : 1.0 / __builtin_sqrt(p.D);
  p.softcap = attr_float(n, "softcap", 0.0f);
  p.causal = attr_int(n, "is_causal", 0) != 0;
  p.has_nonpad = n.has_input(kNonpad);
  p.qk_mode = attr_int(n, "qk_matmul_output_mode", 0);
  if (p.qk_mode < 0 || p.qk_mode > 3)
    node_fail(n, "qk_matmul_output_mode must be 0 to 3, got {}", p.qk_mode);
  if (n.has_input(kMask))
    mask_params(n, p);
  return p;
}

void infer_attention(Node &n) {
  const DType dt = input_dtype(n, kQ);
  require_dtype(n, dt, {DType::Float, DType::Double, DType::Float16});
  require_inputs_dtype(n, dt, kK, kMask);
  require_inputs_dtype(n, dt, kPastK, kNonpad);
  if (n.has_input(kMask) && input_dtype(n, kMask) != DType::Bool && input_dtype(n, kMask) != dt)
    node_fail(n, "attn_mask must be bool or {} (Q's type), got {}", dtype_name(dt),
              dtype_name(input_dtype(n, kMask)));
  const onnxc_k::AttentionParams p = attention_params(n);
  const int64_t T = p.P + p.S;
  set_output(n, 0, dt,
             p.q_3d ? std::vector<int64_t>{p.B, p.L, p.Hq * p.Dv}
                    : std::vector<int64_t>{p.B, p.Hq, p.L, p.Dv});
  set_output(n, 1, dt, {p.B, p.Hkv, T, p.D});
  set_output(n, 2, dt, {p.B, p.Hkv, T, p.Dv});
  set_output(n, 3, dt, {p.B, p.Hq, p.L, T});
}

} // namespace

const OpDef &op_Attention() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Attention";
    d.min_opset = 23;
    d.attrs = {
        {"is_causal", Attribute::Kind::Int},        {"kv_num_heads", Attribute::Kind::Int},
        {"q_num_heads", Attribute::Kind::Int},      {"qk_matmul_output_mode", Attribute::Kind::Int},
        {"scale", Attribute::Kind::Float},          {"softcap", Attribute::Kind::Float},
        {"softmax_precision", Attribute::Kind::Int}};
    d.infer = infer_attention;
    d.lower = [](const Node &n) {
      const onnxc_k::AttentionParams p = attention_params(n);
      KernelCall call;
      call.kernel = kernel_name(n, "attention", input_dtype(n, kQ));
      for (size_t i = 0; i < 7; ++i)
        call.args.push_back(n.input(i));
      for (size_t i = 0; i < 4; ++i)
        call.args.push_back(i == 0 ? n.outputs[0] : used_output(n, i));
      set_params(call, p);
      call.scratch_bytes = onnxc_k::attention_scratch_bytes(p, dtype_bits(input_dtype(n, kQ)) / 8);
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
