/* RotaryEmbedding (opset 23): rotates the first R features of every head of X by the angle
 * whose cos/sin the caches hold for the token's position (looked up by position_ids, or given
 * per batch and token). Pairs are (i, i + R/2), or (2i, 2i+1) when interleaved; features from R
 * on are copied. Parallel over batch x tokens. Params: templates/cpu/attention_params.h. */
#include "templates/cpu/attention_common.h"
#include "templates/cpu/attention_params.h"

namespace onnxc_k {
namespace {

/// Rotates one head's row x into y with the cache rows c, s (R/2 each).
template <typename S>
void rotate_row(const RotaryParams &p, const S *x, const S *c, const S *s, S *y) {
  using E = Elem<S>;
  using A = typename E::A;
  const i64 half = p.R / 2;
  for (i64 i = 0; i < half; ++i) {
    const i64 i1 = p.interleaved ? 2 * i : i, i2 = p.interleaved ? 2 * i + 1 : i + half;
    const A x1 = E::load(x[i1]), x2 = E::load(x[i2]), cv = E::load(c[i]), sv = E::load(s[i]);
    y[i1] = E::store(cv * x1 - sv * x2);
    y[i2] = E::store(sv * x1 + cv * x2);
  }
  for (i64 d = p.R; d < p.Dh; ++d)
    y[d] = x[d];
}

template <typename S> int32_t rotary(onnxc_rt *rt, void *const *t, const i64 *params) {
  const RotaryParams p = params_of<RotaryParams>(params);
  const S *x = static_cast<const S *>(t[0]), *cos = static_cast<const S *>(t[1]),
          *sin = static_cast<const S *>(t[2]);
  const i64 *pos = static_cast<const i64 *>(t[3]);
  S *y = static_cast<S *>(t[4]);
  if (p.has_pos)
    for (i64 i = 0; i < p.B * p.L; ++i)
      if (pos[i] < 0 || pos[i] >= p.rows)
        return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE,
                             "RotaryEmbedding: a position id lies outside the cos/sin caches");
  const i64 half = p.R / 2;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 bl = lo; bl < hi; ++bl) {
      const i64 b = bl / p.L, l = bl % p.L, row = p.has_pos ? pos[bl] : bl;
      for (i64 h = 0; h < p.H; ++h) {
        const i64 off = p.in_3d ? (bl * p.H + h) * p.Dh : ((b * p.H + h) * p.L + l) * p.Dh;
        rotate_row(p, x + off, cos + row * half, sin + row * half, y + off);
      }
    }
  };
  parallel_for(rt, p.B * p.L, 1 + 4096 / (p.H * p.Dh + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

ONNXC_ATTN_KERNELS(rotary_embedding, rotary)
