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
  int64_t q_3d;    ///< 0/1: Q, K, V and Y are [B, seq, heads * size]
  double scale;    ///< multiplies Q.K
  double softcap;  ///< > 0: scores become softcap * tanh(scores / softcap) before the mask
  int64_t causal;  ///< 0/1: query i (of L) attends key j iff j <= i + offset (see the kernel)
  int64_t mask;    ///< AttnMask
  int64_t mask_sb, mask_sh, mask_sl; ///< mask element strides over B, Hq, L (0: broadcast)
  int64_t mask_len;   ///< the mask's last dim (<= T); keys at or beyond it are masked out
  int64_t has_nonpad; ///< 0/1: nonpad_kv_seqlen[b] keys are valid, the rest masked out
  int64_t qk_mode;    ///< what qk_matmul_output holds: 0/1 scores (after softcap), 2 plus the
                      ///< mask, 3 the softmax
};

/// Bytes of one accumulator element for an element of `elem_bytes` (float16 computes in float).
constexpr int64_t attention_acc_bytes(int64_t elem_bytes) { return elem_bytes < 4 ? 4 : elem_bytes; }

/// Scratch bytes: per (batch, query head) one row of T scores and one of Dv output sums.
constexpr int64_t attention_scratch_bytes(const AttentionParams &p, int64_t elem_bytes) {
  return p.B * p.Hq * (p.P + p.S + p.Dv) * attention_acc_bytes(elem_bytes);
}

} // namespace onnxc_k

#endif
