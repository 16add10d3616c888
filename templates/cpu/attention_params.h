/* The contract between the Attention lowering (compiler/ops/nn/attention.cpp) and its kernel
 * onnxc_k_attention_<dtype> (templates/cpu/attention.cpp): the parameter struct, the mask kinds
 * and the scratch size.
 *
 * Q is [B, Hq, L, D] (or [B, L, Hq*D] with q_3d), K [B, Hkv, S, D], V [B, Hkv, S, Dv]; the past
 * cache past_key / past_value is [B, Hkv, P, D|Dv] and the keys attended are the T = P + S of
 * past then new. Query head h reads key/value head h / (Hq / Hkv) (grouped-query attention).
 * tensors {Q, K, V, attn_mask, past_key, past_value, nonpad_kv_seqlen, Y, present_key,
 * present_value, qk_matmul_output, scratch}; omitted optional ones are null. */
#ifndef ONNXC_ATTENTION_PARAMS_H
#define ONNXC_ATTENTION_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// What attn_mask holds.
enum AttnMask : int64_t {
  kAttnMaskNone = 0,
  kAttnMaskBool = 1, ///< true: the key may be attended
  kAttnMaskAdd = 2,  ///< added to the scores (-inf masks a key out)
};

struct AttentionParams {
  int64_t B, Hq, Hkv, L, S, P, D, Dv; ///< batch, heads, lengths (query, new keys, past), sizes
  int64_t q_3d;                       ///< 0/1: Q, K, V and Y are [B, seq, heads * size]
  double scale;                       ///< multiplies Q.K
  double softcap; ///< > 0: scores become softcap * tanh(scores / softcap) before the mask
  int64_t causal; ///< 0/1: query i (of L) attends key j iff j <= i + offset (see the kernel)
  int64_t mask;   ///< AttnMask
  int64_t mask_sb, mask_sh, mask_sl; ///< mask element strides over B, Hq, L (0: broadcast)
  int64_t mask_len;   ///< the mask's last dim (<= T); keys at or beyond it are masked out
  int64_t has_nonpad; ///< 0/1: nonpad_kv_seqlen[b] keys are valid, the rest masked out
  int64_t qk_mode;    ///< what qk_matmul_output holds: 0/1 scores (after softcap), 2 plus the
                      ///< mask, 3 the softmax
};

/// Bytes of one accumulator element for an element of `elem_bytes` (float16 computes in float).
constexpr int64_t attention_acc_bytes(int64_t elem_bytes) {
  return elem_bytes < 4 ? 4 : elem_bytes;
}

/// Scratch bytes: per (batch, query head) one row of T scores and one of Dv output sums.
constexpr int64_t attention_scratch_bytes(const AttentionParams &p, int64_t elem_bytes) {
  return p.B * p.Hq * (p.P + p.S + p.Dv) * attention_acc_bytes(elem_bytes);
}

/// RotaryEmbedding (templates/cpu/rotary.cpp). tensors {X, cos_cache, sin_cache, position_ids,
/// Y}. X is [B, H, L, Dh] or (in_3d) [B, L, H * Dh]; the caches are [rows, R / 2], indexed by
/// position_ids [B, L], or without them [B, L, R / 2].
struct RotaryParams {
  int64_t B, H, L, Dh; ///< batch, heads, sequence length, head size
  int64_t R;           ///< rotary_embedding_dim: the first R of each head rotate, the rest copy
  int64_t in_3d;       ///< 0/1
  int64_t interleaved; ///< 0/1: pairs (2i, 2i+1) instead of (i, i + R/2)
  int64_t has_pos;     ///< 0/1: position_ids given
  int64_t rows;        ///< cache rows (position ids must lie in [0, rows))
};

/// LinearAttention update rules (gating: the state decays by exp(decay); delta: the value
/// written is beta * (v - state^T k)).
enum LinearRule : int64_t { kLinear = 0, kGated = 1, kDelta = 2, kGatedDelta = 3 };

/// LinearAttention (templates/cpu/linear_attention.cpp). tensors {query, key, value,
/// past_state, decay, beta, erase_gate, output, present_state, scratch}; query [B, T, Hq * Dk],
/// key [B, T, Hkv * Dk], value [B, T, Hkv * Dv], states [B, Hkv, Dk, Dv].
struct LinearAttentionParams {
  int64_t B, T, Hq, Hkv, Dk, Dv;
  int64_t rule;          ///< LinearRule
  int64_t decay_per_key; ///< 0/1: decay is [B, T, Hkv * Dk], else [B, T, Hkv]
  int64_t beta_per_head; ///< 0/1: beta is [B, T, Hkv], else [B, T, 1]
  double scale;
};

/// Scratch bytes: per (batch, kv head) the Dk x Dv state and one Dv row, in the accumulator.
constexpr int64_t linear_attention_scratch_bytes(const LinearAttentionParams &p,
                                                 int64_t elem_bytes) {
  return p.B * p.Hkv * (p.Dk * p.Dv + p.Dv) * attention_acc_bytes(elem_bytes);
}

/// CausalConvWithState (templates/cpu/causal_conv_state.cpp): depthwise causal 1-D convolution
/// over [past_state (or zeros), input]. tensors {input [B, C, L], weight [C, 1, K], bias [C],
/// past_state [B, C, K-1], output [B, C, L], present_state [B, C, K-1]}.
struct CausalConvStateParams {
  int64_t B, C, L, K;
  int64_t silu; ///< 0/1: output = conv * sigmoid(conv)
};

/// SwiGLU (templates/cpu/swiglu.cpp): y = a * sigmoid(alpha * a) * b over n elements.
/// tensors {A, B, Y}.
struct SwiGluParams {
  int64_t n;
  double alpha;
};

} // namespace onnxc_k

#endif
