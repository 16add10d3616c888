/* Cache-blocked GEMM shared by the MatMul/Gemm, Conv and recurrent kernels.
 *
 *   Y[i, j] = act(alpha * sum_k A[i, k] * B[k, j]  +  beta * C[i, j]  +  R[i, j])
 *                                                            (C, the residual R, act optional)
 *
 * A, Y and C are read/written through (row, column) element strides, so transposed operands and
 * broadcast C (stride 0) cost nothing. B is first packed (by the caller's packer, e.g. im2col)
 * into panels of NR = kNV vectors of columns (gemm_params.h; constant B may come pre-packed). A
 * is read with its strides, or as kMR-row panels when pre-packed (a_packed); the A layout is a
 * template parameter of the micro-kernel, so its inner loop has constant offsets.
 *
 * Micro-kernel: an R x (NV vectors) tile of Y in R x NV 64-byte accumulator vectors (R =
 * Problem::mr, up to kMR = 8, chosen by the lowering for the target's registers; NV =
 * tile_vectors(R): 8 x 3 = 24 zmm on AVX-512, a whole panel; 6 x 1 x 2 = 12 ymm on AVX2 and 6 x
 * 1 x 4 = 24 q registers on AArch64 NEON, which walk each panel in column slices of one
 * vector, reading packed A row by row: rows6()), K loop outermost: per k, NV loads of B and R
 * broadcasts of A feed R x NV independent FMAs, enough to hide the FMA latency. M and N remainders
 * use smaller tiles (R a power of two, fewer vectors). Each micro-kernel variant (T, R, vectors, A
 * layout) is one out-of-line function shared by every node; the callers (run() with node params,
 * conv.cpp's bodies) are node-specialised, so the layout, tile rows and the M/N remainders are
 * constants there and a node calls only the variants it needs, and LLVM never inlines all of them
 * into one body. The vectors are written with the generic vector extension rather than left to the
 * auto-vectoriser, because the bitcode is optimised before the target's vector width is known; LLVM
 * legalises them for the target when the model is compiled. The fused activation
 * (templates/cpu/activation.h) is applied when the last K block of a tile is stored.
 *
 * Blocking: K in blocks of KC (the R x KC panel of A stays in L1, a KC x NR panel of B in L1/L2
 * and is reused for every micro-tile of the MC rows before the next panel); parallel work items
 * are (batch, block of MC rows, block of NC columns), NC shrunk for small M so that the threads
 * get equal shares.
 */
#ifndef ONNXC_NN_GEMM_H
#define ONNXC_NN_GEMM_H

#include "templates/cpu/activation.h"
#include "templates/cpu/gemm_params.h"
#include "templates/cpu/kernel_abi.h"

namespace onnxc_k {
namespace gemm {

/// Forces the micro-kernel dispatch (block() down to micro_cols()) into its caller, so that in a
/// node-specialised body the layout, tile rows and remainders fold to the variants it calls.
#define ONNXC_GEMM_INLINE __attribute__((always_inline)) inline

/* kMR, kMC, kKC, kNC, kSmallM, kSmallNC and the packed layouts: templates/cpu/gemm_params.h */
template <typename T> constexpr i64 nr() { return panel_width(sizeof(T)); }

/// Elements of one packed B (K x N).
template <typename T> inline i64 packed_elems(i64 K, i64 N) {
  return packed_b_elems(K, N, sizeof(T));
}

/// One GEMM on packed B. Element strides: A (rsa, csa), Y (rsy, csy), C (rsc, csc).
template <typename T> struct Problem {
  i64 M, N, K;
  const T *a;
  i64 rsa, csa;
  const T *bp; /* packed B, or nullptr: small M, read B directly */
  const T *b;  /* B itself (used when bp is null): unit stride along N or along K */
  i64 rsb, csb;
  T *y;
  i64 rsy, csy;
  T alpha, beta;
  const T *c; /* nullptr: no C term */
  i64 rsc, csc;
  Act<T> act;       /* applied to the finished Y elements */
  i64 a_packed = 0; /* 1: a is packed A (gemm_params.h), rsa/csa unused */
  i64 mr = kMR;     /* micro-tile rows: 1, 2, 4, 6 or kMR (GemmParams::mr) */
  /* A residual R (row stride rsr, columns contiguous) added after the C term, before the
     activation: Y = act(alpha * A B + beta * C + R) (a Conv's fused residual Add). */
  const T *r = nullptr;
  i64 rsr = 0;
  /* B read in place (bd, rows ldb elements apart, columns contiguous) for its whole panels;
     bp then holds only the last, partial panel, packed. */
  const T *bd = nullptr;
  i64 ldb = 0;
  /* packed B's sub-panel width (gemm_params.h b_slice_width); 0: whole panels (NR) */
  i64 bsub = 0;
  /* 1: B comes from L3 or memory (constant packed weights, or a large B read in place):
     micro() requests it kBPrefetchK rows ahead; 0: B is in L1/L2 (packed at run time) */
  i64 b_stream = 0;
};

/// Packs panel `p` of B (gemm_params.h's pack_b_panel), in sub-panels of `sub` columns.
template <typename T>
inline void pack_panel(T *dst, const T *b, i64 K, i64 N, i64 rsb, i64 csb, i64 p,
                       i64 sub = nr<T>()) {
  pack_b_panel(dst, b, K, N, rsb, csb, p, sub);
}

/// One 64-byte vector of T (generic vector extension: one zmm, two ymm or four NEON q registers,
/// whatever the target at model-compile time has).
template <typename T> struct Vec;
template <> struct Vec<float> { typedef float type __attribute__((vector_size(kVecBytes))); };
template <> struct Vec<double> { typedef double type __attribute__((vector_size(kVecBytes))); };

/// How the micro-kernel addresses A: a compile-time layout, so that the inner loop has constant
/// offsets (the Problem reaches it through the thread pool, so its fields are not constants).
/// kAPackedRows: packed A read through one pointer per row, for tiles that do not line up with
/// its kMR-row panels (6-row tiles: a row tile may start in one panel and end in the next).
enum ALayout { kAPacked, kARowMajor, kAStrided, kAPackedRows };

/// Stores `cols` finished accumulator elements r[0..cols) of row i, columns j0.. of Y: the first
/// K block writes alpha*acc + beta*C, later ones add alpha*acc; the last applies the activation.
template <typename T>
inline void store_row(const Problem<T> &p, i64 i, i64 j0, i64 cols, const T *r, i64 k0, bool last) {
  T *y = p.y + i * p.rsy + j0 * p.csy;
  /* The residual is read in the expression that writes y: Y may share R's buffer. */
  const T *res = k0 == 0 && p.r ? p.r + i * p.rsr + j0 : nullptr;
  if (k0 > 0) {
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] += p.alpha * r[j];
  } else if (p.c && res) {
    const T *c = p.c + i * p.rsc + j0 * p.csc;
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] = p.alpha * r[j] + p.beta * c[j * p.csc] + res[j];
  } else if (p.c) {
    const T *c = p.c + i * p.rsc + j0 * p.csc;
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] = p.alpha * r[j] + p.beta * c[j * p.csc];
  } else if (res) {
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] = p.alpha * r[j] + res[j];
  } else {
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] = p.alpha * r[j];
  }
  if (last && p.act.kind != kActNone) /* the row segment is final and in L1 */
    apply_act_row(p.act, y, cols, p.csy);
}

/// Rows of packed B (k) that micro() requests ahead of its loads. A constant B (an MLP's or a
/// transformer's weights, 8-16 MiB per layer) is streamed from L3 or memory by the first row
/// tile of each panel; the hardware prefetcher restarts at every 4 KiB page of it, and the
/// micro-kernel stalled on B's loads (Intel Xeon, 2 x 512-bit FMA: a 32 x 1024 x 2048 Gemm
/// layer of the mlp at 82 GFLOP/s, 39% of the peak; 4 layers of 2048 x 2048: 13.8 -> 11.6 ms).
/// The later row tiles read the panel from L2, where the requests cost an issue slot each.
constexpr i64 kBPrefetchK = 32;

/// Y tiles [i0, i0+rows) x [j0, j0+cols) (rows <= R; cols: consecutive column slices of NV
/// vectors, the last one possibly narrower) from the K range [k0, k0+kc): per slice, R x NV
/// accumulator vectors stay in registers through the K loop (A broadcast, B loaded as NV
/// vectors of the packed panel). R rows of A are read (a packed A is zero-padded to its panel,
/// so R may exceed `rows` there); only `rows` x `cols` are stored. Several slices per call share
/// the set-up of A's row pointers and the call: with a short K (a pointwise conv from 16 to 64
/// channels: 16 to 64 iterations of the K loop) that set-up and the epilogue were a third of a
/// tile's time (`perf`, session 32). `hot`: the model's pipeline re-optimises it for the
/// target (its K loop unrolled for the core), unlike the rest of the template code.
template <typename T, int R, int NV, ALayout L>
__attribute__((noinline, hot)) void micro(const Problem<T> &p, i64 i0, i64 rows, i64 j0_first,
                                     i64 cols_all, i64 k0, i64 kc) {
  typedef typename Vec<T>::type V;
  constexpr i64 NR = nr<T>(), VL = kVecBytes / sizeof(T);
  static_assert(NV <= kNV && R <= kMR, "tile shape");
  const i64 kk = p.K > 0 ? p.K : 1;
  const i64 rsa = L == kAPacked ? 1 : p.rsa;
  const i64 csa = L == kAPacked ? kMR : L == kARowMajor ? 1 : p.csa;
  const T *a =
      L == kAPacked ? p.a + (i0 / kMR) * kMR * kk + k0 * kMR + i0 % kMR : p.a + i0 * rsa + k0 * csa;
  const T *ar[R]; /* kAPackedRows: row i's element k is ar[i][k * kMR] */
  if constexpr (L == kAPackedRows)
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i)
      ar[i] = p.a + ((i0 + i) / kMR) * kMR * kk + k0 * kMR + (i0 + i) % kMR;
  const bool last = k0 + kc >= p.K;
  const i64 sub = p.bsub > 0 ? p.bsub : NR;
  /* A packed A (constant weights, often streamed from memory) is prefetched one row tile
     ahead: the next tile's part of this K block, one 64-byte line per 64 bytes used here. */
  const T *a_next = a + kMR * kk;
  const bool prefetch_b = p.b_stream != 0;
  constexpr i64 kLine = 64 / (kMR * sizeof(T)) > 0 ? 64 / (kMR * sizeof(T)) : 1;
  for (i64 js = 0; js < cols_all; js += NV * VL) {
    const i64 j0 = j0_first + js, cols = min_i(NV * VL, cols_all - js);
    V acc[R][NV];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[i][v] = V{};
    /* j0 may start a column slice inside its panel (tile_vectors() < kNV) */
    const bool in_place = p.bd && (j0 / NR) * NR + NR <= p.N;
    const i64 jp = j0 % NR; /* jp: first column in the panel */
    const i64 ldb = in_place ? p.ldb : sub;
    /* with bd, bp holds only the last panel */
    const T *b = in_place ? p.bd + k0 * ldb + j0
                          : p.bp + packed_b_col(kk, NR, sub, p.bd ? jp : j0) + k0 * sub;
    /* The tile's residual rows (read once, by the epilogue of the first K block) are requested
       now, so that they arrive during the K loop: each row is its own stream at the plane's
       stride, more streams than the hardware prefetcher follows. */
    if (p.r && k0 == 0 && cols == NV * VL)
#pragma GCC unroll 8
      for (int i = 0; i < R; ++i)
        if (i < rows)
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            __builtin_prefetch(p.r + (i0 + i) * p.rsr + j0 + v * VL);
    /* The tile's Y lines are requested for writing now, so that their read-for-ownership misses
       (a layer's output that left the caches since the last run) overlap the K loop instead of
       stalling the stores after it. */
    if (k0 == 0 && p.csy == 1 && cols == NV * VL)
#pragma GCC unroll 8
      for (int i = 0; i < R; ++i)
        if (i < rows)
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            __builtin_prefetch(p.y + (i0 + i) * p.rsy + j0 + v * VL, 1);
    for (i64 k = 0; k < kc; ++k) {
      if (L == kAPacked && k % kLine == 0)
        __builtin_prefetch(a_next + k * kMR);
      if (prefetch_b) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          __builtin_prefetch(b + (k + kBPrefetchK) * ldb + v * VL);
        if (in_place) /* an unaligned row of the plane: one line more */
          __builtin_prefetch(b + (k + kBPrefetchK) * ldb + NV * VL - 1);
      }
      V bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        __builtin_memcpy(&bv[v], b + k * ldb + v * VL, sizeof(V));
#pragma GCC unroll 8
      for (int i = 0; i < R; ++i) {
        const T av = L == kAPackedRows ? ar[i][k * kMR] : a[i * rsa + k * csa];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          acc[i][v] += av * bv[v];
      }
    }
    if (cols == NV * VL && p.csy == 1 && (!p.c || k0 > 0 || p.csc <= 1)) {
      /* A tile of whole vectors of contiguous Y rows (a panel's, a 6-row tile's column slice, or
         the last vectors of a row: per element, store_row() had been 16% of a Winograd conv
         with 784 columns, 16 past the last whole panel): stored straight from the accumulators
         as vectors, Relu/Clip/LeakyRelu applied in registers, the other activations to the stored
         rows by the shared apply_act_rows() (the expressions of store_row() and apply_act(), so
         the results are the same). */
      const T alpha = p.alpha, beta = p.beta;
      const bool act_here = last && p.act.kind != kActNone;
      /* Unrolled, so that acc[i] is a register, not a stack slot indexed at run time. */
#pragma GCC unroll 8
      for (int i = 0; i < R; ++i) {
        if (i >= rows)
          break;
        T *y = p.y + (i0 + i) * p.rsy + j0;
        V out[NV];
        if (k0 > 0) {
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) {
            V yv;
            __builtin_memcpy(&yv, y + v * VL, sizeof(V));
            out[v] = yv + alpha * acc[i][v];
          }
        } else if (p.c && p.csc == 0) { /* C broadcast along the row (a bias per row) */
          const T bc = beta * p.c[(i0 + i) * p.rsc];
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            out[v] = alpha * acc[i][v] + bc;
        } else if (p.c) {
          const T *c = p.c + (i0 + i) * p.rsc + j0;
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) {
            V cv;
            __builtin_memcpy(&cv, c + v * VL, sizeof(V));
            out[v] = alpha * acc[i][v] + beta * cv;
          }
        } else if (k0 == 0 && p.r) { /* no C: alpha * acc + R in one expression, as store_row()
                                        (one rounding where it contracts to an FMA) */
          const T *res = p.r + (i0 + i) * p.rsr + j0;
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) {
            V rv;
            __builtin_memcpy(&rv, res + v * VL, sizeof(V));
            out[v] = alpha * acc[i][v] + rv;
          }
        } else {
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            out[v] = alpha * acc[i][v];
        }
        if (k0 == 0 && p.r && p.c) { /* the residual, once, with the first K block */
          const T *res = p.r + (i0 + i) * p.rsr + j0;
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) {
            V rv;
            __builtin_memcpy(&rv, res + v * VL, sizeof(V));
            out[v] += rv;
          }
        }
        if (act_here && act_is_cheap(p.act.kind))
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            out[v] = act_vec_cheap(p.act, out[v]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          __builtin_memcpy(y + v * VL, &out[v], sizeof(V));
      }
      if (act_here && !act_is_cheap(p.act.kind)) /* the tile's rows are in L1: one call */
        apply_act_rows(p.act, p.y + i0 * p.rsy + j0, rows < R ? rows : R, cols, p.rsy);
      continue;
    }
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      if (i >= rows)
        break;
      T r[NV * VL];
      __builtin_memcpy(r, &acc[i][0], sizeof r);
      store_row(p, i0 + i, j0, cols, r, k0, last);
    }
  }
}

/// Columns up to this many at the end of B (N % NR) go through micro_narrow().
constexpr i64 kNarrowCols = 4;

/// Row k0 of packed B's last columns from j0 (a panel's N % NR, or with 6-row tiles a column
/// slice's, which starts a sub-panel, or, whole-width, is a column of the panel's rows), and
/// its row stride: micro_narrow()'s B.
template <typename T> inline const T *narrow_b(const Problem<T> &p, i64 j0, i64 k0, i64 &ldb) {
  constexpr i64 NR = nr<T>();
  const i64 kk = p.K > 0 ? p.K : 1, jp = j0 % NR;
  ldb = p.bsub > 0 ? p.bsub : NR;
  return p.bp + packed_b_col(kk, NR, ldb, p.bd ? jp : j0) + k0 * ldb;
}

/// The last C <= kNarrowCols columns of Y (a 7x7 plane: 49 = one panel and 1), rows
/// [i0, i0+rows) of one packed A panel (i0 a multiple of kMR; also for 6-row tiles, whose
/// one-vector micro-kernel would use one lane in 16 there: narrow_panels()): per k, A's kMR
/// elements of the panel are one vector, multiplied by each column's B element broadcast, so every
/// lane does useful work where micro() with one vector would use one lane per accumulator. U sets
/// of accumulators (k mod U) keep enough FMAs in flight; summed at the end.
template <typename T, int C>
__attribute__((noinline)) void micro_narrow(const Problem<T> &p, i64 i0, i64 rows, i64 j0, i64 k0,
                                            i64 kc, const T *b, i64 ldb) {
  typedef T VA __attribute__((vector_size(kMR * sizeof(T))));
  constexpr int U = C == 1 ? 8 : C == 2 ? 4 : 2;
  const i64 kk = p.K > 0 ? p.K : 1;
  const T *a = p.a + (i0 / kMR) * kMR * kk + k0 * kMR;
  VA acc[U][C];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      acc[u][c] = VA{};
  i64 k = 0;
  for (; k + U <= kc; k += U)
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      VA av;
      __builtin_memcpy(&av, a + (k + u) * kMR, sizeof av);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c)
        acc[u][c] += av * b[(k + u) * ldb + c];
    }
  for (; k < kc; ++k) {
    VA av;
    __builtin_memcpy(&av, a + k * kMR, sizeof av);
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      acc[0][c] += av * b[k * ldb + c];
  }
#pragma GCC unroll 8
  for (int u = 1; u < U; ++u)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      acc[0][c] += acc[u][c];
  const bool last = k0 + kc >= p.K;
  /* contiguous rows: the activation in one call for the tile's rows after the stores (one
     call per row of C elements had been 3% of a chain of 96 -> 96 1x1 convs at 14x14) */
  const bool rows_act = last && p.csy == 1 && p.act.kind != kActNone;
#pragma GCC unroll 8
  for (int i = 0; i < kMR; ++i) {
    if (i >= rows)
      break;
    T r[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      r[c] = acc[0][c][i];
    store_row(p, i0 + i, j0, C, r, k0, last && !rows_act);
  }
  if (rows_act)
    apply_act_rows(p.act, p.y + i0 * p.rsy + j0, rows < kMR ? rows : kMR, C, p.rsy);
}

/// micro() with as few vectors as `cols` needs (the last panel of a narrow N); with packed A
/// and full row tiles, micro_narrow() for the last kNarrowCols columns or fewer.
template <typename T, int R, ALayout L>
ONNXC_GEMM_INLINE void micro_cols(const Problem<T> &p, i64 i0, i64 rows, i64 j0, i64 cols, i64 k0,
                                  i64 kc) {
  constexpr i64 VL = kVecBytes / sizeof(T);
  static_assert(kNV == 3, "micro_cols covers 1..3 vectors");
  static_assert(kNarrowCols == 4, "micro_narrow variants for 1..4 columns");
  if constexpr (L == kAPacked && R == kMR) {
    i64 ldb = 0;
    const T *b = cols <= kNarrowCols ? narrow_b(p, j0, k0, ldb) : nullptr;
    switch (cols) {
    case 1:
      return micro_narrow<T, 1>(p, i0, rows, j0, k0, kc, b, ldb);
    case 2:
      return micro_narrow<T, 2>(p, i0, rows, j0, k0, kc, b, ldb);
    case 3:
      return micro_narrow<T, 3>(p, i0, rows, j0, k0, kc, b, ldb);
    case 4:
      return micro_narrow<T, 4>(p, i0, rows, j0, k0, kc, b, ldb);
    default:
      break;
    }
  }
  if (cols > 2 * VL)
    return micro<T, R, 3, L>(p, i0, rows, j0, cols, k0, kc);
  if (cols > VL)
    return micro<T, R, 2, L>(p, i0, rows, j0, cols, k0, kc);
  return micro<T, R, 1, L>(p, i0, rows, j0, cols, k0, kc);
}

/// micro_cols() with R rows, R a power of two up to kMR.
template <typename T, ALayout L>
ONNXC_GEMM_INLINE void micro_rows(const Problem<T> &p, i64 R, i64 i0, i64 rows, i64 j0, i64 cols,
                                  i64 k0, i64 kc) {
  static_assert(kMR == 8, "micro_rows covers 1, 2, 4 and 8 rows");
  switch (R) {
  case 8:
    return micro_cols<T, 8, L>(p, i0, rows, j0, cols, k0, kc);
  case 4:
    return micro_cols<T, 4, L>(p, i0, rows, j0, cols, k0, kc);
  case 2:
    return micro_cols<T, 2, L>(p, i0, rows, j0, cols, k0, kc);
  default:
    return micro_cols<T, 1, L>(p, i0, rows, j0, cols, k0, kc);
  }
}

/// What decides the micro-kernel variants of a Problem, read once before any micro-kernel call
/// (the Problem's address escapes to the out-of-line micro-kernels, so later reads of it are
/// not constants even in a node-specialised body).
struct Tiling {
  i64 M, N, K;
  i64 mr;      /* micro-tile rows: 1, 2, 4, 6 or kMR (Problem::mr; anything else is kMR) */
  i64 layout;  /* ALayout of A */
  i64 slice;   /* columns per micro-tile: tile_vectors(mr) vectors */
  bool direct; /* no packed B (Problem::bp null): small_m() */
};
template <typename T> ONNXC_GEMM_INLINE Tiling tiling(const Problem<T> &p) {
  const i64 mr = p.mr == 1 || p.mr == 2 || p.mr == 4 || p.mr == 6 ? p.mr : kMR;
  return {p.M,
          p.N,
          p.K,
          mr,
          p.a_packed   ? (mr == 6 ? kAPackedRows : kAPacked)
          : p.csa == 1 ? kARowMajor
                       : kAStrided,
          tile_vectors(mr) * (kVecBytes / i64(sizeof(T))),
          p.bp == nullptr};
}

/// Rows [i0, i1) x one column slice (at most one vector) with 6-row tiles, then tiles of 4, 2
/// and 1 rows as the bits of the rest say: every tile exact (no zero-padded rows), for blocks of
/// any number of rows. Out of line, so that the bodies that do not fold the tile height (and the
/// AVX-512 ones, which never run it) carry one call, not this code.
template <typename T, ALayout L>
__attribute__((noinline)) void rows6(const Problem<T> &p, i64 i0, i64 i1, i64 j0, i64 cols, i64 k0,
                                     i64 kc) {
  i64 i = i0;
  for (; i + 6 <= i1; i += 6)
    micro<T, 6, 1, L>(p, i, 6, j0, cols, k0, kc);
  if ((i1 - i) & 4) {
    micro<T, 4, 1, L>(p, i, 4, j0, cols, k0, kc);
    i += 4;
  }
  if ((i1 - i) & 2) {
    micro<T, 2, 1, L>(p, i, 2, j0, cols, k0, kc);
    i += 2;
  }
  if ((i1 - i) & 1)
    micro<T, 1, 1, L>(p, i, 1, j0, cols, k0, kc);
}

/// Rows [i0, i1) x one panel in layout L: tiles of mr rows, then (only when i1 == M; blocks
/// start at multiples of kMR) the M % mr rows left: with zero-padded packed A one tile of the
/// next power of two, else tiles of mr/2, mr/4, ... rows as the bits of the rest say. The rest
/// is a constant in a node-specialised body, so only the tiles it needs remain there.
template <typename T, ALayout L>
ONNXC_GEMM_INLINE void panel_rows_in(const Problem<T> &p, const Tiling &t, i64 i0, i64 i1, i64 j0,
                                     i64 cols, i64 k0, i64 kc) {
  if constexpr (L != kAPacked) /* (packed A with 6-row tiles is kAPackedRows) */
    if (t.mr == 6)
      return rows6<T, L>(p, i0, i1, j0, cols, k0, kc);
  const i64 mr = t.mr, rest = i1 == t.M ? t.M % mr : 0, full = i1 - rest;
  i64 i = i0;
  for (; i < full; i += mr)
    micro_rows<T, L>(p, mr, i, mr, j0, cols, k0, kc);
  if (rest == 0)
    return;
  if (L == kAPacked) {
    const i64 R = rest <= 1 ? 1 : rest <= 2 ? 2 : rest <= 4 ? 4 : kMR;
    return micro_rows<T, L>(p, R, i, rest, j0, cols, k0, kc);
  }
  for (i64 R = kMR / 2; R >= 1; R /= 2)
    if (rest & R) {
      micro_rows<T, L>(p, R, i, R, j0, cols, k0, kc);
      i += R;
    }
}

/// Rows [i0, i1) (i0 a multiple of kMR) x the last C columns of B, packed A read as its kMR-row
/// panels: micro_narrow() per panel. Out of line, like rows6().
template <typename T, int C>
__attribute__((noinline)) void narrow_panels(const Problem<T> &p, i64 i0, i64 i1, i64 j0, i64 k0,
                                             i64 kc) {
  i64 ldb = 0;
  const T *b = narrow_b(p, j0, k0, ldb);
  for (i64 i = i0; i < i1; i += kMR)
    micro_narrow<T, C>(p, i, min_i(kMR, i1 - i), j0, k0, kc, b, ldb);
}

/// Copies rows [k0, k0 + kc) (kc <= kKC) of B's last `cols` (<= kNarrowCols) columns from j0
/// into nb, `cols` per row: in packed B each such row is one element of a 64- to 192-byte
/// panel row, so every k of every row tile's micro_narrow() read a cache line of its own (a
/// 7x7 plane's 49th column cost 13-14% of the Conv for 2% of its FMAs).
template <typename T>
__attribute__((noinline)) void narrow_compact(const Problem<T> &p, i64 j0, i64 cols, i64 k0,
                                              i64 kc, T *nb) {
  i64 ldb = 0;
  const T *b = narrow_b(p, j0, k0, ldb);
  for (i64 k = 0; k < kc; ++k)
    for (i64 c = 0; c < cols; ++c)
      nb[k * cols + c] = b[k * ldb + c];
}

/// micro_narrow() of rows [i0, i0 + rows) (one packed A panel) x the last `cols` columns, B
/// from narrow_compact()'s copy.
template <typename T>
ONNXC_GEMM_INLINE void narrow_from(const Problem<T> &p, i64 cols, i64 i0, i64 rows, i64 j0,
                                   i64 k0, i64 kc, const T *nb) {
  static_assert(kNarrowCols == 4, "micro_narrow variants for 1..4 columns");
  if (cols == 1)
    micro_narrow<T, 1>(p, i0, rows, j0, k0, kc, nb, 1);
  else if (cols == 2)
    micro_narrow<T, 2>(p, i0, rows, j0, k0, kc, nb, 2);
  else if (cols == 3)
    micro_narrow<T, 3>(p, i0, rows, j0, k0, kc, nb, 3);
  else
    micro_narrow<T, 4>(p, i0, rows, j0, k0, kc, nb, 4);
}

/// Rows [i0, i1) x one panel (columns j0 .., cols of them) from K range [k0, k0+kc), in the
/// micro-kernel for A's layout (a constant in a node-specialised body).
template <typename T>
ONNXC_GEMM_INLINE void slice_rows(const Problem<T> &p, const Tiling &t, i64 i0, i64 i1, i64 j0,
                                  i64 cols, i64 k0, i64 kc) {
  static_assert(kNarrowCols == 4, "narrow_panels variants for 1..4 columns");
  if (t.layout == kAPacked)
    panel_rows_in<T, kAPacked>(p, t, i0, i1, j0, cols, k0, kc);
  else if (t.layout == kAPackedRows && cols <= kNarrowCols && i0 % kMR == 0) {
    /* 6-row tiles, the last few columns of B (a 7x7 plane: 49 = 3 slices and 1 column): the
       packed A's kMR-row panels as vectors instead of a one-vector tile with one lane used */
    if (cols == 1)
      narrow_panels<T, 1>(p, i0, i1, j0, k0, kc);
    else if (cols == 2)
      narrow_panels<T, 2>(p, i0, i1, j0, k0, kc);
    else if (cols == 3)
      narrow_panels<T, 3>(p, i0, i1, j0, k0, kc);
    else
      narrow_panels<T, 4>(p, i0, i1, j0, k0, kc);
  } else if (t.layout == kAPackedRows) /* only with 6-row tiles (tiling()) */
    rows6<T, kAPackedRows>(p, i0, i1, j0, cols, k0, kc);
  else if (t.layout == kARowMajor)
    panel_rows_in<T, kARowMajor>(p, t, i0, i1, j0, cols, k0, kc);
  else
    panel_rows_in<T, kAStrided>(p, t, i0, i1, j0, cols, k0, kc);
}

/// Bytes of B (a K block x whole column slices) that one micro-kernel call of one-vector tiles
/// may cover: with A's tile beside it, it stays in L1 for the call.
constexpr i64 kSliceGroupBytes = 16 * 1024;

/// slice_rows() for each column slice of the columns in turn (one slice when tiles are as wide
/// as panels): the slice's KC x slice part of B stays in L1 for all the rows. One-vector tiles
/// (6-row tiles) take several whole slices per call when their K block of B fits
/// kSliceGroupBytes (a K block of at most 64: the micro-kernel's set-up is then shared; the
/// rows of the group run outermost, so the group's B stays in L1 instead of the slice's).
template <typename T>
ONNXC_GEMM_INLINE void panel_rows(const Problem<T> &p, const Tiling &t, i64 i0, i64 i1, i64 j0,
                                  i64 cols, i64 k0, i64 kc) {
  const i64 slice_bytes = (kc > 0 ? kc : 1) * t.slice * i64(sizeof(T));
  const i64 group = t.mr == 6 && slice_bytes <= kSliceGroupBytes / 2 /* rows6(): micro<T, R, 1> */
                        ? kSliceGroupBytes / slice_bytes * t.slice
                        : t.slice;
  for (i64 s = 0; s < cols;) {
    const i64 whole = (cols - s) / t.slice * t.slice; /* a narrow last piece stays on its own */
    const i64 w = whole > t.slice ? min_i(group, whole) : min_i(t.slice, cols - s);
    slice_rows(p, t, i0, i1, j0 + s, w, k0, kc);
    s += w;
  }
}

/// Writes Y[i, j] = act(alpha * acc + beta * C[i, j]) (the epilogue of the direct path).
template <typename T> inline void store(const Problem<T> &p, i64 i, i64 j, T acc) {
  T v = p.alpha * acc;
  if (p.c)
    v += p.beta * p.c[i * p.rsc + j * p.csc];
  if (p.r)
    v += p.r[i * p.rsr + j];
  p.y[i * p.rsy + j * p.csy] = p.act(v);
}

/// s[c] = sum_k a[k] * b[c * ldb + k] for the C columns c < C (a and every column contiguous),
/// each with vector partial sums; the C independent sums hide the FMA latency and share the
/// loads of a.
template <typename T, int C> inline void dots(const T *a, const T *b, i64 ldb, i64 K, T (&s)[C]) {
  typedef typename Vec<T>::type V;
  constexpr i64 VL = kVecBytes / sizeof(T); /* one vector, not a panel */
  V acc[C];
  for (int c = 0; c < C; ++c)
    acc[c] = V{};
  i64 k = 0;
  for (; k + VL <= K; k += VL) {
    V va;
    __builtin_memcpy(&va, a + k, sizeof va);
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      V vb;
      __builtin_memcpy(&vb, b + c * ldb + k, sizeof vb);
      acc[c] += va * vb;
    }
  }
  for (int c = 0; c < C; ++c) {
    T t = 0;
    for (int j = 0; j < VL; ++j)
      t += acc[c][j];
    for (i64 kk = k; kk < K; ++kk)
      t += a[kk] * b[c * ldb + kk];
    s[c] = t;
  }
}

/// Columns of B that small_m() reduces at once (dots()).
constexpr int kDotCols = 8;

/// Small M (matrix-vector like): no packing; B is streamed once per row of Y, either as rows
/// (unit stride along N: y_row += a_k * B[k, :]) or as columns (unit stride along K: dots).
template <typename T> inline void small_m(const Problem<T> &p, i64 n0, i64 n1) {
  if (p.csb == 1) { /* all rows of Y at once, so that B is read once */
    T acc[kSmallM][kSmallNC];
    const i64 w = n1 - n0;
    for (i64 i = 0; i < p.M; ++i)
      for (i64 j = 0; j < w; ++j)
        acc[i][j] = T(0);
    for (i64 k = 0; k < p.K; ++k) {
      const T *bk = p.b + k * p.rsb + n0;
      for (i64 i = 0; i < p.M; ++i) {
        const T av = p.a[i * p.rsa + k * p.csa];
        for (i64 j = 0; j < w; ++j)
          acc[i][j] += av * bk[j];
      }
    }
    for (i64 i = 0; i < p.M; ++i)
      for (i64 j = 0; j < w; ++j)
        store(p, i, n0 + j, acc[i][j]);
    return;
  }
  i64 j0 = n0;
  if (p.csa == 1) /* kDotCols columns at once, then one at a time: the same sums */
    for (; j0 + kDotCols <= n1; j0 += kDotCols)
      for (i64 i = 0; i < p.M; ++i) {
        T s[kDotCols];
        dots(p.a + i * p.rsa, p.b + j0 * p.csb, p.csb, p.K, s);
        for (int c = 0; c < kDotCols; ++c)
          store(p, i, j0 + c, s[c]);
      }
  for (i64 j = j0; j < n1; ++j) {
    const T *bj = p.b + j * p.csb;
    for (i64 i = 0; i < p.M; ++i) {
      const T *a = p.a + i * p.rsa;
      T acc = T(0);
      if (p.csa == 1) {
        T s[1];
        dots(a, bj, 0, p.K, s);
        acc = s[0];
      } else {
        for (i64 k = 0; k < p.K; ++k)
          acc += a[k * p.csa] * bj[k];
      }
      store(p, i, j, acc);
    }
  }
}

/// block() runs row tiles outermost when the block's whole K x columns of B is at most this
/// many bytes (half of a 32 KiB L1): B then stays in L1 for all of them.
constexpr i64 kRowsOuterBytes = 16 * 1024;

/// Rows [m0, m1) x columns [n0, n1) of Y (m0 a multiple of kMR, n0 of NR). Per K block, each
/// packed B panel (KC x NR) is used for every micro-tile of the rows before the next.
/// `t` is tiling(p), read by the caller before p's address reached any call (a caller that runs
/// several blocks of one Problem reads it once: after the first block's micro-kernel calls, p's
/// fields are no longer constants in a node-specialised body, so every variant would remain).
template <typename T>
ONNXC_GEMM_INLINE void block(const Problem<T> &p, const Tiling &t, i64 m0, i64 m1, i64 n0, i64 n1) {
  constexpr i64 NR = nr<T>();
  if (t.direct)
    return small_m(p, n0, n1);
  /* whole panels, then (only when n1 == N; blocks start at multiples of NR) the N % NR
     columns left: a constant in a node-specialised body, so only one vector count remains */
  const i64 rest = n1 == t.N ? t.N % NR : 0, full = n1 - rest;
  i64 k0 = 0;
  do { /* runs once when K == 0 so that Y = beta*C */
    const i64 kc = min_i(kKC, t.K - k0);
    if (full - n0 <= NR || t.K * (n1 - n0) * i64(sizeof(T)) <= kRowsOuterBytes) {
      /* one panel and a remainder at most (a 7x7 plane), or a short K whose whole block of B
         stays in L1 (a pointwise conv from few channels): row tiles outermost, so each tile's
         part of A is read once, not per panel, and each row of Y is written in one run */
      /* 6-row tiles with packed A take the last few columns in kMR-row panels (slice_rows:
         narrow_panels), over the whole block after its tiles */
      const bool rest_after = rest && rest <= kNarrowCols && t.layout == kAPackedRows;
      /* 8-row tiles of packed A: the last few columns from a compact copy of their K block,
         made once for all the row tiles (narrow_compact) */
      const bool compact = rest && rest <= kNarrowCols && t.layout == kAPacked && t.mr == kMR &&
                           m1 - m0 > kMR;
      T nb[kKC * kNarrowCols];
      if (compact)
        narrow_compact(p, full, rest, k0, kc, nb);
      for (i64 i = m0; i < m1; i += t.mr) {
        const i64 i1 = min_i(i + t.mr, m1);
        if (full > n0)
          panel_rows(p, t, i, i1, n0, full - n0, k0, kc);
        if (compact)
          narrow_from(p, rest, i, i1 - i, full, k0, kc, nb);
        else if (rest && !rest_after)
          panel_rows(p, t, i, i1, full, rest, k0, kc);
      }
      if (rest_after)
        panel_rows(p, t, m0, m1, full, rest, k0, kc);
      k0 += kKC;
      continue;
    }
    for (i64 j0 = n0; j0 < full; j0 += NR)
      panel_rows(p, t, m0, m1, j0, NR, k0, kc);
    if (rest)
      panel_rows(p, t, m0, m1, full, rest, k0, kc);
    k0 += kKC;
  } while (k0 < t.K);
}

/// block() for one block of a freshly built Problem.
template <typename T>
ONNXC_GEMM_INLINE void block(const Problem<T> &p, i64 m0, i64 m1, i64 n0, i64 n1) {
  block(p, tiling(p), m0, m1, n0, n1);
}

/// Columns per work item: kNC, or fewer (a multiple of NR) when that splits `row_items` x the
/// column blocks evenly over `threads` (small M: every thread gets the same work).
template <typename T> inline i64 columns_per_item(i64 row_items, i64 N, i64 threads) {
  constexpr i64 NR = nr<T>();
  if (threads <= 1)
    return kNC;
  for (i64 nc = kNC; nc >= NR; nc -= NR) {
    const i64 items = row_items * ceil_div(N, nc);
    if (items % threads == 0 || items >= 8 * threads)
      return nc;
  }
  return kNC;
}

/// Work split of run(): row blocks of mc rows, column blocks of nc columns.
struct Split {
  i64 mb, nc, nb;
};
template <typename T> inline Split split(onnxc_rt *rt, i64 batches, i64 M, i64 N, bool packed) {
  const i64 mc = packed ? kMC : M, mb = ceil_div(M, mc);
  const i64 nc = packed ? columns_per_item<T>(batches * mb, N, onnxc_rt_num_threads(rt)) : kSmallNC;
  return {mb, nc, ceil_div(N, nc)};
}

/// Work item w of run()'s split: problem(b) gives batch b's Problem.
template <typename T, typename ProblemOf>
ONNXC_GEMM_INLINE void run_item(const Split &s, i64 w, ProblemOf &&problem) {
  const i64 b = w / (s.mb * s.nb), r = w % (s.mb * s.nb), bm = r / s.nb, bn = r % s.nb;
  const Problem<T> p = problem(b);
  const i64 mc = p.bp ? kMC : p.M;
  block(p, bm * mc, min_i(p.M, bm * mc + mc), bn * s.nc, min_i(p.N, bn * s.nc + s.nc));
}

/// Runs `batches` GEMMs of the same M x N; problem(params, b) gives batch b's Problem from the
/// node's params (read every shape, stride, layout and the tile rows from that argument: the
/// parallel body is then specialised for the node and the micro-kernel dispatch folds).
/// Always inlined: on the path from the kernel's entry to parallel_for (kernel_abi.h).
template <typename T, typename ProblemOf>
ONNXC_GEMM_INLINE void run(onnxc_rt *rt, const i64 *params, i64 batches, i64 M, i64 N, bool packed,
                           ProblemOf &problem) {
  if (M <= 0 || N <= 0 || batches <= 0)
    return;
  const Split s = split<T>(rt, batches, M, N, packed);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    for (i64 w = lo; w < hi; ++w)
      run_item<T>(s, w, [&](i64 b) { return problem(pp, b); });
  };
  parallel_for(rt, params, batches * s.mb * s.nb, 1, body);
}

/// run() for a caller without node params (the recurrent kernels): problem(b) gives batch b's
/// Problem; the parallel body is generic.
template <typename T, typename ProblemOf>
inline void run(onnxc_rt *rt, i64 batches, i64 M, i64 N, ProblemOf &problem) {
  if (M <= 0 || N <= 0 || batches <= 0)
    return;
  const Split s = split<T>(rt, batches, M, N, problem(0).bp != nullptr);
  auto body = [&](i64 lo, i64 hi) {
    for (i64 w = lo; w < hi; ++w)
      run_item<T>(s, w, problem);
  };
  parallel_for(rt, batches * s.mb * s.nb, 1, body);
}

} // namespace gemm
} // namespace onnxc_k

#endif
