/* Integer matrix products and convolutions: MatMulInteger, QLinearMatMul, ConvInteger,
 * QLinearConv. Zero points are subtracted up front, so the products are exact integers:
 * B (or the im2col patches of X) is packed once as int16 (b - zb; 0 at padding) into the
 * scratch buffer, and each output row accumulates int32 (a - za) * b' over K in blocks of kJB
 * columns — a widening int16 x int32 multiply-add that LLVM vectorises (VNNI/NEON dot products
 * where the target has them). The int32 sums are either stored (the *Integer ops) or
 * requantised: y = saturate(round_half_to_even(acc * (sa * sb / sy)) + zy), with the bias added
 * to acc first (QLinearConv), in float as ONNX Runtime does.
 *
 * Tensors of both kernels: {A, B, a_zp, b_zp, a_scale, b_scale, y_scale, y_zp, bias, Y, scratch}
 * (for conv A = W, B = X; absent inputs are null).
 * onnxc_k_qmatmul params {a dt, b dt, y dt (6: int32 out), scale dt, M, N, K, a per-row,
 *   b per-column, a_count, b_count, B's row and column strides, alpha (f64 bits), batch rank r,
 *   batch dims[r], a batch strides[r], b batch strides[r]} (per-row/-column: zero points and
 *   scales have M / N elements; the bias, QGemm's, has N).
 * onnxc_k_qconv params {x dt, w dt, y dt, scale dt, w per-channel, N, C, M, group,
 *   in[3], out[3], k[3], stride[3], pad_begin[3], dilation[3], pad_end[3]}. */
#include "templates/cpu/quant_common.h"

namespace onnxc_k {
namespace {
using namespace quant;

constexpr i64 kJB = 256; /* output columns accumulated per block */

/// How int32 sums become outputs.
struct Output {
  i64 y_dt, s_dt;
  void *y;
  const void *a_scale, *b_scale, *y_scale, *y_zp, *bias;
  bool b_per_col;
  bool bias_per_col; /* bias indexed by column (QGemm) rather than by row (QLinearConv) */
  float alpha;

  /// Writes acc[0..nb) to y[at..] for row scale index `ra` and bias index `rb` (-1: none),
  /// columns j0.. (column scale index when b_per_col).
  void emit(const int32_t *acc, i64 nb, i64 at, i64 ra, i64 rb, i64 j0) const {
    if (y_dt == kI32) {
      for (i64 j = 0; j < nb; ++j)
        static_cast<int32_t *>(y)[at + j] = acc[j];
      return;
    }
    const float sa = static_cast<float>(load_real(s_dt, a_scale, ra)) * alpha;
    const float sy = static_cast<float>(load_real(s_dt, y_scale, 0));
    const int32_t zy = y_zp ? load_int(y_dt, y_zp, 0) : 0;
    const int32_t *bv = static_cast<const int32_t *>(bias);
    const int32_t b_row = bv && !bias_per_col && rb >= 0 ? bv[rb] : 0;
    const float m0 = sa * static_cast<float>(load_real(s_dt, b_scale, 0)) / sy;
    for (i64 j = 0; j < nb; ++j) {
      const float m =
          b_per_col ? sa * static_cast<float>(load_real(s_dt, b_scale, j0 + j)) / sy : m0;
      const int32_t b = bv && bias_per_col ? bv[j0 + j] : b_row;
      const float v = static_cast<float>(acc[j] + b) * m;
      if (y_dt == kU8)
        static_cast<unsigned char *>(y)[at + j] = quantize<unsigned char, float>(v, zy);
      else
        static_cast<signed char *>(y)[at + j] = quantize<signed char, float>(v, zy);
    }
  }
};

/// One output row: acc = sum_k (a[k*csa] - za) * bp[k*N + j] for all N columns.
template <typename F>
void row_product(i64 adt, const void *a, i64 a0, i64 csa, int32_t za, const short *bp, i64 N, i64 K,
                 F &&emit_block) {
  int32_t acc[kJB];
  for (i64 j0 = 0; j0 < N; j0 += kJB) {
    const i64 nb = N - j0 < kJB ? N - j0 : kJB;
    for (i64 j = 0; j < nb; ++j)
      acc[j] = 0;
    for (i64 k = 0; k < K; ++k) {
      const int32_t av = load_int(adt, a, a0 + k * csa) - za;
      const short *br = bp + k * N + j0;
      for (i64 j = 0; j < nb; ++j)
        acc[j] += av * static_cast<int32_t>(br[j]);
    }
    emit_block(acc, nb, j0);
  }
}

/// Batch index -> element offset, from dims and broadcast strides (in whole matrices).
i64 batch_offset(i64 b, i64 r, const i64 *dims, const i64 *strides) {
  i64 off = 0;
  for (i64 d = r - 1; d >= 0; --d) {
    off += (b % dims[d]) * strides[d];
    b /= dims[d];
  }
  return off;
}

void qmatmul(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 adt = p[0], bdt = p[1], M = p[4], N = p[5], K = p[6];
  const bool a_row = p[7], b_col = p[8];
  const i64 b_count = p[10], rsb = p[11], csb = p[12], r = p[14];
  const i64 *dims = p + 15, *a_bs = dims + r, *b_bs = a_bs + r;
  short *packed = static_cast<short *>(t[10]);
  for (i64 m = 0; m < b_count; ++m) /* B' = B - zb, one per distinct B matrix */
    for (i64 k = 0; k < K; ++k)
      for (i64 j = 0; j < N; ++j)
        packed[(m * K + k) * N + j] =
            static_cast<short>(load_int(bdt, t[1], m * K * N + k * rsb + j * csb) -
                               (t[3] ? load_int(bdt, t[3], b_col ? j : 0) : 0));
  Output out{p[2],
             p[3],
             t[9],
             t[4],
             t[5],
             t[6],
             t[7],
             t[8],
             b_col,
             true,
             static_cast<float>(param_f64(p, 13))};
  i64 batches = 1;
  for (i64 d = 0; d < r; ++d)
    batches *= dims[d];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 w = lo; w < hi; ++w) {
      const i64 bi = w / M, i = w % M;
      const i64 am = batch_offset(bi, r, dims, a_bs), bm = batch_offset(bi, r, dims, b_bs);
      const int32_t za = t[2] ? load_int(adt, t[2], a_row ? i : 0) : 0;
      const short *bp = packed + bm * K * N;
      row_product(adt, t[0], (am * M + i) * K, 1, za, bp, N, K,
                  [&](const int32_t *acc, i64 nb, i64 j0) {
                    out.emit(acc, nb, (bi * M + i) * N + j0, a_row ? i : 0, -1, j0);
                  });
    }
  };
  parallel_for(rt, batches * M, 1 + 65536 / (N * K + 1), body);
}

struct QConvGeom {
  i64 N, C, M, G;
  i64 in[3], out[3], k[3], s[3], pb[3], d[3];
  i64 in_size() const { return in[0] * in[1] * in[2]; }
  i64 out_size() const { return out[0] * out[1] * out[2]; }
  i64 k_size() const { return k[0] * k[1] * k[2]; }
};

QConvGeom read_conv(const i64 *p) {
  QConvGeom g{p[0], p[1], p[2], p[3], {}, {}, {}, {}, {}, {}};
  for (int i = 0; i < 3; ++i) {
    g.in[i] = p[4 + i], g.out[i] = p[7 + i], g.k[i] = p[10 + i];
    g.s[i] = p[13 + i], g.pb[i] = p[16 + i], g.d[i] = p[19 + i];
  }
  return g;
}

/// im2col of one image's group as int16 (x - zx), 0 outside the input: K rows of Nsp.
void pack_patches(const QConvGeom &g, i64 xdt, const void *x, i64 x0, int32_t zx, short *dst) {
  const i64 Cg = g.C / g.G, ks = g.k_size(), Nsp = g.out_size(), plane = g.in_size();
  for (i64 kk = 0; kk < Cg * ks; ++kk) {
    const i64 c = kk / ks, rr = kk % ks;
    const i64 kd = rr / (g.k[1] * g.k[2]), kh = (rr / g.k[2]) % g.k[1], kw = rr % g.k[2];
    for (i64 o = 0; o < Nsp; ++o) {
      const i64 ow = o % g.out[2], oh = (o / g.out[2]) % g.out[1], od = o / (g.out[2] * g.out[1]);
      const i64 id = od * g.s[0] - g.pb[0] + kd * g.d[0];
      const i64 ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
      const i64 iw = ow * g.s[2] - g.pb[2] + kw * g.d[2];
      const bool in = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
      dst[kk * Nsp + o] = static_cast<short>(
          in ? load_int(xdt, x, x0 + c * plane + (id * g.in[1] + ih) * g.in[2] + iw) - zx : 0);
    }
  }
}

void qconv(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 xdt = p[0], wdt = p[1];
  const bool w_ch = p[4];
  const QConvGeom g = read_conv(p + 5);
  const i64 Cg = g.C / g.G, Mg = g.M / g.G, K = Cg * g.k_size(), Nsp = g.out_size();
  const int32_t zx = t[3] ? load_int(xdt, t[3], 0) : 0;
  short *packed = static_cast<short *>(t[10]);
  /* the row scale is w_scale (per output channel m), the column scale x_scale */
  Output out{p[2], p[3], t[9], t[4], t[5], t[6], t[7], t[8], false, false, 1.0f};
  for (i64 n = 0; n < g.N; ++n) {
    for (i64 grp = 0; grp < g.G; ++grp) {
      pack_patches(g, xdt, t[1], (n * g.C + grp * Cg) * g.in_size(), zx, packed);
      auto body = [&](i64 lo, i64 hi) {
        for (i64 mm = lo; mm < hi; ++mm) {
          const i64 m = grp * Mg + mm;
          const int32_t zw = t[2] ? load_int(wdt, t[2], w_ch ? m : 0) : 0;
          row_product(wdt, t[0], m * K, 1, zw, packed, Nsp, K,
                      [&](const int32_t *acc, i64 nb, i64 j0) {
                        out.emit(acc, nb, (n * g.M + m) * Nsp + j0, w_ch ? m : 0, m, j0);
                      });
        }
      };
      parallel_for(rt, Mg, 1 + 65536 / (K * Nsp + 1), body);
    }
  }
}
} // namespace
} // namespace onnxc_k

extern "C" int32_t onnxc_k_qmatmul(onnxc_rt *rt, void *const *t, const int64_t *p) {
  onnxc_k::qmatmul(rt, t, p);
  return 0;
}

extern "C" int32_t onnxc_k_qconv(onnxc_rt *rt, void *const *t, const int64_t *p) {
  onnxc_k::qconv(rt, t, p);
  return 0;
}
