/* Cache-blocked GEMM shared by the MatMul/Gemm and Conv kernels.
 *
 *   Y[i, j] = act(alpha * sum_k A[i, k] * B[k, j]  +  beta * C[i, j])      (C, act optional)
 *
 * A, Y and C are read/written through (row, column) element strides, so transposed operands and
 * broadcast C (stride 0) cost nothing. B is first packed (by the caller's packer, e.g. im2col)
 * into panels of NR columns: panel p holds B[0..K, p*NR .. p*NR+NR) as K rows of NR contiguous
 * elements, zero-padded past N (gemm_params.h; constant B may come pre-packed). A is read with
 * its strides, or as MR-row panels when pre-packed (a_packed); the A layout is a template
 * parameter of the micro-kernel, so its inner loop has constant offsets even though the Problem
 * reaches it through the thread pool. The micro-kernel accumulates an MR x NR tile of Y in MR
 * 64-byte vectors with the K loop outermost (NR = 16 floats: 6 zmm on AVX-512, 12 ymm on AVX2,
 * 24 q registers on NEON). The vectors are written with the generic vector extension rather than
 * left to the auto-vectoriser, because the bitcode is optimised before the target's vector
 * width is known; LLVM legalises them for the target when the model is compiled. The fused
 * activation (templates/cpu/activation.h) is applied when the last K block of a tile is stored.
 *
 * Blocking: K in blocks of KC (the KC x NR panel stays in L1, the MC x KC block of A in L2);
 * parallel work items are (batch, block of MC rows, block of NC columns).
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
  Act<T> act;      /* applied to the finished Y elements */
  i64 a_packed = 0; /* 1: a is packed A (gemm_params.h), rsa/csa unused */
};

/// Packs panel `p` of B (gemm_params.h's pack_b_panel).
template <typename T>
inline void pack_panel(T *dst, const T *b, i64 K, i64 N, i64 rsb, i64 csb, i64 p) {
  pack_b_panel(dst, b, K, N, rsb, csb, p);
}

/// One 64-byte vector of T (generic vector extension: one zmm, two ymm or four NEON q registers,
/// whatever the target at model-compile time has).
template <typename T> struct Vec;
template <> struct Vec<float> { typedef float type __attribute__((vector_size(64))); };
template <> struct Vec<double> { typedef double type __attribute__((vector_size(64))); };

/// Y tile [i0, i0+rows) x [j0, j0+cols) from K range [k0, k0+kc), computed as MR rows (with a
/// packed A the rows past M are zeros): the first K block writes alpha*acc + beta*C, later ones
/// add alpha*acc; the last one applies the activation. The MR accumulators live in registers.
/// How the micro-kernel addresses A: a compile-time layout, so that the inner loop has constant
/// offsets (the Problem reaches it through the thread pool, so its fields are not constants).
enum ALayout { kAPacked, kARowMajor, kAStrided };

template <typename T, int MR, ALayout L>
inline void micro(const Problem<T> &p, i64 i0, i64 rows, i64 j0, i64 cols, i64 k0, i64 kc) {
  typedef typename Vec<T>::type V;
  constexpr i64 NR = nr<T>();
  static_assert(sizeof(V) == NR * sizeof(T), "one vector per tile row");
  static_assert(MR <= kMR, "tile rows");
  V acc[MR];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
    acc[i] = V{};
  const i64 kk = p.K > 0 ? p.K : 1;
  const i64 rsa = L == kAPacked ? 1 : p.rsa;
  const i64 csa = L == kAPacked ? kMR : L == kARowMajor ? 1 : p.csa;
  const T *a = L == kAPacked ? p.a + (i0 / kMR) * kMR * kk + k0 * kMR : p.a + i0 * rsa + k0 * csa;
  const T *b = p.bp + (j0 / NR) * kk * NR + k0 * NR;
  for (i64 k = 0; k < kc; ++k) {
    V bv;
    __builtin_memcpy(&bv, b + k * NR, sizeof bv);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
      acc[i] += a[i * rsa + k * csa] * bv;
  }
  const bool last = k0 + kc >= p.K;
  for (int i = 0; i < MR && i < rows; ++i) {
    T r[NR];
    __builtin_memcpy(r, &acc[i], sizeof r);
    T *y = p.y + (i0 + i) * p.rsy + j0 * p.csy;
    if (k0 > 0) {
      for (i64 j = 0; j < cols; ++j)
        y[j * p.csy] += p.alpha * r[j];
    } else if (p.c) {
      const T *c = p.c + (i0 + i) * p.rsc + j0 * p.csc;
      for (i64 j = 0; j < cols; ++j)
        y[j * p.csy] = p.alpha * r[j] + p.beta * c[j * p.csc];
    } else {
      for (i64 j = 0; j < cols; ++j)
        y[j * p.csy] = p.alpha * r[j];
    }
    if (last && p.act.kind != kActNone) /* the row segment is final and in L1 */
      apply_act(p.act, y, cols, p.csy);
  }
}

template <typename T, ALayout L>
inline void tile_rows(const Problem<T> &p, i64 i0, i64 rows, i64 j0, i64 cols, i64 k0, i64 kc) {
  switch (rows) {
  case 6:
    return micro<T, 6, L>(p, i0, rows, j0, cols, k0, kc);
  case 5:
    return micro<T, 5, L>(p, i0, rows, j0, cols, k0, kc);
  case 4:
    return micro<T, 4, L>(p, i0, rows, j0, cols, k0, kc);
  case 3:
    return micro<T, 3, L>(p, i0, rows, j0, cols, k0, kc);
  case 2:
    return micro<T, 2, L>(p, i0, rows, j0, cols, k0, kc);
  default:
    return micro<T, 1, L>(p, i0, rows, j0, cols, k0, kc);
  }
}

template <typename T>
inline void tile(const Problem<T> &p, i64 i0, i64 rows, i64 j0, i64 cols, i64 k0, i64 kc) {
  static_assert(kMR == 6, "tile_rows covers 1..6 rows");
  if (p.a_packed) /* zero-padded panels: always the full register tile */
    return micro<T, kMR, kAPacked>(p, i0, rows, j0, cols, k0, kc);
  if (p.csa == 1)
    return tile_rows<T, kARowMajor>(p, i0, rows, j0, cols, k0, kc);
  return tile_rows<T, kAStrided>(p, i0, rows, j0, cols, k0, kc);
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
  constexpr i64 NR = nr<T>();
  V acc = V{};
  i64 k = 0;
  for (; k + NR <= K; k += NR) {
    V va, vb;
    __builtin_memcpy(&va, a + k, sizeof va);
    __builtin_memcpy(&vb, b + k, sizeof vb);
    acc += va * vb;
  }
  T s = 0;
  for (int j = 0; j < NR; ++j)
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

/// Rows [m0, m1) x columns [n0, n1) of Y (n0 a multiple of NR).
template <typename T> inline void block(const Problem<T> &p, i64 m0, i64 m1, i64 n0, i64 n1) {
  constexpr i64 NR = nr<T>();
  if (!p.bp)
    return small_m(p, n0, n1);
  i64 k0 = 0;
  do { /* runs once when K == 0 so that Y = beta*C */
    const i64 kc = min_i(kKC, p.K - k0);
    for (i64 j0 = n0; j0 < n1; j0 += NR)
      for (i64 i0 = m0; i0 < m1; i0 += kMR)
        tile(p, i0, min_i(kMR, m1 - i0), j0, min_i(NR, n1 - j0), k0, kc);
    k0 += kKC;
  } while (k0 < p.K);
}

/// Runs `batches` GEMMs of the same M x N; problem(b) gives batch b's Problem (B packed).
template <typename T, typename ProblemOf>
inline void run(onnxc_rt *rt, i64 batches, i64 M, i64 N, ProblemOf &problem) {
  if (M <= 0 || N <= 0 || batches <= 0)
    return;
  const bool packed = problem(0).bp != nullptr;
  const i64 mc = packed ? kMC : M, nc = packed ? kNC : kSmallNC;
  const i64 mb = ceil_div(M, mc), nb = ceil_div(N, nc);
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
