/* Conv (1-D to 3-D, grouped), three algorithms chosen by the lowering (templates/cpu/conv_params.h
 * holds the params struct, the algorithms and the scratch size):
 *   im2col: per image and group, the K = Cg*kD*kH*kW by N = oD*oH*oW patch matrix is packed
 *      straight into GEMM panels (no separate column buffer; contiguous input runs per output
 *      row), then Y = W * cols + bias;
 *   direct: Cg == 1 (depthwise, with any channel multiplier): per output row, one axpy per
 *      kernel tap over the output row (vectorises for stride 1);
 *   pointwise: 1x1 kernel, stride 1, no padding: the input plane is the GEMM's B, packed.
 * With enough columns (kConvFusedBlocks blocks of gemm::kNC), each work item packs the columns it
 * multiplies and runs every row block over them while they are in cache; otherwise B is packed
 * first, in parallel, and the GEMM splits rows and columns. W is normally pre-packed at compile
 * time (w_packed: the pack-weights pass; conv_pack_weights). The fused activation
 * (templates/cpu/activation.h) is applied to each output element when it is final.
 * tensors {X, W (or packed W), B (may be null), Y, scratch (GEMM algos: one packed K x N)}.
 */
#include "templates/cpu/activation.h"
#include "templates/cpu/conv_params.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/nn_gemm.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

/// The params with the window's fields at top level, as the algorithms below read them.
struct ConvGeom : WindowGeom {
  i64 N, C, M, G, algo, has_bias, w_packed, gemm_mr;
  explicit ConvGeom(const ConvParams &p)
      : WindowGeom(p.w), N(p.N), C(p.C), M(p.M), G(p.G), algo(p.algo), has_bias(p.has_bias),
        w_packed(p.w_packed), gemm_mr(p.gemm_mr) {}
};

/// Output index range [lo, hi) whose input coordinate o*s - p + off lies in [0, in).
inline void valid_range(i64 in, i64 out, i64 s, i64 p, i64 off, i64 &lo, i64 &hi) {
  const i64 a = p - off; /* need o*s >= a */
  lo = a <= 0 ? 0 : (a + s - 1) / s;
  const i64 b = in + p - off - 1; /* need o*s <= b */
  hi = b < 0 ? 0 : gemm::min_i(out, b / s + 1);
  if (hi < lo)
    hi = lo;
}

/// Column blocks (of gemm::kNC) from which each work item packs the columns it multiplies.
constexpr i64 kConvFusedBlocks = 4;

/// Writes n consecutive columns o.. of row kk of the packed K x Nsp matrix (panels of NR
/// columns, each `kstride` elements apart): src[t*s] for t < n, or zeros if src is null.
template <typename T> void put_run(T *row, i64 kstride, i64 o, i64 n, const T *src, i64 s) {
  constexpr i64 NR = gemm::nr<T>();
  while (n > 0) {
    const i64 j = o % NR, m = gemm::min_i(NR - j, n);
    T *d = row + (o / NR) * kstride + j;
    if (!src) {
      for (i64 t = 0; t < m; ++t)
        d[t] = T(0);
    } else if (s == 1) {
      for (i64 t = 0; t < m; ++t)
        d[t] = src[t];
      src += m;
    } else {
      for (i64 t = 0; t < m; ++t)
        d[t] = src[t * s];
      src += m * s;
    }
    o += m;
    n -= m;
  }
}

/// Packs rows [k_lo, k_hi), columns [oa, ob) of the im2col matrix of one image's group (x: its
/// Cg channels) into GEMM panels (oa a multiple of NR; ob == Nsp pads the last panel with
/// zeros), one output row segment at a time (contiguous input runs for stride 1).
template <typename T>
void pack_im2col(const ConvGeom &g, const T *x, T *dst, i64 K, i64 k_lo, i64 k_hi, i64 oa,
                 i64 ob) {
  constexpr i64 NR = gemm::nr<T>();
  const i64 ks = g.k_size(), kstride = K * NR, Nsp = g.out_size(), W = g.out[2];
  const i64 pad_cols = ob < Nsp ? 0 : gemm::ceil_div(Nsp, NR) * NR - Nsp;
  for (i64 kk = k_lo; kk < k_hi; ++kk) {
    const i64 c = kk / ks, r = kk % ks;
    const i64 kd = r / (g.k[1] * g.k[2]), kh = (r / g.k[2]) % g.k[1], kw = r % g.k[2];
    const i64 off = kw * g.d[2] - g.p[2];
    i64 o0, o1;
    valid_range(g.in[2], W, g.s[2], g.p[2], kw * g.d[2], o0, o1);
    const T *xc = x + c * g.in_size();
    T *row = dst + kk * NR;
    for (i64 line = oa / W; line * W < ob; ++line) { /* output rows (od, oh) meeting [oa, ob) */
      const i64 od = line / g.out[1], oh = line % g.out[1], base = line * W;
      const i64 s0 = oa > base ? oa - base : 0, s1 = ob < base + W ? ob - base : W;
      const i64 id = od * g.s[0] - g.p[0] + kd * g.d[0];
      const i64 ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
      if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
        put_run<T>(row, kstride, base + s0, s1 - s0, nullptr, 0);
        continue;
      }
      const T *xr = xc + (id * g.in[1] + ih) * g.in[2];
      const i64 v0 = o0 > s0 ? (o0 < s1 ? o0 : s1) : s0, v1 = o1 < s1 ? (o1 > v0 ? o1 : v0) : s1;
      put_run<T>(row, kstride, base + s0, v0 - s0, nullptr, 0);
      put_run(row, kstride, base + v0, v1 - v0, xr + v0 * g.s[2] + off, g.s[2]);
      put_run<T>(row, kstride, base + v1, s1 - v1, nullptr, 0);
    }
    put_run<T>(row, kstride, Nsp, pad_cols, nullptr, 0);
  }
}

/// Packs columns [oa, ob) of one image's group's GEMM B (pointwise: the input plane; else
/// im2col) into its panels.
template <typename T>
void pack_cols(const ConvGeom &g, const T *xg, T *packed, i64 K, i64 oa, i64 ob) {
  constexpr i64 NR = gemm::nr<T>();
  const i64 kk = K > 0 ? K : 1, Nsp = g.out_size();
  if (g.algo == kConvPointwise) {
    for (i64 pn = oa / NR; pn * NR < ob; ++pn)
      gemm::pack_panel(packed + pn * kk * NR, xg, K, Nsp, Nsp, 1, pn);
  } else {
    pack_im2col(g, xg, packed, K, 0, K, oa, ob);
  }
}

template <typename T>
void conv_gemm(onnxc_rt *rt, const ConvGeom &g, const Act<T> &act, const T *x, const T *w,
               const T *bias, T *y, T *packed) {
  using namespace gemm;
  constexpr i64 NR = nr<T>();
  const i64 Cg = g.C / g.G, Mg = g.M / g.G, K = Cg * g.k_size(), Nsp = g.out_size();
  const i64 panels = ceil_div(Nsp, NR), kk = K > 0 ? K : 1;
  const i64 nb = ceil_div(Nsp, kNC);
  for (i64 n = 0; n < g.N; ++n) {
    for (i64 grp = 0; grp < g.G; ++grp) {
      const T *xg = x + (n * g.C + grp * Cg) * g.in_size();
      Problem<T> pr{Mg, Nsp, K, w + grp * Mg * K, K, 1, packed, nullptr, 0, 0,
                    y + (n * g.M + grp * Mg) * Nsp, Nsp, 1, T(1), T(1),
                    bias ? bias + grp * Mg : nullptr, 1, 0, act};
      pr.mr = g.gemm_mr;
      if (g.w_packed) {
        pr.a = w + grp * packed_a_elems(Mg, K);
        pr.a_packed = 1;
      }
      if (nb >= kConvFusedBlocks) { /* each work item packs its columns and uses them at once */
        auto body = [&](i64 lo, i64 hi) {
          for (i64 bn = lo; bn < hi; ++bn) {
            const i64 n0 = bn * kNC, n1 = min_i(Nsp, n0 + kNC);
            pack_cols(g, xg, packed, K, n0, n1);
            for (i64 m0 = 0; m0 < Mg; m0 += kMC)
              block(pr, m0, min_i(Mg, m0 + kMC), n0, n1);
          }
        };
        parallel_for(rt, nb, 1, body);
        continue;
      }
      auto pack = [&](i64 lo, i64 hi) {
        for (i64 pn = lo; pn < hi; ++pn)
          pack_cols(g, xg, packed, K, pn * NR, min_i(Nsp, pn * NR + NR));
      };
      parallel_for(rt, panels, 1 + 4096 / (kk * NR), pack);
      auto problem = [&](i64) { return pr; };
      run<T>(rt, 1, Mg, Nsp, problem);
    }
  }
}

template <typename T>
void conv_direct(onnxc_rt *rt, const ConvGeom &g, const Act<T> &act, const T *x, const T *w,
                 const T *bias, T *y) {
  const i64 Mg = g.M / g.G, ks = g.k_size(), osz = g.out_size(), isz = g.in_size();
  auto body = [&](i64 lo, i64 hi) {
    for (i64 plane = lo; plane < hi; ++plane) {
      const i64 n = plane / g.M, m = plane % g.M, c = m / Mg; /* Cg == 1: channel = group */
      const T *xp = x + (n * g.C + c) * isz, *wp = w + m * ks;
      T *yp = y + plane * osz;
      const T b0 = bias ? bias[m] : T(0);
      for (i64 od = 0; od < g.out[0]; ++od)
        for (i64 oh = 0; oh < g.out[1]; ++oh) {
          T *yr = yp + (od * g.out[1] + oh) * g.out[2];
          for (i64 ow = 0; ow < g.out[2]; ++ow)
            yr[ow] = b0;
          for (i64 kd = 0; kd < g.k[0]; ++kd) {
            const i64 id = od * g.s[0] - g.p[0] + kd * g.d[0];
            if (id < 0 || id >= g.in[0])
              continue;
            for (i64 kh = 0; kh < g.k[1]; ++kh) {
              const i64 ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
              if (ih < 0 || ih >= g.in[1])
                continue;
              const T *xr = xp + (id * g.in[1] + ih) * g.in[2];
              for (i64 kw = 0; kw < g.k[2]; ++kw) {
                const T wv = wp[(kd * g.k[1] + kh) * g.k[2] + kw];
                i64 o0, o1;
                const i64 off = kw * g.d[2] - g.p[2];
                valid_range(g.in[2], g.out[2], g.s[2], g.p[2], kw * g.d[2], o0, o1);
                for (i64 ow = o0; ow < o1; ++ow)
                  yr[ow] += wv * xr[ow * g.s[2] + off];
              }
            }
          }
          if (act.kind != kActNone) /* the row is final and still in L1 */
            apply_act(act, yr, g.out[2], 1);
        }
    }
  };
  parallel_for(rt, g.N * g.M, 1, body);
}

template <typename T> int32_t conv_kernel(onnxc_rt *rt, void *const *t, const i64 *p) {
  const ConvParams cp = params_of<ConvParams>(p);
  const ConvGeom g(cp);
  const T *x = static_cast<const T *>(t[0]), *w = static_cast<const T *>(t[1]);
  const T *bias = g.has_bias ? static_cast<const T *>(t[2]) : nullptr;
  T *y = static_cast<T *>(t[3]);
  const Act<T> act = make_act<T>(cp.act);
  if (g.algo == kConvDirect)
    conv_direct(rt, g, act, x, w, bias, y);
  else
    conv_gemm(rt, g, act, x, w, bias, y, static_cast<T *>(t[4]));
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_CONV_KERNEL(ct, sfx, unused)                                                         \
  extern "C" int32_t onnxc_k_conv_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {          \
    return onnxc_k::conv_kernel<ct>(rt, t, p);                                                     \
  }
ONNXC_FLOAT_TYPES(ONNXC_CONV_KERNEL, 0)
