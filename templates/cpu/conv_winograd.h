/* Conv's Winograd path (kConvWinograd, templates/cpu/conv_params.h): F(2x2, 3x3) for 2-D 3x3
 * stride-1 convolutions with one group, in three parallel loops over the tiles of all images
 * (the GEMM rows; the batch shares one pass over the transformed weights):
 *   1. input transform: every 4x4 input tile (2x2 output tile, zero outside the input) of every
 *      channel becomes B^T d B, whose 16 values go to the 16 matrices V_xi^T (tiles x C) in the
 *      GEMM's packed-A layout (panels of kMR tiles), so the GEMM reads them as they are;
 *   2. 16 GEMMs P_xi = V_xi^T U_xi (tiles x M) on the micro-kernel (U_xi: the transformed W,
 *      packed B at compile time by conv_wino_weights), work items (xi, row block, column block);
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

/// The 4x4 input tile at rows y0.., columns x0.. of plane xc (H x W), zero outside it.
template <typename T>
ONNXC_GEMM_INLINE void wino_load_tile(const T *xc, i64 H, i64 W, i64 y0, i64 x0, T (&d)[4][4]) {
  if (y0 >= 0 && x0 >= 0 && y0 + 4 <= H && x0 + 4 <= W) {
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        d[i][j] = xc[(y0 + i) * W + x0 + j];
    return;
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const i64 y = y0 + i, x = x0 + j;
      d[i][j] = y >= 0 && y < H && x >= 0 && x < W ? xc[y * W + x] : T(0);
    }
}

/// Phase 1 for packed-A panels [pn0, pn1) of the V_xi at v (`vs` apart): panel pn holds GEMM
/// rows row0 + pn * kMR ..; rows at or past row0 + rows are zero.
template <typename T>
ONNXC_GEMM_INLINE void wino_in_panels(const ConvParams &q, const T *x, T *v, i64 vs, i64 row0,
                                      i64 rows, i64 pn0, i64 pn1) {
  constexpr i64 R = gemm::kMR;
  const i64 nt = wino_tiles(q), tw = wino_tiles_w(q);
  const i64 H = q.w.in[1], W = q.w.in[2], C = q.C;
  for (i64 pn = pn0; pn < pn1; ++pn)
    for (i64 c = 0; c < C; ++c) {
      T out[16][R]; /* the panel's R tiles of this channel, per xi: one contiguous store */
      ONNXC_NO_VECTORIZE
      for (i64 r = 0; r < R; ++r) {
        const i64 local = pn * R + r, row = row0 + local, t = row % nt;
        T d[4][4], u[16];
        if (local < rows)
          wino_load_tile(x + ((row / nt) * C + c) * H * W, H, W, (t / tw) * 2 - q.w.p[1],
                         (t % tw) * 2 - q.w.p[2], d);
        else
          for (int i = 0; i < 16; ++i)
            d[i / 4][i % 4] = T(0);
        wino_in_tile(d, u);
        for (int xi = 0; xi < 16; ++xi)
          out[xi][r] = u[xi];
      }
      T *dst = v + (pn * C + c) * R;
      for (int xi = 0; xi < 16; ++xi)
        __builtin_memcpy(dst + xi * vs, out[xi], sizeof out[xi]);
    }
}

/// Phase 1: work items are panels of kMR tiles; each writes its panel of every V_xi^T.
template <typename T>
ONNXC_GEMM_INLINE void wino_input(onnxc_rt *rt, const i64 *params, const T *x, T *v) {
  const ConvParams cp = params_of<ConvParams>(params);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    wino_in_panels(q, x, v, wino_v_stride(q, sizeof(T)), 0, wino_rows(q), lo, hi);
  };
  parallel_for(rt, params, gemm::ceil_div(wino_rows(cp), gemm::kMR), 1, body);
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
  __builtin_assume(u != nullptr); /* U is packed B: never gemm::small_m() */
  gemm::block(pr, m0, m1, n0, n1);
}

/// Phase 2: P_xi = V_xi^T U_xi for the 16 xi, work items (xi, row block, column block).
template <typename T>
ONNXC_GEMM_INLINE void wino_products(onnxc_rt *rt, const i64 *params, const T *u, const T *v,
                                     T *prod) {
  using namespace gemm;
  const ConvParams cp = params_of<ConvParams>(params);
  const i64 items = 16 * ceil_div(wino_rows(cp), kMC) * ceil_div(cp.M, kNC);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const i64 nt = wino_rows(q), mb = ceil_div(nt, kMC), nb = ceil_div(q.M, kNC);
    for (i64 it = lo; it < hi; ++it) {
      const i64 xi = it / (mb * nb), r = it % (mb * nb), bm = r / nb, bn = r % nb;
      wino_product(q, u + xi * wino_u_elems(q, sizeof(T)), v + xi * wino_v_stride(q, sizeof(T)),
                   prod + xi * wino_p_stride(q, sizeof(T)), nt, bm * kMC, min_i(nt, bm * kMC + kMC),
                   bn * kNC, min_i(q.M, bn * kNC + kNC));
    }
  };
  parallel_for(rt, params, items, 1, body);
}

/// Output channels per work item of phase 3 (the vectorised dimension) and tiles per chunk.
constexpr i64 kWinoOutChannels = 16, kWinoOutTiles = 16;

/// Phase 3, one chunk: tiles [j0, j0 + nj) of tile row `row0` (its first tile's row in the
/// P_xi at prod, `stride` apart) for channels m0 .. m0 + mb: A^T P A, vectorised over the
/// channels, into buf[i][column][channel].
template <typename T>
ONNXC_GEMM_INLINE void wino_out_chunk(const ConvParams &q, const T *prod, i64 stride, i64 row0,
                                      i64 j0, i64 nj, i64 m0, i64 mb,
                                      T (&buf)[2][2 * kWinoOutTiles][kWinoOutChannels]) {
  for (i64 j = 0; j < nj; ++j) {
    const T *p = prod + (row0 + j0 + j) * q.M + m0;
    for (i64 c = 0; c < mb; ++c) {
      T t[2][4]; /* A^T P: rows p0 + p1 + p2, p1 - p2 - p3 */
      for (int k = 0; k < 4; ++k) {
        const T p0 = p[k * stride + c], p1 = p[(4 + k) * stride + c];
        const T p2 = p[(8 + k) * stride + c], p3 = p[(12 + k) * stride + c];
        t[0][k] = p0 + p1 + p2;
        t[1][k] = p1 - p2 - p3;
      }
      for (int i = 0; i < 2; ++i) {
        buf[i][2 * j][c] = t[i][0] + t[i][1] + t[i][2];
        buf[i][2 * j + 1][c] = t[i][1] - t[i][2] - t[i][3];
      }
    }
  }
}

/// Phase 3 for tile row th of image n (its tiles at row `row0` of the P_xi at prod, `stride`
/// apart) and channels [m0, m0 + kWinoOutChannels) clipped to M: the two output rows (one when
/// the output height is odd), bias added, then the fused residual, then the activation.
template <typename T>
ONNXC_GEMM_INLINE void wino_out_row(const ConvParams &q, const Act<T> &act, const ConvPtrs<T> &t,
                                    const T *prod, i64 stride, i64 row0, i64 n, i64 th, i64 m0) {
  const i64 tw = wino_tiles_w(q), OH = q.w.out[1], OW = q.w.out[2];
  const i64 mb = gemm::min_i(kWinoOutChannels, q.M - m0), oh = th * 2;
  const i64 nr = gemm::min_i(2, OH - oh);
  T buf[2][2 * kWinoOutTiles][kWinoOutChannels];
  for (i64 j0 = 0; j0 < tw; j0 += kWinoOutTiles) {
    const i64 nj = gemm::min_i(kWinoOutTiles, tw - j0);
    const i64 cols = gemm::min_i(2 * nj, OW - 2 * j0);
    wino_out_chunk(q, prod, stride, row0, j0, nj, m0, mb, buf);
    for (i64 c = 0; c < mb; ++c) {
      const T b0 = t.bias ? t.bias[m0 + c] : T(0);
      const i64 at = ((n * q.M + m0 + c) * OH + oh) * OW + 2 * j0;
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
template <typename T>
ONNXC_GEMM_INLINE void wino_output(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t,
                                   const T *prod) {
  const ConvParams cp = params_of<ConvParams>(params);
  const i64 items = cp.N * gemm::ceil_div(cp.w.out[1], 2) * gemm::ceil_div(cp.M, kWinoOutChannels);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const Act<T> act = make_act<T>(q.act);
    const i64 tw = wino_tiles_w(q), th_n = gemm::ceil_div(q.w.out[1], 2);
    const i64 mbs = gemm::ceil_div(q.M, kWinoOutChannels), stride = wino_p_stride(q, sizeof(T));
    for (i64 it = lo; it < hi; ++it) {
      const i64 r = it / mbs, m0 = (it % mbs) * kWinoOutChannels, n = r / th_n, th = r % th_n;
      wino_out_row(q, act, t, prod, stride, (n * th_n + th) * tw, n, th, m0);
    }
  };
  parallel_for(rt, params, items, 1, body);
}

/// The blocked path (wino_blocked): work items are the lanes; each runs its blocks of whole
/// tile rows through the three phases in its own part of the scratch.
template <typename T>
ONNXC_GEMM_INLINE void conv_winograd_blocked(onnxc_rt *rt, const i64 *params,
                                             const ConvPtrs<T> &t) {
  const ConvParams cp = params_of<ConvParams>(params);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ConvParams q = params_of<ConvParams>(pp);
    const Act<T> act = make_act<T>(q.act);
    const WinoBlocks b = wino_blocks(q, sizeof(T));
    const i64 tw = wino_tiles_w(q), th_n = gemm::ceil_div(q.w.out[1], 2);
    const i64 per_image = gemm::ceil_div(th_n, b.tile_rows), ue = wino_u_elems(q, sizeof(T));
    for (i64 lane = lo; lane < hi; ++lane) {
      T *v = t.packed + lane * b.lane_elems, *prod = v + 16 * b.v_stride;
      for (i64 blk = lane; blk < b.blocks; blk += b.lanes) {
        const i64 n = blk / per_image, th0 = (blk % per_image) * b.tile_rows;
        const i64 nth = gemm::min_i(b.tile_rows, th_n - th0), rows = nth * tw;
        wino_in_panels(q, t.x, v, b.v_stride, (n * th_n + th0) * tw, rows, 0,
                       gemm::ceil_div(rows, gemm::kMR));
        for (i64 xi = 0; xi < 16; ++xi)
          wino_product(q, t.w + xi * ue, v + xi * b.v_stride, prod + xi * b.p_stride, rows, 0, rows,
                       0, q.M);
        for (i64 th = 0; th < nth; ++th)
          for (i64 m0 = 0; m0 < q.M; m0 += kWinoOutChannels)
            wino_out_row(q, act, t, prod, b.p_stride, th * tw, n, th0 + th, m0);
      }
    }
  };
  parallel_for(rt, params, wino_blocks(cp, sizeof(T)).lanes, 1, body);
}

/// kConvWinograd: the three phases (W in t.w is the 16 packed U_xi), blocked for large planes.
template <typename T>
ONNXC_GEMM_INLINE void conv_winograd(onnxc_rt *rt, const i64 *params, const ConvPtrs<T> &t) {
  const ConvParams cp = params_of<ConvParams>(params);
  if (wino_blocked(cp, sizeof(T)))
    return conv_winograd_blocked(rt, params, t);
  T *v = t.packed, *prod = t.packed + 16 * wino_v_stride(cp, sizeof(T));
  wino_input(rt, params, t.x, v);
  wino_products(rt, params, t.w, v, prod);
  wino_output(rt, params, t, prod);
}

} // namespace
} // namespace onnxc_k

#endif
