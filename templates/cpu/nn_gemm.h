/* Cache-blocked GEMM shared by the MatMul/Gemm, Conv and recurrent kernels.
 *
 *   Y[i, j] = act(alpha * sum_k A[i, k] * B[k, j]  +  beta * C[i, j])      (C, act optional)
 *
 * A, Y and C are read/written through (row, column) element strides, so transposed operands and
 * broadcast C (stride 0) cost nothing. B is first packed (by the caller's packer, e.g. im2col)
 * into panels of NR = kNV vectors of columns (gemm_params.h; constant B may come pre-packed). A
 * is read with its strides, or as kMR-row panels when pre-packed (a_packed); the A layout is a
 * template parameter of the micro-kernel, so its inner loop has constant offsets even though the
 * Problem reaches it through the thread pool.
 *
 * Micro-kernel: an R x NR tile of Y in R x kNV 64-byte accumulator vectors (R = Problem::mr, up
 * to kMR = 8, chosen by the lowering for the target: 8 x 3 = 24 zmm on AVX-512, 2 x 3 x 2 = 12
 * ymm on AVX2, 2 x 3 x 4 = 24 q registers on AArch64 NEON), K loop outermost: per k, kNV loads
 * of B and R broadcasts of A feed R x kNV independent FMAs, enough to hide the FMA latency. M
 * and N remainders use smaller tiles (R a power of two, fewer vectors). The vectors are written
 * with the generic vector extension rather than left to the auto-vectoriser, because the bitcode
 * is optimised before the target's vector width is known; LLVM legalises them for the target
 * when the model is compiled. The fused activation (templates/cpu/activation.h) is applied when
 * the last K block of a tile is stored.
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
  i64 mr = kMR;     /* micro-tile rows: 1, 2, 4 or kMR (GemmParams::mr) */
};

/// Packs panel `p` of B (gemm_params.h's pack_b_panel).
template <typename T>
inline void pack_panel(T *dst, const T *b, i64 K, i64 N, i64 rsb, i64 csb, i64 p) {
  pack_b_panel(dst, b, K, N, rsb, csb, p);
}

/// One 64-byte vector of T (generic vector extension: one zmm, two ymm or four NEON q registers,
/// whatever the target at model-compile time has).
template <typename T> struct Vec;
template <> struct Vec<float> { typedef float type __attribute__((vector_size(kVecBytes))); };
template <> struct Vec<double> { typedef double type __attribute__((vector_size(kVecBytes))); };

/// How the micro-kernel addresses A: a compile-time layout, so that the inner loop has constant
/// offsets (the Problem reaches it through the thread pool, so its fields are not constants).
enum ALayout { kAPacked, kARowMajor, kAStrided };

/// Stores `cols` finished accumulator elements r[0..cols) of row i, columns j0.. of Y: the first
/// K block writes alpha*acc + beta*C, later ones add alpha*acc; the last applies the activation.
template <typename T>
inline void store_row(const Problem<T> &p, i64 i, i64 j0, i64 cols, const T *r, i64 k0, bool last) {
  T *y = p.y + i * p.rsy + j0 * p.csy;
  if (k0 > 0) {
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] += p.alpha * r[j];
  } else if (p.c) {
    const T *c = p.c + i * p.rsc + j0 * p.csc;
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] = p.alpha * r[j] + p.beta * c[j * p.csc];
  } else {
    for (i64 j = 0; j < cols; ++j)
      y[j * p.csy] = p.alpha * r[j];
  }
  if (last && p.act.kind != kActNone) /* the row segment is final and in L1 */
    apply_act(p.act, y, cols, p.csy);
}

/// Y tile [i0, i0+rows) x [j0, j0+cols) (rows <= R, cols <= NV vectors) from the K range
/// [k0, k0+kc): R x NV accumulator vectors stay in registers through the K loop (A broadcast,
/// B loaded as NV vectors of the packed panel). R rows of A are read (a packed A is zero-padded
/// to its panel, so R may exceed `rows` there); only `rows` x `cols` are stored.
template <typename T, int R, int NV, ALayout L>
inline void micro(const Problem<T> &p, i64 i0, i64 rows, i64 j0, i64 cols, i64 k0, i64 kc) {
  typedef typename Vec<T>::type V;
  constexpr i64 NR = nr<T>(), VL = kVecBytes / sizeof(T);
  static_assert(NV <= kNV && R <= kMR, "tile shape");
  V acc[R][NV];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[i][v] = V{};
  const i64 kk = p.K > 0 ? p.K : 1;
  const i64 rsa = L == kAPacked ? 1 : p.rsa;
  const i64 csa = L == kAPacked ? kMR : L == kARowMajor ? 1 : p.csa;
  const T *a =
      L == kAPacked ? p.a + (i0 / kMR) * kMR * kk + k0 * kMR + i0 % kMR : p.a + i0 * rsa + k0 * csa;
  const T *b = p.bp + (j0 / NR) * kk * NR + k0 * NR;
  for (i64 k = 0; k < kc; ++k) {
    V bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      __builtin_memcpy(&bv[v], b + k * NR + v * VL, sizeof(V));
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const T av = a[i * rsa + k * csa];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[i][v] += av * bv[v];
    }
  }
  const bool last = k0 + kc >= p.K;
  for (int i = 0; i < R && i < rows; ++i) {
    T r[NV * VL];
    __builtin_memcpy(r, &acc[i][0], sizeof r);
    store_row(p, i0 + i, j0, cols, r, k0, last);
  }
}

/// micro() with as few vectors as `cols` needs (the last panel of a narrow N).
template <typename T, int R, ALayout L>
inline void micro_cols(const Problem<T> &p, i64 i0, i64 rows, i64 j0, i64 cols, i64 k0, i64 kc) {
  constexpr i64 VL = kVecBytes / sizeof(T);
  static_assert(kNV == 3, "micro_cols covers 1..3 vectors");
  if (cols > 2 * VL)
    return micro<T, R, 3, L>(p, i0, rows, j0, cols, k0, kc);
  if (cols > VL)
    return micro<T, R, 2, L>(p, i0, rows, j0, cols, k0, kc);
  return micro<T, R, 1, L>(p, i0, rows, j0, cols, k0, kc);
}

/// micro_cols() with R rows, R a power of two up to kMR.
template <typename T, ALayout L>
inline void micro_rows(const Problem<T> &p, i64 R, i64 i0, i64 rows, i64 j0, i64 cols, i64 k0,
                       i64 kc) {
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

/// The tile rows for `rows` rows left and tiles of at most `mr` (a power of two): the largest
/// power of two <= rows, or with zero-padded packed A the smallest >= rows (one pass).
inline i64 tile_height(i64 mr, i64 rows, bool padded) {
  i64 r = mr;
  while (r > 1 && (padded ? r / 2 >= rows : r > rows))
    r /= 2;
  return r;
}

/// Rows [i0, i1) x one panel (columns j0 .., cols of them) from K range [k0, k0+kc), in
/// micro-tiles of at most p.mr rows.
template <typename T>
inline void panel_rows(const Problem<T> &p, i64 i0, i64 i1, i64 j0, i64 cols, i64 k0, i64 kc) {
  const i64 mr = p.mr > 0 && p.mr <= kMR ? p.mr : kMR;
  for (i64 i = i0; i < i1;) {
    const i64 left = i1 - i, R = tile_height(mr, left, p.a_packed != 0);
    if (p.a_packed)
      micro_rows<T, kAPacked>(p, R, i, min_i(R, left), j0, cols, k0, kc);
    else if (p.csa == 1)
      micro_rows<T, kARowMajor>(p, R, i, R, j0, cols, k0, kc);
    else
      micro_rows<T, kAStrided>(p, R, i, R, j0, cols, k0, kc);
    i += R;
  }
}

/// Writes Y[i, j] = act(alpha * acc + beta * C[i, j]) (the epilogue of the direct path).
template <typename T> inline void store(const Problem<T> &p, i64 i, i64 j, T acc) {
  T v = p.alpha * acc;
  if (p.c)
    v += p.beta * p.c[i * p.rsc + j * p.csc];
  p.y[i * p.rsy + j * p.csy] = p.act(v);
}

/// sum_k a[k] * b[k] with vector partial sums (a and b contiguous).
template <typename T> inline T dot(const T *a, const T *b, i64 K) {
  typedef typename Vec<T>::type V;
  constexpr i64 VL = kVecBytes / sizeof(T); /* one vector, not a panel */
  V acc = V{};
  i64 k = 0;
  for (; k + VL <= K; k += VL) {
    V va, vb;
    __builtin_memcpy(&va, a + k, sizeof va);
    __builtin_memcpy(&vb, b + k, sizeof vb);
    acc += va * vb;
  }
  T s = 0;
  for (int j = 0; j < VL; ++j)
    s += acc[j];
  for (; k < K; ++k)
    s += a[k] * b[k];
  return s;
}

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
  for (i64 j = n0; j < n1; ++j) {
    const T *bj = p.b + j * p.csb;
    for (i64 i = 0; i < p.M; ++i) {
      const T *a = p.a + i * p.rsa;
      T acc = T(0);
      if (p.csa == 1) {
        acc = dot(a, bj, p.K);
      } else {
        for (i64 k = 0; k < p.K; ++k)
          acc += a[k * p.csa] * bj[k];
      }
      store(p, i, j, acc);
    }
  }
}

/// Rows [m0, m1) x columns [n0, n1) of Y (m0 a multiple of kMR, n0 of NR). Per K block, each
/// packed B panel (KC x NR) is used for every micro-tile of the rows before the next.
template <typename T> inline void block(const Problem<T> &p, i64 m0, i64 m1, i64 n0, i64 n1) {
  constexpr i64 NR = nr<T>();
  if (!p.bp)
    return small_m(p, n0, n1);
  i64 k0 = 0;
  do { /* runs once when K == 0 so that Y = beta*C */
    const i64 kc = min_i(kKC, p.K - k0);
    for (i64 j0 = n0; j0 < n1; j0 += NR)
      panel_rows(p, m0, m1, j0, min_i(NR, n1 - j0), k0, kc);
    k0 += kKC;
  } while (k0 < p.K);
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

/// Runs `batches` GEMMs of the same M x N; problem(b) gives batch b's Problem (B packed).
template <typename T, typename ProblemOf>
inline void run(onnxc_rt *rt, i64 batches, i64 M, i64 N, ProblemOf &problem) {
  if (M <= 0 || N <= 0 || batches <= 0)
    return;
  const bool packed = problem(0).bp != nullptr;
  const i64 mc = packed ? kMC : M, mb = ceil_div(M, mc);
  const i64 nc = packed ? columns_per_item<T>(batches * mb, N, onnxc_rt_num_threads(rt)) : kSmallNC;
  const i64 nb = ceil_div(N, nc);
  auto body = [&](i64 lo, i64 hi) {
    for (i64 w = lo; w < hi; ++w) {
      const i64 b = w / (mb * nb), r = w % (mb * nb), bm = r / nb, bn = r % nb;
      const Problem<T> p = problem(b);
      block(p, bm * mc, min_i(M, bm * mc + mc), bn * nc, min_i(N, bn * nc + nc));
    }
  };
  parallel_for(rt, batches * mb * nb, 1, body);
}

} // namespace gemm
} // namespace onnxc_k

#endif
