/* Conv's Winograd path (kConvWinograd, templates/cpu/conv_params.h): F(2x2, 3x3) for 2-D 3x3
 * stride-1 convolutions with one group, and F(4x4, 3x3) (kConvWinograd4: 6x6 input tiles, 36
 * products; the functions templated on M, the output tile's side), in three parallel loops over
 * the tiles of all images (the GEMM rows; the batch shares one pass over the transformed
 * weights). For F(2x2, 3x3):
 *   1. input transform: every 4x4 input tile (2x2 output tile, zero outside the input) of every
 *      channel becomes B^T d B, whose 16 values go to the 16 matrices V_xi^T (tiles x C) in the
 *      GEMM's packed-A layout (panels of kMR tiles), so the GEMM reads them as they are; computed
 *      on vectors of a panel's kMR tiles (its columns of V_xi^T): an input row's even and odd
 *      elements are the tiles' columns 0 and 1 (and from 2 elements on, 2 and 3);
 *   2. 16 GEMMs P_xi = V_xi^T U_xi (tiles x M) on the micro-kernel (U_xi: the transformed W,
 *      packed B at compile time by conv_wino_weights), work items (xi, row block, column block);
 *      for a large U (wino_run_time_u) W's 9 taps are stored instead and each panel of U_xi is
 *      made from them just before its product;
 *   3. output transform: A^T P A per tile and output channel, plus the bias, clipped to the
 *      output plane; the fused activation is applied to the two finished output rows.
 * Included by conv.cpp only (uses its ConvPtrs).
 */
#ifndef ONNXC_CONV_WINOGRAD_H
#define ONNXC_CONV_WINOGRAD_H

namespace onnxc_k {
namespace {

/// The 16 values B^T d B of the 4x4 tile d (rows of 4), in row-major order.
template <typename T> ONNXC_GEMM_INLINE void wino_in_tile(const T (&d)[4][4], T (&v)[16]) {
  T t[4][4]; /* B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3 */
  for (int j = 0; j < 4; ++j) {
    t[0][j] = d[0][j] - d[2][j];
    t[1][j] = d[1][j] + d[2][j];
    t[2][j] = d[2][j] - d[1][j];
    t[3][j] = d[1][j] - d[3][j];
  }
  for (int i = 0; i < 4; ++i) { /* (B^T d) B: the same on columns */
    v[i * 4 + 0] = t[i][0] - t[i][2];
    v[i * 4 + 1] = t[i][1] + t[i][2];
    v[i * 4 + 2] = t[i][2] - t[i][1];
    v[i * 4 + 3] = t[i][1] - t[i][3];
  }
}

/// The 36 values B^T d B of the 6x6 tile d for F(4x4, 3x3) (rows of B^T: (4, 0, -5, 0, 1, 0),
/// (0, -4, -4, 1, 1, 0), (0, 4, -4, -1, 1, 0), (0, -2, -1, 2, 1, 0), (0, 2, -1, -2, 1, 0),
/// (0, 4, 0, -5, 0, 1)), in row-major order.
template <typename T> ONNXC_GEMM_INLINE void wino4_in_tile(const T (&d)[6][6], T (&v)[36]) {
  auto bt = [](const T (&x)[6], T (&r)[6]) { /* T: a vector; the constants splat */
    const T d13 = x[3] - x[1], s12 = x[1] + x[2], d42 = x[4] - x[2];
    r[0] = 4.0f * x[0] - 5.0f * x[2] + x[4];
    r[1] = (x[3] + x[4]) - 4.0f * s12;
    r[2] = (x[4] - x[3]) + 4.0f * (x[1] - x[2]);
    r[3] = d42 + 2.0f * d13;
    r[4] = d42 - 2.0f * d13;
    r[5] = 4.0f * x[1] - 5.0f * x[3] + x[5];
  };
  T t[6][6]; /* B^T d, column by column */
  for (int j = 0; j < 6; ++j) {
    const T col[6] = {d[0][j], d[1][j], d[2][j], d[3][j], d[4][j], d[5][j]};
    T r[6];
    bt(col, r);
    for (int i = 0; i < 6; ++i)
      t[i][j] = r[i];
  }
  for (int i = 0; i < 6; ++i) { /* (B^T d) B: the same on rows */
    T r[6];
    bt(t[i], r);
    for (int j = 0; j < 6; ++j)
      v[i * 6 + j] = r[j];
  }
}

/// The values B^T d B of an (m + 2)-square tile (F(2x2, 3x3) or F(4x4, 3x3)).
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_in_tile_m(const T (&d)[M + 2][M + 2], T (&v)[(M + 2) * (M + 2)]) {
  if constexpr (M == 2)
    wino_in_tile(d, v);
  else
    wino4_in_tile(d, v);
}

/// kMR lanes of T: one packed-A panel's column (the panel's tiles of one channel and xi).
template <int Bytes> struct WinoLaneInt;
template <> struct WinoLaneInt<4> { typedef int32_t type; };
template <> struct WinoLaneInt<8> { typedef int64_t type; };
template <typename T> struct WinoLanes {
  typedef T type __attribute__((vector_size(gemm::kMR * sizeof(T))));
  /* integer lanes of T's width: the masks that merge a run's lanes */
  typedef typename WinoLaneInt<sizeof(T)>::type lane_int;
  typedef lane_int mask __attribute__((vector_size(gemm::kMR * sizeof(T))));
};

/// A run of a panel's lanes [lo, hi) whose tiles are consecutive in one tile row: lane l's
/// tile has its top-left input element at row y0, column xb + m l of `plane` (m: the output
/// tile's side).
struct WinoRun {
  i64 lo, hi, y0, xb, plane;
};

/// Columns of the input window a panel's run reads per row: kMR tiles m apart, m + 2 wide, as
/// the vector loads below read them (F(4x4, 3x3): 4 loads from column 0 and 4 from column 4).
template <int M> constexpr i64 kWinoWindow = M == 2 ? 2 * gemm::kMR + 2 : 4 * gemm::kMR + 4;

/// Lanes l of columns J + 4 l of the 32 elements in a0 .. a3 (F(4x4, 3x3): tiles 4 apart).
template <int J, typename VR> ONNXC_GEMM_INLINE VR wino_stride4(VR a0, VR a1, VR a2, VR a3) {
  const VR lo = __builtin_shufflevector(a0, a1, J, J + 4, J + 8, J + 12, J, J + 4, J + 8, J + 12);
  const VR hi = __builtin_shufflevector(a2, a3, J, J + 4, J + 8, J + 12, J, J + 4, J + 8, J + 12);
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 8, 9, 10, 11);
}

/// d[i][j] (lanes [r.lo, r.hi)) from the run's (m + 2) x kWinoWindow input window: per row,
/// F(2x2, 3x3): the window's even and odd columns from 0 and from 2 are columns 0 to 3 of the
/// lanes' tiles; F(4x4, 3x3): every fourth column from 0, 1, 2, 3 and from 4, 5. Read from the
/// plane where the window is inside it, else from a zero-padded copy.
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_run_tiles(const T *xc, i64 H, i64 W, const WinoRun &r,
                                      typename WinoLanes<T>::type (&d)[M + 2][M + 2]) {
  typedef typename WinoLanes<T>::type VR;
  typedef typename WinoLanes<T>::mask VM;
  typedef typename WinoLanes<T>::lane_int LI;
  static_assert(gemm::kMR == 8, "the lane shuffles below are for 8 lanes");
  constexpr i64 R = gemm::kMR, A = M + 2, Win = kWinoWindow<M>;
  const bool inside = r.y0 >= 0 && r.y0 + A <= H && r.xb >= 0 && r.xb + Win <= W;
  T win[A][Win];
  if (!inside)
    for (int i = 0; i < A; ++i) {
      const i64 y = r.y0 + i;
      for (i64 k = 0; k < Win; ++k) {
        const i64 x = r.xb + k;
        win[i][k] = y >= 0 && y < H && x >= 0 && x < W ? xc[y * W + x] : T(0);
      }
    }
  const VM lane = {0, 1, 2, 3, 4, 5, 6, 7};
  const VM own = (lane >= LI(r.lo)) & (lane < LI(r.hi)); /* all ones in the run's lanes */
  for (int i = 0; i < A; ++i) {
    const T *row = inside ? xc + (r.y0 + i) * W + r.xb : win[i];
    VR c[A];
    if constexpr (M == 2) {
      VR a0, a1, b0, b1;
      __builtin_memcpy(&a0, row, sizeof(VR));
      __builtin_memcpy(&a1, row + R, sizeof(VR));
      __builtin_memcpy(&b0, row + 2, sizeof(VR));
      __builtin_memcpy(&b1, row + 2 + R, sizeof(VR));
      c[0] = __builtin_shufflevector(a0, a1, 0, 2, 4, 6, 8, 10, 12, 14);
      c[1] = __builtin_shufflevector(a0, a1, 1, 3, 5, 7, 9, 11, 13, 15);
      c[2] = __builtin_shufflevector(b0, b1, 0, 2, 4, 6, 8, 10, 12, 14);
      c[3] = __builtin_shufflevector(b0, b1, 1, 3, 5, 7, 9, 11, 13, 15);
    } else {
      VR a[4], b[4];
      for (int k = 0; k < 4; ++k) {
        __builtin_memcpy(&a[k], row + k * R, sizeof(VR));
        __builtin_memcpy(&b[k], row + 4 + k * R, sizeof(VR));
      }
      c[0] = wino_stride4<0>(a[0], a[1], a[2], a[3]);
      c[1] = wino_stride4<1>(a[0], a[1], a[2], a[3]);
      c[2] = wino_stride4<2>(a[0], a[1], a[2], a[3]);
      c[3] = wino_stride4<3>(a[0], a[1], a[2], a[3]);
      c[4] = wino_stride4<0>(b[0], b[1], b[2], b[3]);
      c[5] = wino_stride4<1>(b[0], b[1], b[2], b[3]);
    }
    for (int j = 0; j < A; ++j) /* a panel split across tile rows: the run's lanes only */
      d[i][j] = (VR)(((VM)c[j] & own) | ((VM)d[i][j] & ~own));
  }
}

/// Phase 1 for packed-A panels [pn0, pn1) of the V_xi at v (`vs` apart): panel pn holds GEMM
/// rows row0 + pn * kMR ..; rows at or past row0 + rows are zero. Vectorised over the panel's
/// kMR tiles (its lanes), whose (m + 2)^2 transformed values per channel are the V_xi's columns.
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_in_panels(const ConvParams &q, const T *x, T *v, i64 vs, i64 row0,
                                      i64 rows, i64 pn0, i64 pn1) {
  typedef typename WinoLanes<T>::type VR;
  constexpr i64 R = gemm::kMR, A = M + 2;
  const i64 nt = wino_tiles(q), tw = wino_tiles_w(q);
  const i64 H = q.w.in[1], W = q.w.in[2], C = q.C;
  for (i64 pn = pn0; pn < pn1; ++pn) {
    WinoRun runs[R]; /* the panel's lanes as runs of consecutive tiles of one tile row */
    int nruns = 0;
    for (i64 l = 0; l < R && pn * R + l < rows;) {
      const i64 row = row0 + pn * R + l, t = row % nt, tc = t % tw;
      const i64 n = gemm::min_i(gemm::min_i(R - l, tw - tc), rows - (pn * R + l));
      runs[nruns++] = {l, l + n, (t / tw) * M - q.w.p[1], M * (tc - l) - q.w.p[2], row / nt};
      l += n;
    }
    for (i64 c = 0; c < C; ++c) {
      VR d[A][A] = {}; /* lanes past `rows` stay zero */
      for (int k = 0; k < nruns; ++k)
        wino_run_tiles<M>(x + (runs[k].plane * C + c) * H * W, H, W, runs[k], d);
      VR u[A * A];
      wino_in_tile_m<M>(d, u);
      T *dst = v + (pn * C + c) * R;
      for (int xi = 0; xi < A * A; ++xi)
        __builtin_memcpy(dst + xi * vs, &u[xi], sizeof(VR));
    }
  }
}

/// Phase 1: work items are panels of kMR tiles; each writes its panel of every V_xi^T.
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_input(onnxc_rt *rt, const i64 *params, const T *x, T *v) {
  const ConvParams cp = params_of<ConvParams>(params);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    wino_in_panels<M>(q, x, v, wino_v_stride(q, sizeof(T)), 0, wino_rows(q), lo, hi);
  };
  parallel_for(rt, params, gemm::ceil_div(wino_rows(cp), gemm::kMR), 1, body);
}

/// Start of row block bm of wino_products' `mb` blocks over `rows` rows: at whole kMR tiles;
/// with several threads (`balanced`) at the multiple of kMR nearest to bm rows / mb, so the
/// blocks, and the threads' shares of them, get as many rows as whole tiles allow (a last short
/// block of kMC rows had left one thread a quarter less work: ResNet-50's 128-channel 28x28
/// convs at batch 4 split 6.5 to 5.75 blocks over two threads; at batch 1, 196 rows split 96 to
/// 100, not 104 to 92 as whole tiles from the start would).
constexpr i64 wino_block_start(i64 rows, i64 mb, i64 bm, bool balanced) {
  constexpr i64 R = gemm::kMR;
  if (!balanced)
    return gemm::min_i(rows, bm * gemm::kMC);
  if (bm >= mb) /* the end: rounding to the nearest tile could fall short of it */
    return rows;
  return gemm::min_i(rows, (bm * rows / mb + R / 2) / R * R);
}

/// Phase 2 for one xi: rows [m0, m1) x columns [n0, n1) of P_xi (rows x M, at prod) =
/// V_xi^T (rows x C, packed A at v) U_xi.
template <typename T>
ONNXC_GEMM_INLINE void wino_product(const ConvParams &q, const T *u, const T *v, T *prod, i64 rows,
                                    i64 m0, i64 m1, i64 n0, i64 n1) {
  gemm::Problem<T> pr{rows, q.M, q.C, v,    0,    0,       u, nullptr, 0,       0,
                      prod, q.M, 1,   T(1), T(1), nullptr, 0, 0,       Act<T>{}};
  pr.a_packed = 1;
  pr.mr = q.gemm_mr;
  pr.bsub = conv_b_sub(q, sizeof(T));
  pr.b_stream = 1; /* U is a constant */
  __builtin_assume(u != nullptr); /* U is packed B: never gemm::small_m() */
  gemm::block(pr, m0, m1, n0, n1);
}

/// Phase 2: P_xi = V_xi^T U_xi for the NX = (m + 2)^2 xi, work items (xi, row block, column block) on one
/// thread (U_xi stays in cache for all its rows); on several, (row block, xi, column block), so
/// that a thread's items are a band of tiles for every xi: the tiles whose V it wrote in phase
/// 1 and whose outputs it computes in phase 3 (xi-major, each thread read half of V from the
/// other core).
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_products(onnxc_rt *rt, const i64 *params, const T *u, const T *v,
                                     T *prod) {
  constexpr i64 NX = (M + 2) * (M + 2);
  using namespace gemm;
  const ConvParams cp = params_of<ConvParams>(params);
  const i64 threads = onnxc_rt_num_threads(rt);
  const bool bands = threads > 1;
  /* with bands, a multiple of the threads' count of row blocks, so that each thread's share is
     whole blocks of as many tiles as the others' */
  const i64 blocks = ceil_div(wino_rows(cp), kMC);
  const i64 mb = bands && blocks >= threads ? ceil_div(blocks, threads) * threads : blocks;
  const i64 items = NX * mb * ceil_div(cp.M, kNC);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const i64 nt = wino_rows(q), nb = ceil_div(q.M, kNC);
    for (i64 it = lo; it < hi; ++it) {
      const i64 bm = bands ? it / (NX * nb) : it / nb % mb, bn = it % nb;
      const i64 xi = bands ? it / nb % NX : it / (mb * nb);
      const i64 m0 = wino_block_start(nt, mb, bm, bands);
      const i64 m1 = wino_block_start(nt, mb, bm + 1, bands);
      if (m1 > m0)
        wino_product(q, u + xi * wino_u_elems(q, sizeof(T)), v + xi * wino_v_stride(q, sizeof(T)),
                     prod + xi * wino_p_stride(q, sizeof(T)), nt, m0, m1, bn * kNC,
                     min_i(q.M, bn * kNC + kNC));
    }
  };
  parallel_for(rt, params, items, 1, body);
}

/// One panel of U_xi (xi = (m + 2) a + b; `n` elements from the panel's start) from the same
/// panel of W's 9 taps at w (`ue` apart): U_ab = sum over i, j of G[a][i] G[b][j] W_ij, as in
/// conv_wino_weights, on the NA x NB taps whose coefficient is not zero: with NA = 1 the one
/// row `ia` (coefficient ca[0]), with 3 rows 0 to 2 (coefficients ca), the columns likewise.
template <int NA, int NB, typename T>
ONNXC_GEMM_INLINE void wino_u_taps(const T *w, i64 ue, i64 n, int ia, int ib, const T (&ca)[3],
                                   const T (&cb)[3], T *u) {
  const T *tap[NA][NB];
  T c[NA][NB];
  for (int i = 0; i < NA; ++i)
    for (int j = 0; j < NB; ++j) {
      tap[i][j] = w + ((NA == 1 ? ia : i) * 3 + (NB == 1 ? ib : j)) * ue;
      c[i][j] = ca[i] * cb[j];
    }
  for (i64 e = 0; e < n; ++e) {
    T s = T(0);
    for (int i = 0; i < NA; ++i)
      for (int j = 0; j < NB; ++j)
        s += c[i][j] * tap[i][j][e];
    u[e] = s;
  }
}

/// U_xi's panel from W's taps (wino_u_taps): the first and last rows of G pick one tap row (0
/// or 2), the others combine all three. G is conv_wino_weights' matrix of F(m x m, 3x3).
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_u_panel(const T *w, i64 ue, i64 n, i64 xi, T *u) {
  constexpr int A = M + 2;
  const T G2[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
  const T G4[6][3] = {{T(1) / 4, 0, 0},           {T(-1) / 6, T(-1) / 6, T(-1) / 6},
                      {T(-1) / 6, T(1) / 6, T(-1) / 6}, {T(1) / 24, T(1) / 12, T(1) / 6},
                      {T(1) / 24, T(-1) / 12, T(1) / 6}, {0, 0, 1}};
  const int a = int(xi / A), b = int(xi % A);
  const T(&ga)[3] = M == 2 ? G2[a] : G4[a];
  const T(&gb)[3] = M == 2 ? G2[b] : G4[b];
  const bool one_a = a == 0 || a == A - 1, one_b = b == 0 || b == A - 1;
  const int ia = a == A - 1 ? 2 : 0, ib = b == A - 1 ? 2 : 0;
  const T sa[3] = {ga[ia], 0, 0}, sb[3] = {gb[ib], 0, 0};
  if (one_a && one_b)
    wino_u_taps<1, 1>(w, ue, n, ia, ib, sa, sb, u);
  else if (one_a)
    wino_u_taps<1, 3>(w, ue, n, ia, ib, sa, gb, u);
  else if (one_b)
    wino_u_taps<3, 1>(w, ue, n, ia, ib, ga, sb, u);
  else
    wino_u_taps<3, 3>(w, ue, n, ia, ib, ga, gb, u);
}

/// Work of the run-time U path's items before item `it` (panel-major: panel it / nx, xi
/// it % nx, for nx products), in columns of P: a panel's items are as wide as the panel (the
/// last one may be narrower).
constexpr i64 wino_rt_work_before(i64 M, i64 NR, i64 nx, i64 it) {
  const i64 pn = it / nx, cols = gemm::min_i(NR, M - pn * NR);
  return pn * NR * nx + (it % nx) * cols;
}
/// First item of lane l of `lanes`: the first whose work starts at or after l / lanes of all
/// (nx M columns), so that the lanes, and the threads' shares of them, get as many columns of P
/// to compute as whole items allow (an even split of the items gave one of two threads 144 of
/// ResNet-50's 256 columns at 14x14: the last panel has 16).
constexpr i64 wino_rt_lane_start(i64 M, i64 NR, i64 nx, i64 items, i64 lanes, i64 l) {
  const i64 goal = l * nx * M / lanes;
  /* the panel where the goal falls (the last one may be narrower), then its items */
  i64 it = gemm::min_i(goal / (nx * NR), gemm::ceil_div(M, NR) - 1) * nx;
  while (it < items && wino_rt_work_before(M, NR, nx, it) < goal)
    ++it;
  return it;
}

/// Phase 2 with U made at run time (wino_run_time_u: `w` holds W's 9 taps, packed like U):
/// work items are lanes, each with one panel of U in the scratch at ubuf; lane l of L runs the
/// (panel, xi) items from wino_rt_lane_start(l) in panel-major order (a panel's taps stay in
/// cache for its NX = (m + 2)^2 xi): the panel of U_xi, then its columns of P_xi for all rows.
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_products_rt(onnxc_rt *rt, const i64 *params, const T *w, const T *v,
                                        T *prod, T *ubuf) {
  const ConvParams cp = params_of<ConvParams>(params);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    using namespace gemm;
    constexpr i64 NR = panel_width(sizeof(T)), NX = (M + 2) * (M + 2);
    const ConvParams q = params_of<ConvParams>(pp);
    const i64 ue = wino_u_elems(q, sizeof(T)), pe = wino_rt_panel_elems(q, sizeof(T));
    const i64 items = wino_rt_items(q, sizeof(T)), lanes = wino_rt_lanes(q, sizeof(T));
    const i64 nt = wino_rows(q), vs = wino_v_stride(q, sizeof(T));
    const i64 ps = wino_p_stride(q, sizeof(T));
    for (i64 lane = lo; lane < hi; ++lane) {
      T *u = ubuf + lane * pe;
      const i64 first = wino_rt_lane_start(q.M, NR, NX, items, lanes, lane);
      const i64 last = wino_rt_lane_start(q.M, NR, NX, items, lanes, lane + 1);
      for (i64 it = first; it < last; ++it) {
        const i64 pn = it / NX, xi = it % NX, n0 = pn * NR, cols = min_i(NR, q.M - n0);
        wino_u_panel<M>(w + pn * q.C * NR, ue, pe, xi, u);
        Problem<T> pr{nt,  cols, q.C, v + xi * vs, 0, 0, u, nullptr, 0, 0, prod + xi * ps + n0,
                      q.M, 1,    T(1), T(1),       nullptr, 0, 0, Act<T>{}};
        pr.a_packed = 1;
        pr.mr = q.gemm_mr;
        pr.bsub = conv_b_sub(q, sizeof(T));
        __builtin_assume(u != nullptr); /* packed B: never gemm::small_m() */
        block(pr, 0, nt, 0, cols);
      }
    }
  };
  parallel_for(rt, params, wino_rt_lanes(cp, sizeof(T)), 1, body);
}

/// Output channels per work item of phase 3 (the vectorised dimension) and tiles per chunk.
constexpr i64 kWinoOutChannels = 16, kWinoOutTiles = 16;

/// The m outputs A^T p of F(m x m, 3x3) from the m + 2 values p (rows of A^T: F(2x2, 3x3)
/// (1, 1, 1, 0), (0, 1, -1, -1); F(4x4, 3x3) (1, 1, 1, 1, 1, 0), (0, 1, -1, 2, -2, 0),
/// (0, 1, 1, 4, 4, 0), (0, 1, -1, 8, -8, 1)).
template <int M, typename T> ONNXC_GEMM_INLINE void wino_out_1d(const T (&p)[M + 2], T (&o)[M]) {
  if constexpr (M == 2) {
    o[0] = p[0] + p[1] + p[2];
    o[1] = p[1] - p[2] - p[3];
  } else {
    const T s12 = p[1] + p[2], d12 = p[1] - p[2], s34 = p[3] + p[4], d34 = p[3] - p[4];
    o[0] = p[0] + s12 + s34;
    o[1] = d12 + T(2) * d34;
    o[2] = s12 + T(4) * s34;
    o[3] = d12 + T(8) * d34 + p[5];
  }
}

/// Phase 3, one chunk: tiles [j0, j0 + nj) of tile row `row0` (its first tile's row in the
/// P_xi at prod, `stride` apart) for channels m0 .. m0 + mb: A^T P A, vectorised over the
/// channels, into buf[i][column][channel].
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_out_chunk(const ConvParams &q, const T *prod, i64 stride, i64 row0,
                                      i64 j0, i64 nj, i64 m0, i64 mb,
                                      T (&buf)[M][M * kWinoOutTiles][kWinoOutChannels]) {
  constexpr int A = M + 2;
  for (i64 j = 0; j < nj; ++j) {
    const T *p = prod + (row0 + j0 + j) * q.M + m0;
    for (i64 c = 0; c < mb; ++c) {
      T t[M][A]; /* A^T P, column by column */
      for (int k = 0; k < A; ++k) {
        T col[A], o[M];
        for (int r = 0; r < A; ++r)
          col[r] = p[(r * A + k) * stride + c];
        wino_out_1d<M>(col, o);
        for (int i = 0; i < M; ++i)
          t[i][k] = o[i];
      }
      for (int i = 0; i < M; ++i) { /* (A^T P) A: the same on rows */
        T o[M];
        wino_out_1d<M>(t[i], o);
        for (int k = 0; k < M; ++k)
          buf[i][M * j + k][c] = o[k];
      }
    }
  }
}

/// Phase 3 for tile row th of image n (its tiles at row `row0` of the P_xi at prod, `stride`
/// apart) and channels [m0, m0 + kWinoOutChannels) clipped to M: the m output rows (fewer at
/// the plane's bottom), bias added, then the fused residual, then the activation.
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_out_row(const ConvParams &q, const Act<T> &act, const ConvPtrs<T> &t,
                                    const T *prod, i64 stride, i64 row0, i64 n, i64 th, i64 m0) {
  const i64 tw = wino_tiles_w(q), OH = q.w.out[1], OW = q.w.out[2];
  const i64 mb = gemm::min_i(kWinoOutChannels, q.M - m0), oh = th * M;
  const i64 nr = gemm::min_i(M, OH - oh);
  T buf[M][M * kWinoOutTiles][kWinoOutChannels];
  for (i64 j0 = 0; j0 < tw; j0 += kWinoOutTiles) {
    const i64 nj = gemm::min_i(kWinoOutTiles, tw - j0);
    const i64 cols = gemm::min_i(M * nj, OW - M * j0);
    wino_out_chunk<M>(q, prod, stride, row0, j0, nj, m0, mb, buf);
    for (i64 c = 0; c < mb; ++c) {
      const T b0 = t.bias ? t.bias[m0 + c] : T(0);
      const i64 at = ((n * q.M + m0 + c) * OH + oh) * OW + M * j0;
      T *y = t.y + at;
      if (t.res) { /* the fused residual Add, after the bias */
        const T *r = t.res + at;
        for (i64 i = 0; i < nr; ++i)
          for (i64 k = 0; k < cols; ++k)
            y[i * OW + k] = (buf[i][k][c] + b0) + r[i * OW + k];
      } else {
        for (i64 i = 0; i < nr; ++i)
          for (i64 k = 0; k < cols; ++k)
            y[i * OW + k] = buf[i][k][c] + b0;
      }
    }
  }
  if (act.kind != kActNone)
    for (i64 c = 0; c < mb; ++c)
      apply_act(act, t.y + ((n * q.M + m0 + c) * OH + oh) * OW, nr * OW, 1);
}

/// Phase 3: work items (image, tile row, block of kWinoOutChannels output channels).
template <int M, typename T>
ONNXC_GEMM_INLINE void wino_output(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t,
                                   const T *prod) {
  const ConvParams cp = params_of<ConvParams>(params);
  const i64 items = cp.N * wino_tile_rows(cp) * gemm::ceil_div(cp.M, kWinoOutChannels);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const Act<T> act = make_act<T>(q.act);
    const i64 tw = wino_tiles_w(q), th_n = wino_tile_rows(q);
    const i64 mbs = gemm::ceil_div(q.M, kWinoOutChannels), stride = wino_p_stride(q, sizeof(T));
    for (i64 it = lo; it < hi; ++it) {
      const i64 r = it / mbs, m0 = (it % mbs) * kWinoOutChannels, n = r / th_n, th = r % th_n;
      wino_out_row<M>(q, act, t, prod, stride, (n * th_n + th) * tw, n, th, m0);
    }
  };
  parallel_for(rt, params, items, 1, body);
}

/// The blocked path (wino_blocked): work items are the lanes; each runs its blocks of whole
/// tile rows through the three phases in its own part of the scratch. A lane's blocks are
/// consecutive (lane l of L: blocks [l B / L, (l + 1) B / L)), so a thread's lanes cover one
/// band of the plane: the rows that the conv before wrote on that thread (its column blocks go
/// to the threads in order) and that the conv after reads there.
template <int M, typename T>
ONNXC_GEMM_INLINE void conv_winograd_blocked(onnxc_rt *rt, const i64 *params,
                                             const ConvPtrs<T> &t) {
  constexpr i64 NX = (M + 2) * (M + 2);
  const ConvParams cp = params_of<ConvParams>(params);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const Act<T> act = make_act<T>(q.act);
    const WinoBlocks b = wino_blocks(q, sizeof(T));
    const i64 tw = wino_tiles_w(q), th_n = wino_tile_rows(q);
    const i64 per_image = gemm::ceil_div(th_n, b.tile_rows), ue = wino_u_elems(q, sizeof(T));
    for (i64 lane = lo; lane < hi; ++lane) {
      T *v = t.packed + lane * b.lane_elems, *prod = v + NX * b.v_stride;
      for (i64 blk = lane * b.blocks / b.lanes; blk < (lane + 1) * b.blocks / b.lanes; ++blk) {
        const i64 n = blk / per_image, th0 = (blk % per_image) * b.tile_rows;
        const i64 nth = gemm::min_i(b.tile_rows, th_n - th0), rows = nth * tw;
        wino_in_panels<M>(q, t.x, v, b.v_stride, (n * th_n + th0) * tw, rows, 0,
                          gemm::ceil_div(rows, gemm::kMR));
        for (i64 xi = 0; xi < NX; ++xi)
          wino_product(q, t.w + xi * ue, v + xi * b.v_stride, prod + xi * b.p_stride, rows, 0, rows,
                       0, q.M);
        for (i64 th = 0; th < nth; ++th)
          for (i64 m0 = 0; m0 < q.M; m0 += kWinoOutChannels)
            wino_out_row<M>(q, act, t, prod, b.p_stride, th * tw, n, th0 + th, m0);
      }
    }
  };
  parallel_for(rt, params, wino_blocks(cp, sizeof(T)).lanes, 1, body);
}

/// kConvWinograd (M = 2) and kConvWinograd4 (M = 4): the three phases (W in t.w is the packed
/// U_xi, or for F(2x2, 3x3) W's 9 taps when wino_run_time_u), blocked for large planes.
template <int M, typename T>
ONNXC_GEMM_INLINE void conv_winograd_m(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  constexpr i64 NX = (M + 2) * (M + 2);
  const ConvParams cp = params_of<ConvParams>(params);
  if (wino_blocked(cp, sizeof(T)))
    return conv_winograd_blocked<M>(rt, params, t);
  T *v = t.packed, *prod = t.packed + NX * wino_v_stride(cp, sizeof(T));
  wino_input<M>(rt, params, t.x, v);
  if (wino_run_time_u(cp, sizeof(T)))
    wino_products_rt<M>(rt, params, t.w, v, prod, prod + NX * wino_p_stride(cp, sizeof(T)));
  else
    wino_products<M>(rt, params, t.w, v, prod);
  wino_output<M>(rt, params, t, prod);
}
template <typename T>
ONNXC_GEMM_INLINE void conv_winograd(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  if (params_of<ConvParams>(params).algo == kConvWinograd4)
    conv_winograd_m<4>(rt, params, t);
  else
    conv_winograd_m<2>(rt, params, t);
}

} // namespace
} // namespace onnxc_k

#endif
