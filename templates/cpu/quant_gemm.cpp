/* Integer matrix products and convolutions: MatMulInteger, QLinearMatMul, ConvInteger,
 * QLinearConv, com.microsoft QGemm. Zero points are subtracted up front, so the products are
 * exact: A' = A - za and B' = B - zb (or the im2col patches of X - zx, 0 at padding) are packed
 * as int16 into the scratch buffer, K in pairs: A' rows as one int32 per pair of k, B' in
 * panels of kNR columns holding, per pair of k, kNR x 2 int16. The micro-kernel accumulates a
 * kMR x kNR int32 tile as sum over pairs of a(2p) b(2p, j) + a(2p+1) b(2p+1, j) — the
 * "multiply int16 pairs, add to int32" shape that x86 does in one pmaddwd (vpdpwssd with
 * AVX-512 VNNI / AVX-VNNI) and AArch64 in widening multiply-adds. It is written with the
 * generic vector extension, as nn_gemm.h is, and legalised for the target at model compile
 * time. The int32 sums are either stored (the *Integer ops) or requantised:
 * y = saturate(round_half_to_even((acc + bias) * (sa * alpha * sb / sy)) + zy), in float as
 * ONNX Runtime does.
 *
 * Tensors of both kernels: {A, B, a_zp, b_zp, a_scale, b_scale, y_scale, y_zp, bias, Y, scratch}
 * (for conv A = W, B = X; absent inputs are null).
 * onnxc_k_qmatmul params {a dt, b dt, y dt (6: int32 out), scale dt, M, N, K, a per-row,
 *   b per-column, a_count, b_count, B's row and column strides, alpha (f64 bits), batch rank r,
 *   batch dims[r], a batch strides[r], b batch strides[r]} (per-row/-column: zero points and
 *   scales have M / N elements; the bias, QGemm's, has N). Scratch: packed B then packed A
 *   (qmatmul_scratch_bytes in compiler/ops/quant/quant_util.h).
 * onnxc_k_qconv params {x dt, w dt, y dt, scale dt, w per-channel, N, C, M, group,
 *   in[3], out[3], k[3], stride[3], pad_begin[3], dilation[3], pad_end[3]}; scratch: the
 *   packed patches of one image's group, then packed W. */
#include "templates/cpu/quant_common.h"

namespace onnxc_k {
namespace {
using namespace quant;

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

typedef short v32s __attribute__((vector_size(64)));
typedef int v16i __attribute__((vector_size(64)));
/* The even / odd int16 lanes of a v32s, sign-extended to int32 (macros: GCC warns about
 * functions taking 64-byte vectors by value). */
#define ONNXC_WIDEN_EVEN(v)                                                                        \
  __builtin_convertvector(                                                                         \
      __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),    \
      v16i)
#define ONNXC_WIDEN_ODD(v)                                                                         \
  __builtin_convertvector(                                                                         \
      __builtin_shufflevector(v, v, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31),    \
      v16i)
constexpr i64 kNR = 16; /* columns per B panel (one int32 vector) */
constexpr i64 kMR = 4;  /* rows per micro-tile */

inline i64 pairs(i64 K) { return (K + 1) / 2; }
inline i64 panels(i64 N) { return (N + kNR - 1) / kNR; }

/// Packs B'(k, j) = f(k, j) (K x N) into panels of kNR columns, k in pairs, zero-padded.
template <typename F> void pack_b(short *dst, i64 K, i64 N, F &&f) {
  const i64 kp = pairs(K);
  for (i64 pn = 0; pn < panels(N); ++pn)
    for (i64 pr = 0; pr < kp; ++pr) {
      short *d = dst + (pn * kp + pr) * 2 * kNR;
      for (i64 j = 0; j < kNR; ++j)
        for (i64 h = 0; h < 2; ++h) {
          const i64 k = 2 * pr + h, col = pn * kNR + j;
          d[2 * j + h] = k < K && col < N ? static_cast<short>(f(k, col)) : short(0);
        }
    }
}

/// Packs row i of A' (K elements a(k) - za) as int32 pairs (low half: even k).
inline void pack_a_row(int32_t *dst, i64 adt, const void *a, i64 a0, i64 K, int32_t za) {
  for (i64 pr = 0; pr < pairs(K); ++pr) {
    const i64 k = 2 * pr;
    const unsigned lo = static_cast<unsigned short>(load_int(adt, a, a0 + k) - za);
    const unsigned hi =
        k + 1 < K ? static_cast<unsigned short>(load_int(adt, a, a0 + k + 1) - za) : 0u;
    dst[pr] = static_cast<int32_t>(lo | (hi << 16));
  }
}

/// Rows [i0, i0 + mr) (mr <= kMR) of packed A' times every panel of packed B'; calls
/// emit(row r, acc, columns, first column) per row and panel.
template <typename F>
void micro_rows(const int32_t *ap, i64 i0, i64 mr, const short *bp, i64 K, i64 N, F &&emit) {
  const i64 kp = pairs(K);
  const int32_t *arow[kMR];
  for (i64 r = 0; r < kMR; ++r)
    arow[r] = ap + (i0 + (r < mr ? r : mr - 1)) * kp;
  for (i64 pn = 0; pn < panels(N); ++pn) {
    v16i acc[kMR] = {};
    const short *b = bp + pn * kp * 2 * kNR;
    for (i64 pr = 0; pr < kp; ++pr) {
      v32s bv;
      __builtin_memcpy(&bv, b + pr * 2 * kNR, sizeof bv);
      /* even / odd k of the pair, widened: a(2p) b(2p, j) + a(2p+1) b(2p+1, j) (pmaddwd) */
      const v16i be = ONNXC_WIDEN_EVEN(bv), bo = ONNXC_WIDEN_ODD(bv);
#pragma GCC unroll 4
      for (i64 r = 0; r < kMR; ++r) {
        const v16i pv = v16i{} + arow[r][pr]; /* the pair in every lane */
        v32s av;
        __builtin_memcpy(&av, &pv, sizeof av);
        const v16i ae = ONNXC_WIDEN_EVEN(av), ao = ONNXC_WIDEN_ODD(av);
        acc[r] += ae * be + ao * bo;
      }
    }
    const i64 j0 = pn * kNR, nb = N - j0 < kNR ? N - j0 : kNR;
    for (i64 r = 0; r < mr; ++r) {
      int32_t out[kNR];
      __builtin_memcpy(out, &acc[r], sizeof out);
      emit(r, out, nb, j0);
    }
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
  const i64 a_count = p[9], b_count = p[10], rsb = p[11], csb = p[12], r = p[14];
  const i64 *dims = p + 15, *a_bs = dims + r, *b_bs = a_bs + r;
  const i64 b_size = panels(N) * pairs(K) * 2 * kNR;
  short *bpack = static_cast<short *>(t[10]);
  int32_t *apack = reinterpret_cast<int32_t *>(bpack + b_count * b_size);
  for (i64 m = 0; m < b_count; ++m) /* B' = B - zb, one per distinct B matrix */
    pack_b(bpack + m * b_size, K, N, [&](i64 k, i64 j) {
      return load_int(bdt, t[1], m * K * N + k * rsb + j * csb) -
             (t[3] ? load_int(bdt, t[3], b_col ? j : 0) : 0);
    });
  for (i64 i = 0; i < a_count * M; ++i)
    pack_a_row(apack + i * pairs(K), adt, t[0], i * K, K,
               t[2] ? load_int(adt, t[2], a_row ? i % M : 0) : 0);
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
  const i64 blocks = (M + kMR - 1) / kMR;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 w = lo; w < hi; ++w) {
      const i64 bi = w / blocks, i0 = (w % blocks) * kMR, mr = M - i0 < kMR ? M - i0 : kMR;
      const i64 am = batch_offset(bi, r, dims, a_bs), bm = batch_offset(bi, r, dims, b_bs);
      micro_rows(apack + am * M * pairs(K), i0, mr, bpack + bm * b_size, K, N,
                 [&](i64 rr, const int32_t *acc, i64 nb, i64 j0) {
                   const i64 i = i0 + rr;
                   out.emit(acc, nb, (bi * M + i) * N + j0, a_row ? i : 0, -1, j0);
                 });
    }
  };
  parallel_for(rt, batches * blocks, 1 + 65536 / (kMR * N * K + 1), body);
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

/// im2col of one image's group as int16 (x - zx), 0 outside the input, packed as B' (K x Nsp).
void pack_patches(const QConvGeom &g, i64 xdt, const void *x, i64 x0, int32_t zx, short *dst) {
  const i64 Cg = g.C / g.G, ks = g.k_size(), plane = g.in_size();
  pack_b(dst, Cg * ks, g.out_size(), [&](i64 kk, i64 o) -> int32_t {
    const i64 c = kk / ks, rr = kk % ks;
    const i64 kd = rr / (g.k[1] * g.k[2]), kh = (rr / g.k[2]) % g.k[1], kw = rr % g.k[2];
    const i64 ow = o % g.out[2], oh = (o / g.out[2]) % g.out[1], od = o / (g.out[2] * g.out[1]);
    const i64 id = od * g.s[0] - g.pb[0] + kd * g.d[0];
    const i64 ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
    const i64 iw = ow * g.s[2] - g.pb[2] + kw * g.d[2];
    if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2])
      return 0;
    return load_int(xdt, x, x0 + c * plane + (id * g.in[1] + ih) * g.in[2] + iw) - zx;
  });
}

void qconv(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 xdt = p[0], wdt = p[1];
  const bool w_ch = p[4];
  const QConvGeom g = read_conv(p + 5);
  const i64 Cg = g.C / g.G, Mg = g.M / g.G, K = Cg * g.k_size(), Nsp = g.out_size();
  const int32_t zx = t[3] ? load_int(xdt, t[3], 0) : 0;
  short *packed = static_cast<short *>(t[10]);
  int32_t *wpack = reinterpret_cast<int32_t *>(packed + panels(Nsp) * pairs(K) * 2 * kNR);
  for (i64 m = 0; m < g.M; ++m)
    pack_a_row(wpack + m * pairs(K), wdt, t[0], m * K, K,
               t[2] ? load_int(wdt, t[2], w_ch ? m : 0) : 0);
  /* the row scale is w_scale (per output channel m), the column scale x_scale */
  Output out{p[2], p[3], t[9], t[4], t[5], t[6], t[7], t[8], false, false, 1.0f};
  const i64 blocks = (Mg + kMR - 1) / kMR;
  for (i64 n = 0; n < g.N; ++n) {
    for (i64 grp = 0; grp < g.G; ++grp) {
      pack_patches(g, xdt, t[1], (n * g.C + grp * Cg) * g.in_size(), zx, packed);
      auto body = [&](i64 lo, i64 hi) {
        for (i64 bl = lo; bl < hi; ++bl) {
          const i64 i0 = grp * Mg + bl * kMR, mr = Mg - bl * kMR < kMR ? Mg - bl * kMR : kMR;
          micro_rows(wpack, i0, mr, packed, K, Nsp,
                     [&](i64 rr, const int32_t *acc, i64 nb, i64 j0) {
                       const i64 m = i0 + rr;
                       out.emit(acc, nb, (n * g.M + m) * Nsp + j0, w_ch ? m : 0, m, j0);
                     });
        }
      };
      parallel_for(rt, blocks, 1 + 65536 / (kMR * K * Nsp + 1), body);
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
