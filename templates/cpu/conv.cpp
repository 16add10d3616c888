/* Conv (1-D to 3-D, grouped), six algorithms chosen by the lowering (templates/cpu/conv_params.h
 * holds the params struct, the algorithms and the scratch size):
 *   im2col: per image and group, the K = Cg*kD*kH*kW by N = oD*oH*oW patch matrix is packed
 *      straight into GEMM panels (no separate column buffer; contiguous input runs per output
 *      row), then Y = W * cols + bias;
 *   direct: Cg == 1 (depthwise, with any channel multiplier): each output row is computed in
 *      vector registers (4 or 1 vectors of 64 bytes along W, every kernel tap broadcast and
 *      multiplied with the input vector at that tap; stride 2 de-interleaves two loads; the
 *      last vector overlaps its neighbour). 1-D/2-D windows (3-D ones use im2col). Work items
 *      are (image, channel, block of output rows); each first copies the input rows it reads,
 *      zero-padded, into its part of the scratch, so no vector needs an edge case;
 *   pointwise: 1x1 kernel, stride 1, no padding: the input plane is the GEMM's B, packed;
 *   winograd: 2-D 3x3 stride 1, one group: F(2x2, 3x3) on 16 GEMMs (conv_winograd.h);
 *   dw channels: float depthwise with narrow output rows, 16 channels per vector (transposed);
 *   few channels: float, one group, C <= 16 (first layers): direct on stride-phase rows.
 * GEMM algos: every group's packed B has its own part of the scratch, so all groups run in one
 * parallel loop. With enough columns (kConvFusedBlocks blocks of gemm::kNC), each work item
 * (group, column block) packs the columns it multiplies and runs every row block over them while
 * they are in cache; otherwise B is packed first, in parallel, and the (group, row block, column
 * block) tiles run in a second loop, for several images at once where the scratch allows
 * (conv_gemm_images: each row block of W then serves all of them while it is in cache), except
 * at several threads with enough panels (conv_panel_shares), where each thread packs and
 * multiplies its share of the plane's panels, as the first schedule does its blocks. Every
 * parallel body reads the shapes from its params argument, so the thread pool runs node-specialised
 * code (parallel_for with params). W is normally pre-packed at compile time (w_packed: the
 * pack-weights pass; conv_pack_weights). The fused activation (templates/cpu/activation.h) is
 * applied to each output element when it is final. tensors {X, W (or packed W), B (may be null), Y,
 * [R: the fused residual (has_residual)], [S: the input channels' scales (has_in_scale)], scratch
 * (GEMM algos: one packed K x N; with S also W diag(S))}. R is added after the bias, before the
 * activation.
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
  i64 N, C, M, G, algo, has_bias, w_packed;
  explicit ConvGeom(const ConvParams &p)
      : WindowGeom(p.w), N(p.N), C(p.C), M(p.M), G(p.G), algo(p.algo), has_bias(p.has_bias),
        w_packed(p.w_packed) {}
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

/// d[t] = src[2 t] for t < m, float: 16 at a time from src[2t .. 2t + 30] (two vectors, the
/// second starting at src[2t + 15], so that nothing past src[2 (m - 1)] is read), the last
/// elements one by one.
template <typename T> inline void put_stride2(T *d, i64 m, const T *src) {
  i64 t = 0;
  if constexpr (is_f32<T>) {
    for (; t + kVecF32 <= m; t += kVecF32) {
      const vf32 a = load_f32(src + 2 * t), b = load_f32(src + 2 * t + 15);
      store_f32(d + t, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25,
                                               27, 29, 31));
    }
  }
  for (; t < m; ++t)
    d[t] = src[t * 2];
}

/// Element runs of im2col rows go through a row buffer of this many columns (a work item's
/// columns, gemm::kNC, at most; more go in chunks) and its slack, so that every run is written
/// in whole vectors: a vector past a run's end lands on the next run (written after it) or in
/// the slack.
constexpr i64 kColsChunk = gemm::kNC, kColsSlack = 64;

/// Writes d[t] = src[t * s] for t < m in whole vectors of L lanes (past m: anything, fewer
/// than L elements), reading no element at or past `end` (those runs finish element by
/// element); src null: zeros.
template <typename T> inline void put_run(T *d, i64 m, const T *src, i64 s, const T *end) {
  typedef typename gemm::Vec<T>::type V;
  constexpr i64 L = i64(sizeof(V) / sizeof(T));
  i64 t = 0;
  if (!src) {
    const V zero{};
    for (; t < m; t += L)
      __builtin_memcpy(d + t, &zero, sizeof(V));
    return;
  }
  if (s == 1) {
    for (; t < m && src + t + L <= end; t += L)
      __builtin_memcpy(d + t, src + t, sizeof(V));
  } else if (s == 2) {
    if constexpr (is_f32<T>)
      for (; t < m && src + 2 * t + 2 * L <= end; t += L) {
        const vf32 a = load_f32(src + 2 * t), b = load_f32(src + 2 * t + L);
        store_f32(d + t, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                                                 24, 26, 28, 30));
      }
  }
  for (; t < m; ++t)
    d[t] = src[t * s];
}

/// Writes phases [0, phases) of the S phase rows (pc elements each) of one zero-padded input
/// row at dst: phase q, element j is the padded row's column q + S j (X's column q + S j - left
/// pad), zero outside X; xrow null: a padding row, all zeros. S == 1: the padded row itself.
template <typename T>
inline void pad_phase_rows(const ConvGeom &g, const T *xrow, i64 S, i64 phases, i64 pc, T *dst) {
  for (i64 q = 0; q < phases; ++q) {
    T *d = dst + q * pc;
    i64 j0 = 0, j1 = 0; /* the run of j whose column S j - p + q lies in X */
    if (xrow)
      valid_range(g.in[2], pc, S, g.p[2], q, j0, j1);
    j0 = gemm::min_i(j0, pc), j1 = gemm::min_i(j1, pc); /* padding wider than the row */
    for (i64 j = 0; j < j0; ++j)
      d[j] = T(0);
    if (j1 > j0) {
      const T *src = xrow + (q + S * j0 - g.p[2]);
      if (S == 1)
        __builtin_memcpy(d + j0, src, sizeof(T) * (j1 - j0));
      else if (S == 2)
        put_stride2(d + j0, j1 - j0, src);
      else
        for (i64 j = j0; j < j1; ++j)
          d[j] = src[(j - j0) * S];
    }
    for (i64 j = j1; j < pc; ++j)
      d[j] = T(0);
  }
}

/// Copies row kk of the packed-B columns [o0, o1) (multiples of NR, so of sub) from buf (column
/// o0 first) to their sub-panels of `sub` columns.
template <typename T>
inline void put_panel_row(T *dst, i64 K, i64 sub, i64 kk, const T *buf, i64 o0, i64 o1) {
  constexpr i64 NR = gemm::nr<T>();
  for (i64 o = o0; o < o1; o += sub) {
    T *d = dst + gemm::packed_b_col(K, NR, sub, o) + kk * sub;
    for (i64 j = 0; j < sub; ++j)
      d[j] = buf[o - o0 + j];
  }
}

/// Bytes of pack_im2col_small()'s stack buffer of one channel's padded phase rows.
constexpr i64 kSmallPlaneBytes = 16384;

/// Output rows of at most this many vectors go through pack_im2col_small().
constexpr i64 kSmallRowVectors = 4;

/// pack_im2col() for 2-D windows whose output rows are at most kSmallRowVectors vectors (the
/// 7x7, 14x14 and 28x28 planes of ResNet's later stages), all of [oa, ob) in one row buffer:
/// per channel, the padded input rows that the columns' output rows read are first copied into
/// a stack buffer as stride-phase rows (phase q of a padded row: its columns q, q + s, ...;
/// zeros outside X), so that each tap's segment of each output row is whole vectors copied
/// from it (the general path spends three runs and their bounds on every such segment). False
/// (nothing written) when the shape does not qualify.
template <typename T>
bool pack_im2col_small(const ConvGeom &g, const T *x, T *dst, i64 K, i64 sub, i64 oa, i64 ob) {
  typedef typename gemm::Vec<T>::type V;
  constexpr i64 L = i64(sizeof(V) / sizeof(T)), NR = gemm::nr<T>();
  const i64 W = g.out[2], Nsp = g.out_size(), ks = g.k_size(), Sy = g.s[1], Sx = g.s[2];
  const i64 end = ob < Nsp ? ob : gemm::ceil_div(Nsp, NR) * NR; /* zeros in [Nsp, end) */
  if (g.k[0] != 1 || g.out[0] != 1 || g.in[0] != 1 || g.p[0] != 0 ||
      W > kSmallRowVectors * L || g.d[1] != 1 || g.d[2] != 1 || end - oa > kColsChunk || oa >= Nsp)
    return false;
  const i64 nv = gemm::ceil_div(W, L); /* vectors per output row */
  const i64 line0 = oa / W, line1 = gemm::ceil_div(gemm::min_i(end, Nsp), W);
  const i64 row0 = line0 * Sy, rows = (line1 - 1 - line0) * Sy + g.k[1];
  const i64 pc = (g.k[2] - 1) / Sx + nv * L; /* a phase row: every tap's vectors from its start */
  if (rows * Sx * pc * i64(sizeof(T)) > kSmallPlaneBytes)
    return false;
  T plane[kSmallPlaneBytes / sizeof(T)];
  /* column oa at b0: the first line may start up to W - 1 before it, the last end up to W - 1
     past `end` and its last vector L - 1 past that */
  T buf[kSmallRowVectors * L + kColsChunk + (kSmallRowVectors + 1) * L];
  T *const b0 = buf + kSmallRowVectors * L;
  const i64 C = K / ks;
  for (i64 c = 0; c < C; ++c) {
    const T *xc = x + c * g.in_size();
    for (i64 r = 0; r < rows; ++r) {
      if (g.k[1] < Sy && r % Sy >= g.k[1])
        continue; /* a row no tap reads (a 1x1 window at stride 2: every other one) */
      const i64 ih = row0 + r - g.p[1];
      const T *xrow = ih >= 0 && ih < g.in[1] ? xc + ih * g.in[2] : nullptr;
      /* only the phases that taps read */
      pad_phase_rows(g, xrow, Sx, gemm::min_i(Sx, g.k[2]), pc, plane + r * Sx * pc);
    }
    for (i64 t = 0; t < ks; ++t) {
      const i64 kh = t / g.k[2], kw = t % g.k[2], kk = c * ks + t;
      const T *ph = plane + (kh * Sx + kw % Sx) * pc + kw / Sx;
      for (i64 line = line0; line < line1; ++line) /* lines in order: a row's lanes past W
                                                       are the next line's, written next */
        for (i64 v = 0; v < nv; ++v) {
          V x;
          __builtin_memcpy(&x, ph + (line - line0) * Sy * Sx * pc + v * L, sizeof x);
          __builtin_memcpy(b0 + (line * W - oa) + v * L, &x, sizeof x);
        }
      for (i64 j = gemm::min_i(end, Nsp) - oa; j < end - oa; ++j) /* the last panel's padding */
        b0[j] = T(0);
      put_panel_row(dst, K, sub, kk, b0, oa, end);
    }
  }
  return true;
}

/// Packs rows [k_lo, k_hi), columns [oa, ob) of the im2col matrix of one image's group (x: its
/// K / k_size channels) into GEMM panels of sub-panels of `sub` columns (oa a multiple of NR;
/// ob == Nsp pads the last panel with zeros). Each row's columns are first written into a row
/// buffer, one output row segment at a time (contiguous input runs for stride 1, even elements
/// for stride 2, in whole vectors: put_run), then copied to their sub-panels a sub-panel row
/// at a time.
template <typename T>
void pack_im2col(const ConvGeom &g, const T *x, T *dst, i64 K, i64 sub, i64 k_lo, i64 k_hi, i64 oa,
                 i64 ob) {
  constexpr i64 NR = gemm::nr<T>();
  static_assert(kColsChunk % NR == 0 && kColsSlack * sizeof(T) >= 2 * gemm::kVecBytes,
                "chunks of whole panels; slack for a run's last vectors");
  const i64 ks = g.k_size(), Nsp = g.out_size(), W = g.out[2];
  const i64 end = ob < Nsp ? ob : gemm::ceil_div(Nsp, NR) * NR; /* zeros in [Nsp, end) */
  const T *x_end = x + (K / ks) * g.in_size();
  T buf[kColsChunk + kColsSlack];
  for (i64 kk = k_lo; kk < k_hi; ++kk) {
    const i64 c = kk / ks, r = kk % ks;
    const i64 kd = r / (g.k[1] * g.k[2]), kh = (r / g.k[2]) % g.k[1], kw = r % g.k[2];
    const i64 off = kw * g.d[2] - g.p[2];
    i64 o0, o1;
    valid_range(g.in[2], W, g.s[2], g.p[2], kw * g.d[2], o0, o1);
    const T *xc = x + c * g.in_size();
    for (i64 c0 = oa; c0 < end; c0 += kColsChunk) {
      const i64 c1 = gemm::min_i(end, c0 + kColsChunk), n1 = gemm::min_i(c1, Nsp);
      for (i64 line = c0 / W; line * W < n1; ++line) { /* output rows (od, oh) in [c0, n1) */
        const i64 od = line / g.out[1], oh = line % g.out[1], base = line * W;
        const i64 s0 = c0 > base ? c0 - base : 0, s1 = n1 < base + W ? n1 - base : W;
        const i64 at = base - c0; /* buf index of the line's column 0 (negative: before buf) */
        const i64 id = od * g.s[0] - g.p[0] + kd * g.d[0];
        const i64 ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
        if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
          put_run<T>(buf + (at + s0), s1 - s0, nullptr, 0, nullptr);
          continue;
        }
        const T *xr = xc + (id * g.in[1] + ih) * g.in[2];
        const i64 v0 = o0 > s0 ? (o0 < s1 ? o0 : s1) : s0, v1 = o1 < s1 ? (o1 > v0 ? o1 : v0) : s1;
        put_run<T>(buf + (at + s0), v0 - s0, nullptr, 0, nullptr);
        put_run(buf + (at + v0), v1 - v0, xr + v0 * g.s[2] + off, g.s[2], x_end);
        put_run<T>(buf + (at + v1), s1 - v1, nullptr, 0, nullptr);
      }
      put_run<T>(buf + (n1 - c0), c1 - n1, nullptr, 0, nullptr);
      put_panel_row(dst, K, sub, kk, buf, c0, c1);
    }
  }
}

/// Packs panel `pn` of the K x N plane b (rows N apart) into dst: out of line and shared, so that
/// a node-specialised caller, where K, N and pn are constants, does not get its own unrolled
/// copy of the loop (that tripled mobilenet's code: tests/static budget).
template <typename T>
__attribute__((noinline)) void pack_plane_panel(T *dst, const T *b, i64 K, i64 N, i64 pn, i64 sub) {
  gemm::pack_panel(dst, b, K, N, N, 1, pn, sub);
}

/// Packs columns [oa, ob) of one image's group's GEMM B (pointwise: the input plane; else
/// im2col) into its panels.
template <typename T>
ONNXC_GEMM_INLINE void pack_cols(const ConvParams &q, const T *xg, T *packed, i64 K, i64 oa,
                                 i64 ob) {
  constexpr i64 NR = gemm::nr<T>();
  const ConvGeom g(q);
  const i64 kk = K > 0 ? K : 1, Nsp = g.out_size(), sub = conv_b_sub(q, sizeof(T));
  if (conv_b_in_place(q, sizeof(T))) {
    if (ob == Nsp && Nsp % NR) /* only the last, partial panel, at the scratch's start */
      pack_plane_panel(packed, xg, K, Nsp, Nsp / NR, sub);
  } else if (g.algo == kConvPointwise) {
    for (i64 pn = oa / NR; pn * NR < ob; ++pn)
      pack_plane_panel(packed + pn * kk * NR, xg, K, Nsp, pn, sub);
  } else if (!pack_im2col_small(g, xg, packed, K, sub, oa, ob)) {
    pack_im2col(g, xg, packed, K, sub, 0, K, oa, ob);
  }
}

/// The tensors of one Conv call.
template <typename T> struct ConvPtrs {
  const T *x, *w, *bias;
  T *y, *packed;
  const T *res = nullptr; /* the fused residual (has_residual), Y's shape */
};

/// The GEMM of image n, group grp: Y block = W block * (packed columns in the group's scratch,
/// that of the slot-th image packed at once: conv_gemm_images).
template <typename T>
ONNXC_GEMM_INLINE gemm::Problem<T> group_problem(const ConvParams &q, const ConvPtrs<T> &t, i64 n,
                                                 i64 grp, i64 slot = 0) {
  using namespace gemm;
  const ConvGeom g(q);
  const i64 Cg = g.C / g.G, Mg = g.M / g.G, K = Cg * g.k_size(), Nsp = g.out_size();
  T *packed = t.packed + (slot * g.G + grp) * conv_group_cols_elems(q, sizeof(T));
  /* the scratch, at least one element when there is a product to compute (the arena, not
     null): gemm::small_m() stays out of a library with only Convs */
  if (K > 0 && Nsp > 0)
    __builtin_assume(packed != nullptr);
  Problem<T> pr{Mg,
                Nsp,
                K,
                t.w + grp * Mg * K,
                K,
                1,
                packed,
                nullptr,
                0,
                0,
                t.y + (n * g.M + grp * Mg) * Nsp,
                Nsp,
                1,
                T(1),
                T(1),
                t.bias ? t.bias + grp * Mg : nullptr,
                1,
                0,
                make_act<T>(q.act)};
  pr.mr = q.gemm_mr;
  pr.bsub = conv_b_sub(q, sizeof(T));
  if (t.res) {
    pr.r = t.res + (n * g.M + grp * Mg) * Nsp;
    pr.rsr = Nsp;
  }
  if (conv_b_in_place(q, sizeof(T))) {
    pr.bd = t.x + (n * g.C + grp * Cg) * Nsp;
    pr.ldb = Nsp;
    pr.b_stream = conv_b_streamed(q, sizeof(T));
  }
  if (g.w_packed) {
    pr.a = t.w + grp * packed_a_elems(Mg, K);
    pr.a_packed = 1;
  }
  return pr;
}

/// Many columns: one work item per (group, column block of kNC) packs its columns into the
/// group's scratch and multiplies every row block with them while they are in cache. With
/// `shares` > 0 (conv_panel_shares: one group, a plane of a few column blocks, several
/// threads), the items are instead the threads' shares of B's panels, item i the panels
/// [i P / shares, (i + 1) P / shares): each thread packs and multiplies the columns (pixels) of
/// its own share, which the layer before wrote on the same thread when it split the same way.
/// Column blocks per group of conv_gemm_fused (`shares`, or blocks of kNC), and where block b
/// starts (b == the count: the plane's end).
inline i64 fused_blocks(i64 Nsp, i64 shares) {
  return shares > 0 ? shares : gemm::ceil_div(Nsp, gemm::kNC);
}
template <typename T> inline i64 fused_block_start(i64 Nsp, i64 shares, i64 b) {
  constexpr i64 NR = gemm::nr<T>();
  const i64 start = shares > 0 ? b * gemm::ceil_div(Nsp, NR) / shares * NR : b * gemm::kNC;
  return gemm::min_i(Nsp, start);
}
template <typename T>
ONNXC_GEMM_INLINE void conv_gemm_fused(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t,
                                       i64 n, i64 shares = 0) {
  const ConvParams cp = params_of<ConvParams>(params);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const ConvGeom g(q);
    const i64 Cg = g.C / g.G, K = Cg * g.k_size(), Nsp = g.out_size(), Mg = g.M / g.G;
    const i64 blocks = fused_blocks(Nsp, shares);
    for (i64 it = lo; it < hi; ++it) {
      const i64 grp = it / blocks, b = it % blocks;
      const i64 n0 = fused_block_start<T>(Nsp, shares, b);
      const i64 n1 = fused_block_start<T>(Nsp, shares, b + 1);
      T *cols = t.packed + grp * conv_group_cols_elems(q, sizeof(T));
      /* the tiling is read before any block's calls (gemm::block), so the dispatch folds */
      const gemm::Problem<T> pr = group_problem(q, t, n, grp);
      const gemm::Tiling tl = gemm::tiling(pr);
      /* a share in column blocks of at most kNC, as the kNC items (pack_im2col_small's
         row buffer holds kNC columns) */
      for (i64 c0 = n0; c0 < n1; c0 += gemm::kNC) {
        const i64 c1 = gemm::min_i(n1, c0 + gemm::kNC);
        pack_cols(q, t.x + (n * g.C + grp * Cg) * g.in_size(), cols, K, c0, c1);
        for (i64 m0 = 0; m0 < Mg; m0 += gemm::kMC)
          gemm::block(pr, tl, m0, gemm::min_i(Mg, m0 + gemm::kMC), c0, c1);
      }
    }
  };
  parallel_for(rt, params, cp.G * fused_blocks(cp.w.out_size(), shares), 1, body);
}

/// Row block of the few-columns schedule: gemm::kMC, or fewer (a multiple of gemm::kMR) so that
/// there are at least kConvMinTiles tiles to share between threads.
constexpr i64 kConvMinTiles = 8;
inline i64 split_rows(const ConvParams &q) {
  using namespace gemm;
  const i64 mg = q.M / q.G, per_row_block = q.G * ceil_div(q.w.out_size(), kNC);
  const i64 want = ceil_div(kConvMinTiles, per_row_block);
  const i64 rows = ceil_div(ceil_div(mg, want), kMR) * kMR;
  return rows < kMC ? rows : kMC;
}

/// Few columns: every group's B of images [n, n + imgs) is packed first (one parallel loop over
/// panels), then the (group, row block, image, column block) tiles run in a second one; a
/// thread's consecutive tiles share a row block of W.
template <typename T>
ONNXC_GEMM_INLINE void conv_gemm_split(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t, i64 n,
                                       i64 imgs) {
  using namespace gemm;
  const ConvParams cp = params_of<ConvParams>(params);
  constexpr i64 NR = nr<T>();
  const i64 K = conv_gemm_k(cp), kk = K > 0 ? K : 1, Mg = cp.M / cp.G;
  const i64 Nsp = cp.w.out_size(), panels = ceil_div(Nsp, NR);
  auto pack = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const ConvGeom g(q);
    const i64 np = ceil_div(g.out_size(), NR), Cg = g.C / g.G, k = conv_gemm_k(q);
    const i64 cols = conv_group_cols_elems(q, sizeof(T));
    for (i64 it = lo; it < hi; ++it) {
      const i64 slot = it / (g.G * np), grp = it / np % g.G, pn = it % np;
      T *dst = t.packed + (slot * g.G + grp) * cols;
      pack_cols(q, t.x + ((n + slot) * g.C + grp * Cg) * g.in_size(), dst, k, pn * NR,
                min_i(g.out_size(), pn * NR + NR));
    }
  };
  parallel_for(rt, params, imgs * cp.G * panels, 1 + 4096 / (kk * NR), pack);
  const i64 mc = split_rows(cp), mb = ceil_div(Mg, mc), nb = ceil_div(Nsp, kNC);
  auto tiles = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const i64 mg = q.M / q.G, nsp = q.w.out_size(), rows = split_rows(q);
    const i64 rb = ceil_div(mg, rows), cb = ceil_div(nsp, kNC);
    for (i64 it = lo; it < hi; ++it) {
      const i64 grp = it / (rb * imgs * cb), r = it % (rb * imgs * cb);
      const i64 bm = r / (imgs * cb), slot = r / cb % imgs, bn = r % cb;
      const Problem<T> pr = group_problem(q, t, n + slot, grp, slot);
      block(pr, bm * rows, min_i(mg, bm * rows + rows), bn * kNC, min_i(nsp, bn * kNC + kNC));
    }
  };
  parallel_for(rt, params, cp.G * mb * imgs * nb, 1, tiles);
}

template <typename T>
ONNXC_GEMM_INLINE void conv_gemm(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  const ConvParams cp = params_of<ConvParams>(params);
  if (conv_fused_schedule(cp)) {
    for (i64 n = 0; n < cp.N; ++n)
      conv_gemm_fused(rt, params, t, n);
    return;
  }
  const i64 shares = conv_panel_shares(cp, onnxc_rt_num_threads(rt), sizeof(T));
  if (shares > 0) {
    for (i64 n = 0; n < cp.N; ++n)
      conv_gemm_fused(rt, params, t, n, shares);
    return;
  }
  const i64 imgs = conv_gemm_images(cp, sizeof(T));
  for (i64 n = 0; n < cp.N; n += imgs)
    conv_gemm_split(rt, params, t, n, gemm::min_i(imgs, cp.N - n));
}

/// has_in_scale: ws = W with column k (input channel k of the 1x1 window) times s[k], in W's
/// layout: packed A panels of kMR rows (K x kMR each) when w_packed, else M rows of K. Work
/// items are blocks of kMR output channels.
template <typename T>
ONNXC_GEMM_INLINE void conv_scale_weights(onnxc_rt *rt, const i64 *params, const T *w, const T *s,
                                          T *ws) {
  const ConvParams cp = params_of<ConvParams>(params);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const i64 K = conv_gemm_k(q), R = gemm::kMR;
    for (i64 b = lo; b < hi; ++b) {
      if (q.w_packed) {
        const T *src = w + b * R * K;
        T *dst = ws + b * R * K;
        for (i64 k = 0; k < K; ++k)
          for (i64 i = 0; i < R; ++i)
            dst[k * R + i] = src[k * R + i] * s[k];
      } else {
        for (i64 m = b * R; m < gemm::min_i(q.M, b * R + R); ++m)
          for (i64 k = 0; k < K; ++k)
            ws[m * K + k] = w[m * K + k] * s[k];
      }
    }
  };
  parallel_for(rt, params, gemm::ceil_div(cp.M, gemm::kMR), 4, body);
}

/* ---- depthwise (Cg == 1): each output row is computed in vector registers ---- */

/// Forces the depthwise helpers into the kernel (and the pool's node-specialised body), so the
/// window geometry is a constant in them and the tap loops unroll.
#define ONNXC_DW_INLINE __attribute__((always_inline)) inline

/// Lanes of one vector of T (gemm::Vec: 64 bytes).
template <typename T> constexpr i64 kLanes = i64(64 / sizeof(T));

/// The vector of input elements src[0], src[s], ..., src[(lanes-1)*s] (stride S, or s if S
/// is 0). Stride 2 reads 2 * lanes elements (callers keep them inside the row).
template <typename T, i64 S>
ONNXC_DW_INLINE typename gemm::Vec<T>::type load_strided(const T *src, i64 s) {
  typedef typename gemm::Vec<T>::type V;
  V v;
  if constexpr (S == 1) {
    __builtin_memcpy(&v, src, sizeof v);
  } else if constexpr (S == 2) {
    if constexpr (is_f32<T>) {
      v = load_even_f32(src);
    } else {
      V a, b;
      __builtin_memcpy(&a, src, sizeof a);
      __builtin_memcpy(&b, src + kLanes<T>, sizeof b);
      v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
    }
  } else {
    for (i64 l = 0; l < kLanes<T>; ++l)
      v[l] = src[l * s];
  }
  return v;
}

/// Output columns [o, o + NV*lanes) of RB consecutive output rows from padded input rows
/// (rows[kh] at input column -p, the first output row's): RB x NV accumulators, the window's
/// kH x kW taps unrolled (an input vector that serves several of the RB rows is loaded once),
/// the activation applied in registers; stores n <= NV*lanes elements of each row, or whole
/// vectors when `spill` (the elements past n are output elements that this work item stores
/// again later: the next of the RB rows, stored after this one, or rows after the call).
template <typename T, int NV, int RB, i64 S>
ONNXC_DW_INLINE void dw_buf_vectors(const ConvGeom &g, const Act<T> &act, const T *rows,
                                    i64 rstride, const T *wp, T b0, T *yr, i64 ystride, i64 o,
                                    i64 n, bool spill) {
  typedef typename gemm::Vec<T>::type V;
  constexpr i64 L = kLanes<T>;
  V acc[RB][NV];
  for (int r = 0; r < RB; ++r)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = V{} + b0;
  const i64 s = g.s[2];
  /* Input row j (from the first output row's first) serves output row r through tap row
     kh = (j - r * sh) / dh; each of its vectors is loaded once for all of them. */
  const i64 sh = g.s[1], dh = g.d[1], kH = g.k[1];
  const i64 in_rows = (RB - 1) * sh + (kH - 1) * dh + 1;
  for (i64 j = 0; j < in_rows; ++j) {
    for (i64 kw = 0; kw < g.k[2]; ++kw) {
      V x[NV];
      if constexpr (S == 2) { /* dw_split_row: tap kw's columns are contiguous in one half */
        const i64 c = kw * g.d[2];
        const T *h = rows + j * rstride + ((c & 1) ? (rstride + 1) / 2 : 0) + (c >> 1) + o;
        for (int v = 0; v < NV; ++v)
          __builtin_memcpy(&x[v], h + v * L, sizeof(V));
      } else {
        const T *xb = rows + j * rstride + o * s + kw * g.d[2];
        for (int v = 0; v < NV; ++v)
          x[v] = load_strided<T, S>(xb + v * L * s, s);
      }
      for (int r = 0; r < RB; ++r) {
        const i64 t = j - r * sh;
        if (t < 0 || t % dh != 0 || t / dh >= kH)
          continue;
        const T wv = wp[(t / dh) * g.k[2] + kw];
        for (int v = 0; v < NV; ++v)
          acc[r][v] += wv * x[v];
      }
    }
  }
  for (int r = 0; r < RB; ++r) {
    if (act_is_cheap(act.kind)) /* the others: dw_padded_rows, on the stored row */
      for (int v = 0; v < NV; ++v)
        acc[r][v] = act_vec_cheap(act, acc[r][v]);
    T *y = yr + r * ystride;
    if (n == NV * L || spill)
      __builtin_memcpy(y + o, acc[r], sizeof acc[r]);
    else
      for (i64 i = 0; i < n; ++i)
        y[o + i] = acc[r][0][i];
  }
}

/// Stride 2: padded row xr (columns [c0, c1) from xr, the others zeros; null: all zeros) as its
/// even columns, then its odd ones from br + (wb + 1) / 2, so that each tap's strided input
/// vector is one contiguous load (dw_buf_vectors) instead of two loads and a shuffle per use.
template <typename T>
ONNXC_DW_INLINE void dw_split_row(const T *xr, i64 c0, i64 c1, i64 wb, T *br) {
  const i64 half = (wb + 1) / 2;
  T *ev = br, *od = br + half;
  auto at = [&](i64 c) { return xr && c >= c0 && c < c1 ? xr[c] : T(0); };
  auto pair = [&](i64 i) { /* columns 2i and 2i + 1, either of them maybe padding */
                           ev[i] = at(2 * i);
                           if (2 * i + 1 < wb)
                             od[i] = at(2 * i + 1);
  };
  const i64 i0 = xr ? gemm::min_i((c0 + 1) / 2, half) : half;
  const i64 i1 = xr ? gemm::min_i(c1 / 2, half) : half; /* pairs wholly inside [c0, c1) */
  i64 i = 0;
  for (; i < i0; ++i)
    pair(i);
  if constexpr (is_f32<T>) { /* 16 pairs at a time: two loads, two shuffles, the last 16
                                overlapping the ones before (as scalar moves, this copy was 75%
                                of a 144-channel 56x56 stride-2 layer's time) */
    auto split16 = [&](i64 j) {
      const vf32 a = load_f32(xr + 2 * j), b = load_f32(xr + 2 * j + kVecF32);
      store_f32(ev + j, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24,
                                                26, 28, 30));
      store_f32(od + j, __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25,
                                                27, 29, 31));
    };
    if (i1 - i >= kVecF32) {
      for (; i + kVecF32 <= i1; i += kVecF32)
        split16(i);
      if (i < i1)
        split16(i1 - kVecF32);
      i = i1;
    } else if (i1 - i >= 8) { /* 16 to 31 input columns (28 -> 14): 8 pairs, twice */
      typedef float vf8 __attribute__((vector_size(32)));
      auto split8 = [&](i64 j) {
        vf8 a, b;
        __builtin_memcpy(&a, xr + 2 * j, sizeof a);
        __builtin_memcpy(&b, xr + 2 * j + 8, sizeof b);
        const vf8 e = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
        const vf8 o = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
        __builtin_memcpy(ev + j, &e, sizeof e);
        __builtin_memcpy(od + j, &o, sizeof o);
      };
      split8(i);
      split8(i1 - 8);
      i = i1;
    }
  }
  for (; i < i1; ++i) {
    ev[i] = xr[2 * i];
    od[i] = xr[2 * i + 1];
  }
  for (; i < half; ++i)
    pair(i);
}

/// Copies input rows [ih0, ih0 + rows) of plane xp, zero-padded (rows outside the input and
/// columns outside [p, p + in W) are zeros), into buf (rows of `wb` elements; stride 2: split
/// into even and odd columns, dw_split_row).
template <typename T, i64 S>
ONNXC_DW_INLINE void dw_copy_rows(const ConvGeom &g, const T *xp, i64 ih0, i64 rows, i64 wb,
                                  T *buf) {
  const i64 c0 = gemm::min_i(g.p[2], wb), c1 = gemm::min_i(g.p[2] + g.in[2], wb);
  for (i64 r = 0; r < rows; ++r) {
    const i64 ih = ih0 + r;
    T *br = buf + r * wb;
    const bool in = ih >= 0 && ih < g.in[1];
    if constexpr (S == 2) {
      dw_split_row(in ? xp + ih * g.in[2] - g.p[2] : static_cast<const T *>(nullptr), c0, c1, wb,
                   br);
      continue;
    }
    for (i64 c = 0; c < (in ? c0 : wb); ++c)
      br[c] = T(0);
    if (!in)
      continue;
    const T *xr = xp + ih * g.in[2] - g.p[2];
    for (i64 c = c0; c < c1; ++c)
      br[c] = xr[c];
    for (i64 c = c1; c < wb; ++c)
      br[c] = T(0);
  }
}

/// 1-D/2-D windows: output rows [l0, l1) of one plane from its zero-padded input rows, copied
/// into this work item's part of the scratch: every row is vectors left to right (4, then 1,
/// the last overlapping its neighbour; rows narrower than a vector store part of one).
template <typename T, i64 S>
ONNXC_DW_INLINE void dw_padded_block(const ConvGeom &g, const Act<T> &act, const T *xp, const T *wp,
                                     T b0, T *yp, i64 l0, i64 l1, T *buf, i64 wb) {
  constexpr i64 L = kLanes<T>;
  const i64 W = g.out[2];
  dw_copy_rows<T, S>(g, xp, l0 * g.s[1] - g.p[1],
                     (l1 - l0 - 1) * g.s[1] + (g.k[1] - 1) * g.d[1] + 1, wb, buf);
  i64 oh = l0;
  /* 4 rows at a time: 4 independent accumulators per column vector, each input vector loaded
     once for the rows it serves (one row at a time, a row narrower than 4 vectors had one
     chain of kH x kW dependent FMAs per vector, and every input vector was loaded once per
     tap row). A row narrower than a vector stores a whole vector into the rows after it,
     which are stored later: 4 at a time while the rows up to l1 take the last one's tail. */
  if (W < L)
    for (; oh + 4 <= l1 && (l1 - oh - 3) * W >= L; oh += 4)
      dw_buf_vectors<T, 1, 4, S>(g, act, buf + (oh - l0) * g.s[1] * wb, wb, wp, b0, yp + oh * W, W,
                                 0, W, true);
  else
    for (; oh + 4 <= l1; oh += 4) {
      const T *rows = buf + (oh - l0) * g.s[1] * wb;
      T *yr = yp + oh * W;
      i64 o = 0;
      for (; o + L <= W; o += L)
        dw_buf_vectors<T, 1, 4, S>(g, act, rows, wb, wp, b0, yr, W, o, L, false);
      if (o < W) /* the last vector overlaps the one before */
        dw_buf_vectors<T, 1, 4, S>(g, act, rows, wb, wp, b0, yr, W, W - L, L, false);
    }
  for (; oh < l1; ++oh) {
    const T *rows = buf + (oh - l0) * g.s[1] * wb;
    T *yr = yp + oh * W;
    i64 o = 0;
    for (; o + 4 * L <= W; o += 4 * L)
      dw_buf_vectors<T, 4, 1, S>(g, act, rows, wb, wp, b0, yr, W, o, 4 * L, false);
    for (; o + L <= W; o += L)
      dw_buf_vectors<T, 1, 1, S>(g, act, rows, wb, wp, b0, yr, W, o, L, false);
    if (o < W) {
      if (W >= L) /* the last vector overlaps the one before */
        dw_buf_vectors<T, 1, 1, S>(g, act, rows, wb, wp, b0, yr, W, W - L, L, false);
      else /* a whole vector when the rows after it, up to l1, take its tail */
        dw_buf_vectors<T, 1, 1, S>(g, act, rows, wb, wp, b0, yr, W, 0, W, (l1 - oh) * W >= L);
    }
  }
  /* the activations that are not a few selects: on the work item's finished rows, contiguous
     and still in cache, in one pass (whole vectors but for one tail) */
  if (act.kind != kActNone && !act_is_cheap(act.kind))
    apply_act_row(act, yp + l0 * W, (l1 - l0) * W, 1);
}

/// Output rows [l0, l1) in blocks of at most `block` rows (conv_dw_block_lines), each from its
/// own copy of the input rows in buf.
template <typename T, i64 S>
ONNXC_DW_INLINE void dw_padded_rows(const ConvGeom &g, const Act<T> &act, const T *xp, const T *wp,
                                    T b0, T *yp, i64 l0, i64 l1, T *buf, i64 wb, i64 block) {
  for (i64 b = l0; b < l1; b += block)
    dw_padded_block<T, S>(g, act, xp, wp, b0, yp, b, gemm::min_i(b + block, l1), buf, wb);
}

/// Output rows [l0, l1) of output channel m of image n; buf: the work item's part of the scratch.
template <typename T>
ONNXC_DW_INLINE void dw_rows(const ConvParams &q, const Act<T> &act, const ConvPtrs<T> &t, i64 n,
                             i64 m, i64 l0, i64 l1, T *buf) {
  const ConvGeom g(q);
  const i64 Mg = g.M / g.G, c = m / Mg, ks = g.k_size(); /* Cg == 1: channel = group */
  const T *xp = t.x + (n * g.C + c) * g.in_size(), *wp = t.w + m * ks;
  T *yp = t.y + (n * g.M + m) * g.out_size();
  const T b0 = t.bias ? t.bias[m] : T(0);
  const i64 wb = conv_dw_row_elems(q, sizeof(T)), block = conv_dw_block_lines(q);
  if (g.s[2] == 1)
    dw_padded_rows<T, 1>(g, act, xp, wp, b0, yp, l0, l1, buf, wb, block);
  else if (g.s[2] == 2)
    dw_padded_rows<T, 2>(g, act, xp, wp, b0, yp, l0, l1, buf, wb, block);
  else
    dw_padded_rows<T, 0>(g, act, xp, wp, b0, yp, l0, l1, buf, wb, block);
}

/// Depthwise: work items are (image, channel, block of output rows), enough for every thread.
template <typename T>
ONNXC_GEMM_INLINE void conv_depthwise(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  const ConvParams cp = params_of<ConvParams>(params);
  const i64 items = cp.N * cp.M * conv_dw_splits(cp);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const Act<T> act = make_act<T>(q.act);
    const i64 nl = q.w.out[0] * q.w.out[1], sp = conv_dw_splits(q);
    const i64 per_item = conv_dw_item_rows(q) * conv_dw_row_elems(q, sizeof(T));
    for (i64 it = lo; it < hi; ++it) {
      const i64 plane = it / sp, part = it % sp;
      T *buf = t.packed + it * per_item;
      dw_rows(q, act, t, plane / q.M, plane % q.M, part * nl / sp, (part + 1) * nl / sp, buf);
    }
  };
  const i64 work = cp.w.out_size() * cp.w.k_size() / conv_dw_splits(cp);
  parallel_for(rt, params, items, 1 + 8192 / (work > 0 ? work : 1), body);
}

/* ---- depthwise on channel vectors (kConvDwChannels, float): see conv_params.h ---- */

/// r[i][j] <- r[j][i] for 8 vectors of 8 floats: pairs interleaved, then pairs of pairs, then
/// the halves exchanged (24 shuffles, all in registers on AVX2: a 16 x 16 transposition of
/// 64-byte vectors needs 32 ymm and spilled every one of its rounds there, half of this path's
/// time on a 576-channel 14x14 layer, session 32).
ONNXC_DW_INLINE void transpose8(vf32h r[8]) {
  vf32h t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = __builtin_shufflevector(r[2 * i], r[2 * i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[2 * i + 1] = __builtin_shufflevector(r[2 * i], r[2 * i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int h = 0; h < 2; ++h) { /* rows 4h .. 4h + 3 */
    const vf32h *p = t + 4 * h;
    u[4 * h] = __builtin_shufflevector(p[0], p[2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[4 * h + 1] = __builtin_shufflevector(p[0], p[2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[4 * h + 2] = __builtin_shufflevector(p[1], p[3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[4 * h + 3] = __builtin_shufflevector(p[1], p[3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[i + 4] = __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

/// Output pixels [ow0, ow0 + RB) of one output row from its band's scratch rows (srow: the row
/// of tap row 0, rows `rs` elements apart, pixel 0 at input column -p): RB accumulators, each
/// tap's weight vector loaded once for all of them (stride S, or g.s[2] when S is 0).
template <int RB, i64 S>
ONNXC_DW_INLINE void dwc_pixels(const ConvGeom &g, const float *wv, vf32 bias, const float *srow,
                                i64 rs, i64 ow0, float *out) {
  constexpr i64 L = kDwcLanes;
  const i64 s = S ? S : g.s[2], dw = g.d[2], kW = g.k[2];
  vf32 acc[RB];
  for (int r = 0; r < RB; ++r)
    acc[r] = bias;
  for (i64 kh = 0; kh < g.k[1]; ++kh) {
    const float *row = srow + kh * g.d[1] * rs + ow0 * s * L;
    for (i64 kw = 0; kw < kW; ++kw) {
      const vf32 w = load_f32(wv + (kh * kW + kw) * L);
      const float *x = row + kw * dw * L;
#pragma GCC unroll 8
      for (int r = 0; r < RB; ++r)
        acc[r] += w * load_f32(x + r * s * L);
    }
  }
  for (int r = 0; r < RB; ++r)
    store_f32(out + (ow0 + r) * L, acc[r]);
}

/// dwc_pixels for a window KW wide, dilation 1 and stride S (all constants): each input
/// vector is loaded once for the (up to KW) taps and pixels it serves, the loops unrolled here.
template <int RB, i64 S, int KW>
ONNXC_DW_INLINE void dwc_pixels_k(const ConvGeom &g, const float *wv, vf32 bias, const float *srow,
                                  i64 rs, i64 ow0, float *out) {
  constexpr i64 L = kDwcLanes;
  constexpr int span = (RB - 1) * S + KW;
  vf32 acc[RB];
#pragma GCC unroll 16
  for (int r = 0; r < RB; ++r)
    acc[r] = bias;
  for (i64 kh = 0; kh < g.k[1]; ++kh) {
    const float *row = srow + kh * g.d[1] * rs + ow0 * S * L;
    vf32 w[KW];
#pragma GCC unroll 8
    for (int kw = 0; kw < KW; ++kw)
      w[kw] = load_f32(wv + (kh * KW + kw) * L);
#pragma GCC unroll 64
    for (int j = 0; j < span; ++j) {
      const vf32 x = load_f32(row + j * L);
#pragma GCC unroll 16
      for (int r = 0; r < RB; ++r) {
        const int t = j - r * int(S);
        if (t >= 0 && t < KW)
          acc[r] += w[t] * x;
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < RB; ++r)
    store_f32(out + (ow0 + r) * L, acc[r]);
}

/// dwc_pixels through dwc_pixels_k where the window is one of the unrolled shapes.
template <int RB, i64 S>
ONNXC_DW_INLINE void dwc_block(const ConvGeom &g, const float *wv, vf32 bias, const float *srow,
                               i64 rs, i64 ow0, float *out) {
  if constexpr ((S == 1 || S == 2) && RB > 1) {
    if (g.d[2] == 1 && g.k[2] == 3)
      return dwc_pixels_k<RB, S, 3>(g, wv, bias, srow, rs, ow0, out);
    if (g.d[2] == 1 && g.k[2] == 5)
      return dwc_pixels_k<RB, S, 5>(g, wv, bias, srow, rs, ow0, out);
  }
  dwc_pixels<RB, S>(g, wv, bias, srow, rs, ow0, out);
}

/// One output row (W pixels) into out: blocks of 8 (or 4) pixels, the last block overlapping
/// the one before (its pixels are computed again, with the same result).
template <i64 S>
ONNXC_DW_INLINE void dwc_row(const ConvGeom &g, const float *wv, vf32 bias, const float *srow,
                             i64 rs, float *out) {
  const i64 W = g.out[2];
  if (W >= 8) { /* one call site per block shape: the code exists once */
    for (i64 o = 0; o < W; o += 8)
      dwc_block<8, S>(g, wv, bias, srow, rs, o + 8 <= W ? o : W - 8, out);
  } else if (W >= 4) {
    for (i64 o = 0; o < W; o += 4)
      dwc_block<4, S>(g, wv, bias, srow, rs, o + 4 <= W ? o : W - 4, out);
  } else {
    for (i64 o = 0; o < W; ++o)
      dwc_block<1, S>(g, wv, bias, srow, rs, o, out);
  }
}

/// The 16 pixels x[0 .. 16) of channels 0 .. nc (planes `plane` apart) as one vector of
/// channels each, pixel j's at dst(j) (lanes past nc zero): four 8 x 8 blocks, each loaded,
/// transposed and stored in registers.
template <typename Dst>
ONNXC_DW_INLINE void dwc_load_pixels(const float *x, i64 plane, i64 nc, Dst &&dst) {
  static_assert(kDwcLanes == 16, "two 8-lane halves per channel vector");
  for (i64 cb = 0; cb < 2; ++cb)
    for (i64 ph = 0; ph < 2; ++ph) {
      vf32h r[8];
      for (i64 l = 0; l < 8; ++l)
        r[l] = cb * 8 + l < nc ? load_f32h(x + (cb * 8 + l) * plane + ph * 8) : vf32h{};
      transpose8(r);
      for (i64 j = 0; j < 8; ++j)
        store_f32h(dst(ph * 8 + j) + cb * 8, r[j]);
    }
}

/// Input rows [ih0, ih0 + rows) of channels c0 .. c0 + nc of one image (x: channel c0's plane)
/// into buf as pixel vectors (rows of `cols` pixels, input column iw at pixel p + iw), lanes of
/// missing channels, padding columns and rows outside the input zero.
ONNXC_DW_INLINE void dwc_load_rows(const ConvGeom &g, const float *x, i64 nc, i64 ih0, i64 rows,
                                   i64 cols, float *buf) {
  constexpr i64 L = kDwcLanes;
  const i64 Wi = g.in[2], plane = g.in_size(), pl = g.p[2];
  const i64 a = ih0 > 0 ? ih0 : 0, b = gemm::min_i(ih0 + rows, g.in[1]);
  const vf32 zero = {};
  for (i64 r = 0; r < rows; ++r) { /* zeros: whole rows outside the input, padding columns */
    float *br = buf + r * cols * L;
    const bool in = ih0 + r >= a && ih0 + r < b;
    for (i64 c = 0; c < cols; ++c)
      if (!in || c < pl || c >= pl + Wi)
        store_f32(br + c * L, zero);
  }
  if (b <= a)
    return;
  const float *x0 = x + a * Wi;
  float *b0 = buf + (a - ih0) * cols * L;
  if (Wi >= L) { /* row by row, 16 pixels at a time, the last 16 overlapping the ones before */
    for (i64 r = 0; r < b - a; ++r)
      for (i64 c = 0; c < Wi; c += L) {
        const i64 c1 = c + L <= Wi ? c : Wi - L;
        float *d = b0 + (r * cols + pl + c1) * L;
        dwc_load_pixels(x0 + r * Wi + c1, plane, nc, [&](i64 j) { return d + j * L; });
      }
    return;
  }
  /* narrow rows: the input rows [a, b) of each channel are one run of (b - a) * Wi elements */
  const i64 q1 = (b - a) * Wi;
  i64 q = 0, c = 0;                 /* pixel q is column c of its row */
  float *d = b0 + pl * L;           /* where pixel q goes */
  const i64 skip = (cols - Wi) * L; /* from a row's last pixel to the next row's first */
  for (; q + L <= q1; q += L) {
    float *dp[kDwcLanes];
    for (i64 j = 0; j < L; ++j) {
      dp[j] = d;
      d += L;
      if (++c == Wi) {
        c = 0;
        d += skip;
      }
    }
    dwc_load_pixels(x0 + q, plane, nc, [&](i64 j) { return dp[j]; });
  }
  for (; q < q1; ++q) {
    for (i64 l = 0; l < L; ++l)
      d[l] = l < nc ? x0[l * plane + q] : 0.0f;
    d += L;
    if (++c == Wi) {
      c = 0;
      d += skip;
    }
  }
}

/// Stores n pixel vectors of out (the band's output pixels) into channels c0 .. c0 + nc of
/// one image (y: channel c0's plane, at the band's first pixel).
ONNXC_DW_INLINE void dwc_store_pixels(const float *out, i64 n, i64 nc, i64 plane, float *y) {
  constexpr i64 L = kDwcLanes;
  i64 q = 0;
  for (; q + L <= n; q += L) /* four 8 x 8 blocks, as dwc_load_pixels */
    for (i64 cb = 0; cb < 2; ++cb)
      for (i64 ph = 0; ph < 2; ++ph) {
        vf32h r[8];
        for (i64 j = 0; j < 8; ++j)
          r[j] = load_f32h(out + (q + ph * 8 + j) * L + cb * 8);
        transpose8(r);
        for (i64 l = 0; l < 8; ++l)
          if (cb * 8 + l < nc)
            store_f32h(y + (cb * 8 + l) * plane + q + ph * 8, r[l]);
      }
  for (; q < n; ++q)
    for (i64 l = 0; l < nc; ++l)
      y[l * plane + q] = out[q * L + l];
}

/// One work item: image n, channels [c0, c0 + nc), output rows [l0, l1), in scratch buf. Out of
/// line and shared by every node (one copy per stride class, the hot loops specialised by
/// template on the window's width and the stride): specialised for each node, every depthwise
/// node had ~8 KB of its own (twice: the serial and the thread pool's body; tests/static budget).
template <i64 S>
__attribute__((noinline)) void dwc_item(const ConvGeom &g, const Act<float> &act,
                                        const ConvPtrs<float> &t, i64 n, i64 c0, i64 nc, i64 l0,
                                        i64 l1, i64 cols, float *buf) {
  constexpr i64 L = kDwcLanes;
  const i64 ks = g.k_size(), Wo = g.out[2];
  alignas(64) float gathered[kDwcMaxTaps * L];
  const float *wv = gathered;
  if (g.w_packed) /* conv_dwc_pack_weights: the block's taps are vectors already */
    wv = t.w + (c0 / L) * ks * L;
  else
    conv_pack_channel_block(g.M, ks, L, t.w, c0 / L, gathered);
  vf32 bias = {};
  if (t.bias)
    for (i64 l = 0; l < nc; ++l)
      bias[l] = t.bias[c0 + l];
  const i64 rows = (l1 - l0 - 1) * g.s[1] + (g.k[1] - 1) * g.d[1] + 1;
  dwc_load_rows(g, t.x + (n * g.C + c0) * g.in_size(), nc, l0 * g.s[1] - g.p[1], rows, cols, buf);
  float *out = buf + rows * cols * L;
  const i64 rs = cols * L;
  for (i64 oh = l0; oh < l1; ++oh)
    dwc_row<S>(g, wv, bias, buf + (oh - l0) * g.s[1] * rs, rs, out + (oh - l0) * Wo * L);
  const i64 pixels = (l1 - l0) * Wo;
  if (act.kind != kActNone) /* every kind, on the band's pixels in cache (small code) */
    apply_act_row(act, out, pixels * L, 1);
  dwc_store_pixels(out, pixels, nc, g.out_size(), t.y + (n * g.M + c0) * g.out_size() + l0 * Wo);
}

/// Depthwise on channel vectors: one lane per thread (at most dwc_lanes), each running a
/// contiguous range of items in turn in its part of the scratch, which stays in cache. (Items
/// dealt out in turn, l, l + lanes, ..., interleave the threads' channel blocks, whose rows the
/// hardware prefetchers then fetch for the wrong core: 1152 channels at 7x7, 5x5, 2 threads
/// 28.2 -> 26.9 us.)
template <typename T>
ONNXC_GEMM_INLINE void conv_dw_channels(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  if constexpr (is_f32<T>) {
    const ConvParams cp = params_of<ConvParams>(params);
    const i64 threads = onnxc_rt_num_threads(rt), most = dwc_lanes(cp, 4);
    const i64 used = threads < most ? threads : most;
    auto body = [&](const i64 *pp, i64 lo, i64 hi) {
      const ConvParams q = params_of<ConvParams>(pp);
      const ConvGeom g(q);
      const Act<float> act = make_act<float>(q.act);
      const i64 blocks = dwc_blocks(q), bands = dwc_bands(q, 4), lines = dwc_band_lines(q, 4);
      const i64 items = dwc_items(q, 4), lanes = used, cols = dwc_cols(q);
      for (i64 lane = lo; lane < hi; ++lane) {
        float *buf = t.packed + lane * dwc_lane_elems(q, 4);
        for (i64 it = lane * items / lanes; it < (lane + 1) * items / lanes; ++it) {
          const i64 n = it / (blocks * bands), cb = (it / bands) % blocks, band = it % bands;
          const i64 c0 = cb * kDwcLanes, nc = gemm::min_i(kDwcLanes, g.M - c0);
          const i64 l0 = band * lines, l1 = gemm::min_i(g.out[1], l0 + lines);
          if (g.s[2] == 1)
            dwc_item<1>(g, act, t, n, c0, nc, l0, l1, cols, buf);
          else if (g.s[2] == 2)
            dwc_item<2>(g, act, t, n, c0, nc, l0, l1, cols, buf);
          else
            dwc_item<0>(g, act, t, n, c0, nc, l0, l1, cols, buf);
        }
      }
    };
    parallel_for(rt, params, used, 1, body);
  } else {
    (void)rt, (void)params, (void)t; /* the lowering chooses kConvDwChannels for float only */
  }
}
} // namespace
} // namespace onnxc_k

#include "templates/cpu/conv_winograd.h"

namespace onnxc_k {
namespace {

/* ---- kConvFewChannels (conv_params.h): direct, on stride-phase rows ---- */

/// NV vectors of output row oh's pixels ow0 .. ow0 + npx (npx <= 16 NV) for output channels
/// MB0 .. MB0 + MBN of the kFewMB of block m0 (nm of them exist): every tap's pixel vectors are
/// loaded once from the phase rows `ph` (the image's, C x rows x S x pc) and multiplied by each
/// channel's weight (wb: kFewMB per tap); bias, and the cheap activations in registers (the
/// others are the caller's, once per band: per call here, their setup cost as much as the
/// vectors). The MBN x NV accumulators must fit in the target's registers: 8 x 3 zmm with
/// AVX-512; targets with fewer (GEMM tiles under kMR rows) run 4 x 1 (8 ymm with AVX2) twice.
template <int NV, int MB0 = 0, int MBN = kFewMB>
ONNXC_DW_INLINE void few_pixels(const ConvGeom &g, const Act<float> &act, const float *wb,
                                const float *bias, const float *ph, i64 rows, i64 pc, i64 oh,
                                i64 ow0, i64 npx, float *y, i64 m0, i64 nm) {
  constexpr i64 L = kVecF32;
  const i64 S = g.s[2];
  vf32 acc[MBN][NV];
#pragma GCC unroll 8
  for (int m = 0; m < MBN; ++m)
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      acc[m][v] = vf32{} + bias[MB0 + m];
  const float *w = wb;
  for (i64 c = 0; c < g.C; ++c)
    for (i64 kh = 0; kh < g.k[1]; ++kh) {
      const float *prow = ph + (c * rows + oh * g.s[1] + kh) * S * pc + ow0;
      for (i64 kw = 0; kw < g.k[2]; ++kw, w += kFewMB) {
        const float *src = prow + (kw % S) * pc + kw / S;
        vf32 iv[NV];
#pragma GCC unroll 3
        for (int v = 0; v < NV; ++v)
          iv[v] = load_f32(src + v * L);
#pragma GCC unroll 8
        for (int m = 0; m < MBN; ++m) {
          const float wm = w[MB0 + m];
#pragma GCC unroll 3
          for (int v = 0; v < NV; ++v)
            acc[m][v] += wm * iv[v];
        }
      }
    }
  const bool cheap = act_is_cheap(act.kind);
  const i64 plane = g.out[1] * g.out[2];
#pragma GCC unroll 8
  for (int m = 0; m < MBN; ++m) {
    if (MB0 + m >= nm)
      break;
    float *yr = y + (m0 + MB0 + m) * plane + oh * g.out[2] + ow0;
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v) {
      const vf32 o = cheap ? act_vec_cheap(act, acc[m][v]) : acc[m][v];
      if ((v + 1) * L <= npx)
        store_f32(yr + v * L, o);
      else if (v * L < npx)
        __builtin_memcpy(yr + v * L, &o, sizeof(float) * (npx - v * L));
    }
  }
}

/// kConvFewChannels: per image, the phase rows first (one parallel loop over input rows), then
/// the (channel block, band of rows) items: block-major on one thread (a block's weights serve
/// all its bands), band-major on several (split_rows).
template <typename T>
ONNXC_GEMM_INLINE void conv_few_channels(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  if constexpr (is_f32<T>) {
    const ConvParams cp = params_of<ConvParams>(params);
    const i64 bands = gemm::ceil_div(cp.w.out[1], kFewBandRows);
    /* Several threads split the rows: the phase rows are packed row-major and the items run
       band-major, so each thread computes the bands of the rows it packed (block-major, each
       thread read all the phase rows, half of them from the other core: 16 channels 112x112
       stride 2 at 2 threads 0.22 -> 0.15 ms). One thread keeps block-major items (a block's
       weights for all its bands; band-major cost U-Net's 3-channel stem 5%). */
    const bool split_rows = onnxc_rt_num_threads(rt) > 1;
    for (i64 n = 0; n < cp.N; ++n) {
      auto pack = [&](const i64 *pp, i64 lo, i64 hi) {
        const ConvParams q = params_of<ConvParams>(pp);
        const ConvGeom g(q);
        const i64 rows = few_rows(q), pc = few_phase_cols(q), S = g.s[2];
        for (i64 it = lo; it < hi; ++it) { /* it: padded row r, channel c (threads > 1) */
          const i64 r = split_rows ? it / g.C : it % rows, c = split_rows ? it % g.C : it / rows;
          const i64 ih = r - g.p[1];
          const float *xrow =
              ih >= 0 && ih < g.in[1] ? t.x + (n * g.C + c) * g.in_size() + ih * g.in[2] : nullptr;
          pad_phase_rows(g, xrow, S, S, pc, t.packed + (c * rows + r) * S * pc);
        }
      };
      parallel_for(rt, params, cp.C * few_rows(cp), 16, pack);
      auto body = [&](const i64 *pp, i64 lo, i64 hi) {
        const ConvParams q = params_of<ConvParams>(pp);
        const ConvGeom g(q);
        const Act<float> act = make_act<float>(q.act);
        const i64 K = g.C * g.k_size(), rows = few_rows(q), pc = few_phase_cols(q);
        const i64 W = g.out[2], nbk = few_blocks(q), nb = gemm::ceil_div(g.out[1], kFewBandRows);
        float *y = t.y + n * g.M * g.out[1] * g.out[2];
        /* W not pre-packed: the lowering keeps K within kFewGatherTaps */
        alignas(64) float gathered[kFewGatherTaps * kFewMB];
        i64 have = -1;
        for (i64 it = lo; it < hi; ++it) {
          const i64 band = split_rows ? it / nbk : it % nb, b = split_rows ? it % nbk : it / nb;
          const i64 m0 = b * kFewMB;
          const float *wb = gathered;
          if (g.w_packed) /* conv_few_pack_weights */
            wb = t.w + b * K * kFewMB;
          else if (have != b) {
            conv_pack_channel_block(g.M, K, kFewMB, t.w, b, gathered);
            have = b;
          }
          float bias[kFewMB];
          for (i64 l = 0; l < kFewMB; ++l)
            bias[l] = t.bias && m0 + l < g.M ? t.bias[m0 + l] : 0.0f;
          const i64 nm = gemm::min_i(kFewMB, g.M - m0), r0 = band * kFewBandRows;
          const i64 r1 = gemm::min_i(g.out[1], r0 + kFewBandRows);
          for (i64 oh = r0; oh < r1; ++oh) {
            i64 ow = 0;
            if (q.gemm_mr > 0 && q.gemm_mr < gemm::kMR) { /* few registers: 4 channels x 1 */
              for (; ow < W; ow += kVecF32) {
                const i64 n = gemm::min_i(kVecF32, W - ow);
                few_pixels<1, 0, 4>(g, act, wb, bias, t.packed, rows, pc, oh, ow, n, y, m0, nm);
                if (nm > 4)
                  few_pixels<1, 4, 4>(g, act, wb, bias, t.packed, rows, pc, oh, ow, n, y, m0, nm);
              }
              continue;
            }
            for (; ow + 3 * kVecF32 <= W; ow += 3 * kVecF32)
              few_pixels<3>(g, act, wb, bias, t.packed, rows, pc, oh, ow, 3 * kVecF32, y, m0, nm);
            const i64 rest = W - ow;
            if (rest > 2 * kVecF32)
              few_pixels<3>(g, act, wb, bias, t.packed, rows, pc, oh, ow, rest, y, m0, nm);
            else if (rest > kVecF32)
              few_pixels<2>(g, act, wb, bias, t.packed, rows, pc, oh, ow, rest, y, m0, nm);
            else if (rest > 0)
              few_pixels<1>(g, act, wb, bias, t.packed, rows, pc, oh, ow, rest, y, m0, nm);
          }
          if (act.kind != kActNone && !act_is_cheap(act.kind)) /* each channel's band rows */
            for (i64 m = 0; m < nm; ++m)
              apply_act_row(act, y + (m0 + m) * g.out[1] * W + r0 * W, (r1 - r0) * W, 1);
        }
      };
      parallel_for(rt, params, few_blocks(cp) * bands, 1, body);
    }
  } else {
    (void)rt, (void)params, (void)t; /* the lowering chooses kConvFewChannels for float only */
  }
}

/* ---- kConvChanVec (conv_params.h): direct, output channels in the lanes ---- */

/// Requests the line of p[off] (off may lead past p's buffer, as the requests past a block's
/// last tap or channel do: the address is computed as an integer, a request does not fault).
inline void prefetch_at(const float *p, i64 off) {
  __builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<uintptr_t>(p) +
                                                    uintptr_t(off) * sizeof(float)));
}

/// W's rows are requested this many taps ahead (4 KiB): a block's W comes from memory for its
/// first tile (ResNet-50's 512-channel 14 -> 7 conv in the model, 1 thread: 2.25 -> 2.05 ms).
constexpr i64 kCvPrefetchTaps = 32;
/// Padded planes of at least this many elements (8 KiB) have each tile's input rows requested
/// one channel ahead: rows a plane apart are no stream that the hardware prefetchers follow.
/// 128 channels 56 -> 28 stride 2, 1 thread: 1.71 -> 1.55 ms; on 15 x 15 planes (256 -> 512
/// channels 14 -> 7) the requests cost 4% instead.
constexpr i64 kCvPrefetchPlane = 2048;

/// The P pixels from ow0 (npx of them exist) of output row oh for H x 16 of the kCvOC channels
/// of block m0 from its channel h0 (wb: the block's packed weights, kCvOC per channel and tap):
/// per tap the H weight vectors are loaded once and each pixel's input element (from the
/// padded input xp, cv_rows x cv_cols per channel) is broadcast; bias and the cheap activations
/// in registers; each pixel's channels go to their planes (channels past M are not stored).
/// H = 2 (the whole block) with up to kCvPx pixels on AVX-512; H = 1 with up to kCvFewPx on
/// targets with 16 vector registers (AVX2: 2 ymm per vector, 12 accumulators), where 2 x 12
/// vectors would spill.
template <int P, int H>
ONNXC_DW_INLINE void cv_tile(const ConvGeom &g, const Act<float> &act, const float *wb,
                             const float *bias, const float *xp, i64 rows, i64 cols, i64 oh,
                             i64 ow0, i64 npx, float *y, const float *res, i64 m0, i64 h0) {
  constexpr i64 L = kVecF32;
  static_assert(kCvOC == 2 * L && H >= 1 && H <= 2, "one or two weight vectors per tap");
  const i64 Sx = g.s[2];
  vf32 acc[H][P];
#pragma GCC unroll 2
  for (int h = 0; h < H; ++h) {
    vf32 b;
    __builtin_memcpy(&b, bias + h0 + h * L, sizeof b);
#pragma GCC unroll 12
    for (int j = 0; j < P; ++j)
      acc[h][j] = b;
  }
  const float *w = wb + h0;
  for (i64 c = 0; c < g.C; ++c)
    for (i64 kh = 0; kh < g.k[1]; ++kh) {
      const float *row = xp + (c * rows + oh * g.s[1] + kh) * cols + ow0 * Sx;
      if (rows * cols >= kCvPrefetchPlane) { /* the same row of the next channel */
        prefetch_at(row, rows * cols);
        prefetch_at(row, rows * cols + (P - 1) * Sx + g.k[2] - 1);
      }
      for (i64 kw = 0; kw < g.k[2]; ++kw, w += kCvOC) {
        vf32 wv[H];
#pragma GCC unroll 2
        for (int h = 0; h < H; ++h) {
          prefetch_at(w, kCvPrefetchTaps * kCvOC + h * L);
          wv[h] = load_f32(w + h * L);
        }
#pragma GCC unroll 12
        for (int j = 0; j < P; ++j) {
          const float x = row[j * Sx + kw];
#pragma GCC unroll 2
          for (int h = 0; h < H; ++h)
            acc[h][j] += x * wv[h];
        }
      }
    }
  const bool cheap = act_is_cheap(act.kind);
  const i64 plane = g.out[1] * g.out[2], nm = gemm::min_i(H * L, g.M - m0 - h0);
  const i64 at = (m0 + h0) * plane + oh * g.out[2] + ow0;
  float *yr = y + at;
#pragma GCC unroll 12
  for (int j = 0; j < P; ++j) {
    if (j >= npx)
      break;
    alignas(64) float o[H * L];
    if (res) { /* the fused residual, after the bias and before the activation */
      for (i64 m = 0; m < H * L; ++m)
        o[m] = m < nm ? res[at + m * plane + j] : 0.0f;
#pragma GCC unroll 2
      for (int h = 0; h < H; ++h)
        acc[h][j] += load_f32(o + h * L);
    }
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h)
      store_f32(o + h * L, cheap ? act_vec_cheap(act, acc[h][j]) : acc[h][j]);
    for (i64 m = 0; m < nm; ++m)
      yr[m * plane + j] = o[m];
  }
}

/// One pixel's first nm channels (of kVecF32) from channel planes `plane` elements apart, the
/// other lanes zero.
ONNXC_DW_INLINE vf32 cv_gather_pixel(const float *at, i64 plane, i64 nm) {
  alignas(64) float o[kVecF32];
  for (i64 m = 0; m < kVecF32; ++m)
    o[m] = m < nm ? at[m * plane] : 0.0f;
  return load_f32(o);
}

/// A tile of P pixels (npx of them exist) from flat pixel q0 of the output plane (rows oh * OW
/// + ow, so a tile may span output rows) for the 16 channels from h0 of block m0, on targets
/// with 16 vector registers (conv_few_tile_rows: 2 ymm per vector, up to kCvFewPx x 2
/// accumulators). Row tiles there were two sub-tiles of 4 and 3 pixels on 7-, 14- and
/// 28-pixel rows (cv_tile_px 7 or 10), each reading the half block's C x taps x 16 weights
/// from L2 for 3.5 pixels on average: flat tiles of 6 read them for 6, with 12 accumulators
/// instead of 8 and 6. Each pixel's input is at its own offset in the padded input (pixels
/// past npx repeat the last one, so every read stays inside it); the channels are stored to
/// their planes, the tile's pixels consecutive in each.
template <int P>
ONNXC_DW_INLINE void cv_tile_flat(const ConvGeom &g, const Act<float> &act, const float *wb,
                                  const float *bias, const float *xp, i64 rows, i64 cols, i64 q0,
                                  i64 npx, float *y, const float *res, i64 m0, i64 h0, i64 c0,
                                  i64 c1) {
  static_assert(P >= 1 && P <= kCvFewPx, "a sub-tile's accumulators fit 16 registers");
  const i64 OW = g.out[2];
  i64 off[P];
#pragma GCC unroll 6
  for (int j = 0; j < P; ++j) {
    const i64 q = q0 + (j < npx ? j : npx - 1);
    off[j] = q / OW * g.s[1] * cols + q % OW * g.s[2];
  }
  const i64 OH = g.out[1], plane = OH * OW, nm = gemm::min_i(kVecF32, g.M - m0 - h0);
  const i64 at = (m0 + h0) * plane + q0;
  float *yr = y + at;
  vf32 acc[P];
  if (c0 == 0) { /* the first chunk of channels starts from the bias and the fused residual:
                    Y may be the residual's buffer (plan-memory), and the partial sums this
                    chunk stores there would overwrite the residual before a later chunk read it */
    vf32 b;
    __builtin_memcpy(&b, bias + h0, sizeof b);
#pragma GCC unroll 6
    for (int j = 0; j < P; ++j)
      acc[j] = res ? b + cv_gather_pixel(res + at + j, plane, j < npx ? nm : 0) : b;
  } else { /* later ones from the partial sums the chunks before stored */
#pragma GCC unroll 6
    for (int j = 0; j < P; ++j)
      acc[j] = cv_gather_pixel(yr + j, plane, j < npx ? nm : 0);
  }
  const float *w = wb + c0 * g.k[1] * g.k[2] * kCvOC + h0;
  const bool prefetch_plane = rows * cols >= kCvPrefetchPlane;
  for (i64 c = c0; c < c1; ++c)
    for (i64 kh = 0; kh < g.k[1]; ++kh) {
      const float *row = xp + (c * rows + kh) * cols;
      if (prefetch_plane) { /* the same rows of the next channel */
        prefetch_at(row + off[0], rows * cols);
        prefetch_at(row + off[P - 1], rows * cols + g.k[2] - 1);
      }
      for (i64 kw = 0; kw < g.k[2]; ++kw, w += kCvOC) {
        prefetch_at(w, kCvPrefetchTaps * kCvOC);
        const vf32 wv = load_f32(w);
#pragma GCC unroll 6
        for (int j = 0; j < P; ++j)
          acc[j] += row[off[j] + kw] * wv;
      }
    }
  const bool last = c1 >= g.C, cheap = last && act_is_cheap(act.kind);
#pragma GCC unroll 6
  for (int j = 0; j < P; ++j) {
    if (j >= npx)
      break;
    alignas(64) float o[kVecF32];
    store_f32(o, cheap ? act_vec_cheap(act, acc[j]) : acc[j]);
    for (i64 m = 0; m < nm; ++m)
      yr[m * plane + j] = o[m];
  }
}

/// A tile of kCvPx pixels or fewer on a target with 16 vector registers (conv_few_tile_rows):
/// the 16 channels from h0 of block m0 (H = 1: the item's half block, cv_item_blocks) as two
/// sub-tiles of P0 and P1 pixels (at most kCvFewPx each); the second reads the half's weights
/// (C x taps x 16) from L1/L2.
template <int P0, int P1>
ONNXC_DW_INLINE void cv_tile_few(const ConvGeom &g, const Act<float> &act, const float *wb,
                                 const float *bias, const float *xp, i64 rows, i64 cols, i64 oh,
                                 i64 ow0, i64 npx, float *y, const float *res, i64 m0, i64 h0) {
  static_assert(P0 <= kCvFewPx && P1 <= kCvFewPx, "sub-tiles fit the registers");
  cv_tile<P0, 1>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, h0);
  if (npx > P0)
    cv_tile<P1, 1>(g, act, wb, bias, xp, rows, cols, oh, ow0 + P0, npx - P0, y, res, m0, h0);
}

/// kConvChanVec: per image, the zero-padded input first (one parallel loop over padded rows and
/// channels), then the (band, channel block, output row, segment) items, block-major within a
/// band (a block's weights stay in L2 for the band's pixels); the other activations per block
/// and output row. At T threads with more input than W, the output rows are cut into T bands
/// (cv_bands), each thread's share is one band, and the padded rows are split the same way: a
/// thread pads, reads and writes only its part of the plane, the part that the layers before
/// and after (their column shares, conv_panel_shares) have on the same core, instead of every
/// thread reading all the channels the others padded. One band: the items of one thread are
/// blocks of W.
template <typename T>
ONNXC_GEMM_INLINE void conv_chan_vec(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  if constexpr (is_f32<T>) {
    const ConvParams cp = params_of<ConvParams>(params);
    const i64 bands = cv_bands(cp, onnxc_rt_num_threads(rt));
    for (i64 n = 0; n < cp.N; ++n) {
      auto pad = [&](const i64 *pp, i64 lo, i64 hi) {
        const ConvParams q = params_of<ConvParams>(pp);
        const ConvGeom g(q);
        const i64 rows = cv_rows(q), cols = cv_cols(q);
        const i64 band_rows = gemm::ceil_div(rows, bands), per_band = g.C * band_rows;
        for (i64 it = lo; it < hi; ++it) { /* it: band, channel c, padded row r of the band */
          const i64 c = it % per_band / band_rows;
          const i64 r = it / per_band * band_rows + it % band_rows, ih = r - g.p[1];
          if (r >= rows) /* the last band's rows past the plane */
            continue;
          const float *xrow =
              ih >= 0 && ih < g.in[1] ? t.x + ((n * g.C + c) * g.in[1] + ih) * g.in[2] : nullptr;
          pad_phase_rows(g, xrow, 1, 1, cols, t.packed + (c * rows + r) * cols);
        }
      };
      parallel_for(rt, params, bands * cp.C * gemm::ceil_div(cv_rows(cp), bands), 16, pad);
      auto body = [&](const i64 *pp, i64 lo, i64 hi) {
        const ConvParams q = params_of<ConvParams>(pp);
        const ConvGeom g(q);
        const Act<float> act = make_act<float>(q.act);
        const i64 K = g.C * g.k_size(), rows = cv_rows(q), cols = cv_cols(q);
        const i64 segs = cv_segments(q), px = cv_tile_px(q), band_rows = cv_band_rows(q, bands);
        const i64 halves = cv_item_halves(q);
        const i64 per_block = band_rows * segs, per_band = cv_item_blocks(q) * per_block;
        float *y = t.y + n * g.M * g.out[1] * g.out[2];
        const float *res = q.has_residual ? t.res + n * g.M * g.out[1] * g.out[2] : nullptr;
        if (halves == 2) { /* 16 vector registers: flat tiles of kCvFewPx pixels per band */
          const i64 OW = g.out[2], plane = g.out[1] * OW, nb = cv_item_blocks(q);
          const i64 chunk = cv_flat_chunk(q);
          for (i64 it = lo; it < hi; ++it) {
            const i64 band = it / nb, bh = it % nb, b = bh / 2;
            const i64 band_end = gemm::min_i(plane, (band + 1) * band_rows * OW);
            const i64 m0 = b * kCvOC, h0 = bh % 2 * kVecF32;
            alignas(64) float bias[kCvOC];
            for (i64 l = 0; l < kCvOC; ++l)
              bias[l] = t.bias && m0 + l < g.M ? t.bias[m0 + l] : 0.0f;
            const float *wb = t.w + b * K * kCvOC; /* conv_cv_pack_weights (W is constant) */
            for (i64 c0 = 0; c0 < g.C; c0 += chunk) { /* a chunk's weights stay in L1/L2 */
              const i64 c1 = gemm::min_i(g.C, c0 + chunk);
              for (i64 q0 = band * band_rows * OW; q0 < band_end; q0 += kCvFewPx) {
                const i64 npx = gemm::min_i(kCvFewPx, band_end - q0);
                /* two variants only (each is inlined into every conv kernel before the node's
                   algo folds the others away: six cost mnist-8 0.3 s of compile time); a
                   band's last tile of up to 3 pixels takes the 3-pixel one */
                if (npx <= kCvFewPx / 2)
                  cv_tile_flat<kCvFewPx / 2>(g, act, wb, bias, t.packed, rows, cols, q0, npx, y,
                                             res, m0, h0, c0, c1);
                else
                  cv_tile_flat<kCvFewPx>(g, act, wb, bias, t.packed, rows, cols, q0, npx, y, res,
                                         m0, h0, c0, c1);
                if (c1 >= g.C && act.kind != kActNone && !act_is_cheap(act.kind))
                  for (i64 m = m0 + h0; m < gemm::min_i(g.M, m0 + h0 + kVecF32); ++m)
                    apply_act_row(act, y + m * plane + q0, npx, 1); /* the tile's pixels */
              }
            }
          }
          return;
        }
        for (i64 it = lo; it < hi; ++it) {
          const i64 band = it / per_band, bh = it % per_band / per_block, b = bh / halves;
          const i64 oh = band * band_rows + it % per_block / segs, seg = it % segs;
          if (oh >= g.out[1]) /* the last band's rows past the plane */
            continue;
          const i64 m0 = b * kCvOC, h0 = bh % halves * kVecF32;
          const i64 ow0 = seg * px, npx = gemm::min_i(px, g.out[2] - ow0);
          alignas(64) float bias[kCvOC];
          for (i64 l = 0; l < kCvOC; ++l)
            bias[l] = t.bias && m0 + l < g.M ? t.bias[m0 + l] : 0.0f;
          const float *wb = t.w + b * K * kCvOC; /* conv_cv_pack_weights (W is constant) */
          const float *xp = t.packed;
          if (halves == 2) { /* half-block items: 16 vector registers (conv_few_tile_rows) */
            if (px == 7)
              cv_tile_few<4, 3>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, h0);
            else if (px == 8)
              cv_tile_few<4, 4>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, h0);
            else if (px == 10)
              cv_tile_few<5, 5>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, h0);
            else
              cv_tile_few<6, 6>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, h0);
          } else if (px == 7)
            cv_tile<7, 2>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, 0);
          else if (px == 8)
            cv_tile<8, 2>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, 0);
          else if (px == 10)
            cv_tile<10, 2>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, 0);
          else
            cv_tile<kCvPx, 2>(g, act, wb, bias, xp, rows, cols, oh, ow0, npx, y, res, m0, 0);
          if (act.kind != kActNone && !act_is_cheap(act.kind)) /* the tile's pixels */
            for (i64 m = m0 + h0; m < gemm::min_i(g.M, m0 + h0 + kCvOC / halves); ++m)
              apply_act_row(act, y + (m * g.out[1] + oh) * g.out[2] + ow0, npx, 1);
        }
      };
      parallel_for(rt, params, bands * cv_item_blocks(cp) * cv_items_per_block(cp, bands), 1,
                   body);
    }
  } else {
    (void)rt, (void)params, (void)t; /* the lowering chooses kConvChanVec for float only */
  }
}

template <typename T>
ONNXC_GEMM_INLINE int32_t conv_kernel(onnxc_rt *rt, void *const *t, const i64 *p) {
  const ConvParams cp = params_of<ConvParams>(p);
  const i64 scale_at = 4 + cp.has_residual, scratch_at = scale_at + cp.has_in_scale;
  ConvPtrs<T> ptrs{static_cast<const T *>(t[0]),
                   static_cast<const T *>(t[1]),
                   cp.has_bias ? static_cast<const T *>(t[2]) : nullptr,
                   static_cast<T *>(t[3]),
                   static_cast<T *>(t[scratch_at]),
                   cp.has_residual ? static_cast<const T *>(t[4]) : nullptr};
  if (cp.has_in_scale) { /* W diag(S) into the scratch's tail, then the conv of X with it */
    T *ws = reinterpret_cast<T *>(static_cast<unsigned char *>(t[scratch_at]) +
                                  conv_in_scale_offset(cp, sizeof(T)));
    conv_scale_weights(rt, p, ptrs.w, static_cast<const T *>(t[scale_at]), ws);
    ptrs.w = ws;
  }
  if (cp.algo == kConvDirect)
    conv_depthwise(rt, p, ptrs);
  else if (cp.algo == kConvDwChannels)
    conv_dw_channels(rt, p, ptrs);
  else if (cp.algo == kConvFewChannels)
    conv_few_channels(rt, p, ptrs);
  else if (cp.algo == kConvChanVec)
    conv_chan_vec(rt, p, ptrs);
  else if (conv_is_wino(cp))
    conv_winograd(rt, p, ptrs);
  else
    conv_gemm(rt, p, ptrs);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_CONV_KERNEL(ct, sfx, unused)                                                         \
  extern "C" int32_t onnxc_k_conv_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {          \
    return onnxc_k::conv_kernel<ct>(rt, t, p);                                                     \
  }
ONNXC_FLOAT_TYPES(ONNXC_CONV_KERNEL, 0)
