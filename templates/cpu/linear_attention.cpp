/* LinearAttention (opset 27): a recurrent state S [Dk, Dv] per (batch, kv head), updated token
 * by token: gated rules first decay it (S *= exp(decay), per key dim or per head), delta rules
 * write beta * (v - S^T (erase_gate * k)) instead of v, and every rule adds k (outer) v; each
 * query head of the group then reads scale * q^T S. The state is kept in the accumulator type
 * in the scratch buffer; present_state is the final state. Parallel over batch x kv heads.
 * Params: templates/cpu/attention_params.h. */
#include "templates/cpu/attention_common.h"
#include "templates/cpu/attention_params.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_k {
namespace {

template <typename S> struct LinAttn {
  using A = typename Elem<S>::A;
  LinearAttentionParams p;
  const S *q, *k, *v, *past, *decay, *beta, *erase;
  S *y, *present;
  A *scratch;
};

/// Decays the state (gated rules) before token t.
template <typename S>
void decay_state(const LinAttn<S> &a, i64 b, i64 g, i64 t, typename Elem<S>::A *st) {
  using E = Elem<S>;
  const LinearAttentionParams &p = a.p;
  for (i64 d = 0; d < p.Dk; ++d) {
    const i64 at =
        p.decay_per_key ? (b * p.T + t) * p.Hkv * p.Dk + g * p.Dk + d : (b * p.T + t) * p.Hkv + g;
    const typename E::A f = ex(E::load(a.decay[at]));
    for (i64 m = 0; m < p.Dv; ++m)
      st[d * p.Dv + m] *= f;
  }
}

/// The value row written at token t into w (delta rules: beta * (v - S^T k_erase)).
template <typename S>
void value_to_write(const LinAttn<S> &a, i64 b, i64 g, i64 t, const typename Elem<S>::A *st,
                    typename Elem<S>::A *w) {
  using E = Elem<S>;
  using A = typename E::A;
  const LinearAttentionParams &p = a.p;
  const S *vr = a.v + (b * p.T + t) * p.Hkv * p.Dv + g * p.Dv;
  for (i64 m = 0; m < p.Dv; ++m)
    w[m] = E::load(vr[m]);
  if (p.rule != kDelta && p.rule != kGatedDelta)
    return;
  const i64 kat = (b * p.T + t) * p.Hkv * p.Dk + g * p.Dk;
  for (i64 m = 0; m < p.Dv; ++m) {
    A r = 0;
    for (i64 d = 0; d < p.Dk; ++d)
      r += st[d * p.Dv + m] * E::load(a.k[kat + d]) * (a.erase ? E::load(a.erase[kat + d]) : A(1));
    w[m] -= r;
  }
  const A bt = E::load(a.beta[p.beta_per_head ? (b * p.T + t) * p.Hkv + g : b * p.T + t]);
  for (i64 m = 0; m < p.Dv; ++m)
    w[m] *= bt;
}

/// Runs the recurrence of one (batch, kv head) over every token.
template <typename S> void run_head(const LinAttn<S> &a, i64 bg) {
  using E = Elem<S>;
  using A = typename E::A;
  const LinearAttentionParams &p = a.p;
  const i64 b = bg / p.Hkv, g = bg % p.Hkv, n = p.Dk * p.Dv, group = p.Hq / p.Hkv;
  A *st = a.scratch + bg * (n + p.Dv), *w = st + n;
  for (i64 i = 0; i < n; ++i)
    st[i] = a.past ? E::load(a.past[bg * n + i]) : A(0);
  for (i64 t = 0; t < p.T; ++t) {
    if (p.rule == kGated || p.rule == kGatedDelta)
      decay_state(a, b, g, t, st);
    value_to_write(a, b, g, t, st, w);
    const S *kr = a.k + (b * p.T + t) * p.Hkv * p.Dk + g * p.Dk;
    for (i64 d = 0; d < p.Dk; ++d) {
      const A kd = E::load(kr[d]);
      for (i64 m = 0; m < p.Dv; ++m)
        st[d * p.Dv + m] += kd * w[m];
    }
    for (i64 h = g * group; h < (g + 1) * group; ++h) {
      const S *qr = a.q + (b * p.T + t) * p.Hq * p.Dk + h * p.Dk;
      S *yr = a.y + (b * p.T + t) * p.Hq * p.Dv + h * p.Dv;
      for (i64 m = 0; m < p.Dv; ++m) {
        A o = 0;
        for (i64 d = 0; d < p.Dk; ++d)
          o += E::load(qr[d]) * st[d * p.Dv + m];
        yr[m] = E::store(A(p.scale) * o);
      }
    }
  }
  if (a.present)
    for (i64 i = 0; i < n; ++i)
      a.present[bg * n + i] = E::store(st[i]);
}

template <typename S> int32_t linear_attention(onnxc_rt *rt, void *const *t, const i64 *params) {
  using A = typename Elem<S>::A;
  const LinAttn<S> a{params_of<LinearAttentionParams>(params),
                     static_cast<const S *>(t[0]),
                     static_cast<const S *>(t[1]),
                     static_cast<const S *>(t[2]),
                     static_cast<const S *>(t[3]),
                     static_cast<const S *>(t[4]),
                     static_cast<const S *>(t[5]),
                     static_cast<const S *>(t[6]),
                     static_cast<S *>(t[7]),
                     static_cast<S *>(t[8]),
                     static_cast<A *>(t[9])};
  const LinearAttentionParams &p = a.p;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 bg = lo; bg < hi; ++bg)
      run_head(a, bg);
  };
  parallel_for(rt, p.B * p.Hkv, 1 + 16384 / (p.T * p.Dk * p.Dv * (2 + p.Hq / p.Hkv) + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

ONNXC_ATTN_KERNELS(linear_attention, linear_attention)
