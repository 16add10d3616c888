/* Attention (ONNX opset 23/24), fused: per (batch, query head) and query row, the scores
 * scale * q.k_j over the T = past + new keys (softcapped, then masked: attn_mask, causal,
 * nonpad_kv_seqlen), a numerically stable softmax (a row with every key masked out gives zeros)
 * and the probability-weighted sum of the value rows. Parallel over batch x query heads.
 * present_key / present_value (past ++ new, always 4-D) are written first when requested.
 * float16 is loaded into float and computed in float. Params and tensor order:
 * templates/cpu/attention_params.h. */
#include "templates/cpu/attention_common.h"
#include "templates/cpu/attention_params.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_k {
namespace {

/// The kernel's view of its tensors and params.
template <typename S> struct Attn {
  using A = typename Elem<S>::A;
  AttentionParams p;
  const S *q, *k, *v, *past_k, *past_v;
  const void *mask;
  const i64 *nonpad;
  S *y, *pres_k, *pres_v, *qk;
  A *scratch;

  i64 T() const { return p.P + p.S; }
  /// Key (or value, with size n and the past/new tensors given) row j of kv head g in batch b.
  const S *kv_row(const S *past, const S *cur, i64 n, i64 b, i64 g, i64 j) const {
    if (j < p.P)
      return past + ((b * p.Hkv + g) * p.P + j) * n;
    j -= p.P;
    return p.q_3d ? cur + (b * p.S + j) * p.Hkv * n + g * n : cur + ((b * p.Hkv + g) * p.S + j) * n;
  }
  const S *q_row(i64 b, i64 h, i64 i) const {
    return p.q_3d ? q + (b * p.L + i) * p.Hq * p.D + h * p.D : q + ((b * p.Hq + h) * p.L + i) * p.D;
  }
  S *y_row(i64 b, i64 h, i64 i) const {
    return p.q_3d ? y + (b * p.L + i) * p.Hq * p.Dv + h * p.Dv
                  : y + ((b * p.Hq + h) * p.L + i) * p.Dv;
  }
};

/// Writes present_key and present_value (past rows then the new ones) where requested.
template <typename S> void write_present(onnxc_rt *rt, const Attn<S> &a) {
  const AttentionParams &p = a.p;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 bg = lo; bg < hi; ++bg) {
      const i64 b = bg / p.Hkv, g = bg % p.Hkv;
      for (i64 j = 0; j < a.T(); ++j) {
        if (a.pres_k) {
          const S *src = a.kv_row(a.past_k, a.k, p.D, b, g, j);
          S *dst = a.pres_k + (bg * a.T() + j) * p.D;
          for (i64 d = 0; d < p.D; ++d)
            dst[d] = src[d];
        }
        if (a.pres_v) {
          const S *src = a.kv_row(a.past_v, a.v, p.Dv, b, g, j);
          S *dst = a.pres_v + (bg * a.T() + j) * p.Dv;
          for (i64 d = 0; d < p.Dv; ++d)
            dst[d] = src[d];
        }
      }
    }
  };
  parallel_for(rt, p.B * p.Hkv, 1 + 4096 / (a.T() * (p.D + p.Dv) + 1), body);
}

/// The additive bias of key j for query row i of (b, h): 0, or -inf where the key is masked out
/// (or the additive mask's value).
template <typename S>
typename Elem<S>::A key_bias(const Attn<S> &a, i64 b, i64 h, i64 i, i64 j, i64 offset) {
  using A = typename Elem<S>::A;
  const AttentionParams &p = a.p;
  const A ninf = -__builtin_inf();
  if (p.causal && j > i + offset)
    return ninf;
  if (p.has_nonpad && j >= a.nonpad[b])
    return ninf;
  if (p.mask == kAttnMaskNone)
    return A(0);
  if (j >= p.mask_len)
    return ninf;
  const i64 at = b * p.mask_sb + h * p.mask_sh + i * p.mask_sl + j;
  if (p.mask == kAttnMaskBool)
    return static_cast<const bool *>(a.mask)[at] ? A(0) : ninf;
  return Elem<S>::load(static_cast<const S *>(a.mask)[at]);
}

/// Scores of query row i of (b, h) against every key into s[0, T); qk_matmul_output (modes 0-2).
template <typename S>
void scores(const Attn<S> &a, i64 b, i64 h, i64 i, i64 offset, typename Elem<S>::A *s, S *qk_row) {
  using A = typename Elem<S>::A;
  const AttentionParams &p = a.p;
  const i64 g = h / (p.Hq / p.Hkv);
  const S *qr = a.q_row(b, h, i);
  for (i64 j = 0; j < a.T(); ++j) {
    if (!qk_row && p.causal && j > i + offset) { /* masked out by causality: skip the dot */
      s[j] = -__builtin_inf();
      continue;
    }
    A x = dot(qr, a.kv_row(a.past_k, a.k, p.D, b, g, j), p.D) * A(p.scale);
    if (p.softcap > 0)
      x = th(x / A(p.softcap)) * A(p.softcap);
    if (qk_row && p.qk_mode <= 1)
      qk_row[j] = Elem<S>::store(x);
    x += key_bias(a, b, h, i, j, offset);
    if (qk_row && p.qk_mode == 2)
      qk_row[j] = Elem<S>::store(x);
    s[j] = x;
  }
}

/// Softmax of s[0, n) in place; a row whose every entry is -inf becomes zeros.
template <typename A> void softmax_row(A *s, i64 n) {
  A mx = -__builtin_inf();
  for (i64 j = 0; j < n; ++j)
    mx = s[j] > mx ? s[j] : mx;
  if (!(mx > -__builtin_inf())) {
    for (i64 j = 0; j < n; ++j)
      s[j] = A(0);
    return;
  }
  A sum = 0;
  for (i64 j = 0; j < n; ++j) {
    s[j] = ex(s[j] - mx);
    sum += s[j];
  }
  const A inv = A(1) / sum;
  for (i64 j = 0; j < n; ++j)
    s[j] *= inv;
}

/// One (batch, query head): every query row, start to end.
template <typename S> void attend_head(const Attn<S> &a, i64 bh) {
  using A = typename Elem<S>::A;
  const AttentionParams &p = a.p;
  const i64 b = bh / p.Hq, h = bh % p.Hq, T = a.T(), g = h / (p.Hq / p.Hkv);
  A *s = a.scratch + bh * (T + p.Dv), *acc = s + T;
  /* causal offset: the keys before this query block (past, or per batch from nonpad) */
  const i64 offset = a.past_k ? p.P : p.has_nonpad ? a.nonpad[b] - p.L : 0;
  for (i64 i = 0; i < p.L; ++i) {
    S *qk_row = a.qk ? a.qk + (bh * p.L + i) * T : nullptr;
    scores(a, b, h, i, offset, s, qk_row);
    softmax_row(s, T);
    if (qk_row && p.qk_mode == 3)
      for (i64 j = 0; j < T; ++j)
        qk_row[j] = Elem<S>::store(s[j]);
    for (i64 d = 0; d < p.Dv; ++d)
      acc[d] = A(0);
    for (i64 j = 0; j < T; ++j) {
      if (s[j] == A(0))
        continue;
      const S *vr = a.kv_row(a.past_v, a.v, p.Dv, b, g, j);
      for (i64 d = 0; d < p.Dv; ++d)
        acc[d] += s[j] * Elem<S>::load(vr[d]);
    }
    S *yr = a.y_row(b, h, i);
    for (i64 d = 0; d < p.Dv; ++d)
      yr[d] = Elem<S>::store(acc[d]);
  }
}

template <typename S> int32_t attention(onnxc_rt *rt, void *const *t, const i64 *params) {
  using A = typename Elem<S>::A;
  const Attn<S> a{params_of<AttentionParams>(params),
                  static_cast<const S *>(t[0]),
                  static_cast<const S *>(t[1]),
                  static_cast<const S *>(t[2]),
                  static_cast<const S *>(t[4]),
                  static_cast<const S *>(t[5]),
                  t[3],
                  static_cast<const i64 *>(t[6]),
                  static_cast<S *>(t[7]),
                  static_cast<S *>(t[8]),
                  static_cast<S *>(t[9]),
                  static_cast<S *>(t[10]),
                  static_cast<A *>(t[11])};
  if (a.pres_k || a.pres_v)
    write_present(rt, a);
  const AttentionParams &p = a.p;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 bh = lo; bh < hi; ++bh)
      attend_head(a, bh);
  };
  parallel_for(rt, p.B * p.Hq, 1 + 16384 / (p.L * a.T() * (p.D + p.Dv) + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

ONNXC_ATTN_KERNELS(attention, attention)
