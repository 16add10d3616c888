/* The contract between the GEMM lowerings (compiler/ops/nn/nn_util.cpp gemm_call, used by MatMul
 * and Gemm; compiler/ops/nn/conv.cpp) and the GEMM kernels (templates/cpu/matmul.cpp, conv.cpp,
 * nn_gemm.h): the blocking constants, the packed panel layouts and the packing functions, which
 * the lowerings also run at compile time to pre-pack constant weights (so the kernels never
 * repack them). Freestanding: included by the kernels and by onnxc itself.
 *
 * Layouts (T: float or double, NR = kNV * 64 / sizeof(T): kNV 64-byte vectors, MR = kMR):
 *   packed B (K x N): panel p holds columns [p*NR, p*NR+NR) as K rows of NR contiguous elements,
 *     zero-padded past N; panel p starts at p * max(K, 1) * NR.
 *   packed A (M x K): panel q holds rows [q*MR, q*MR+MR) as K columns of MR contiguous elements,
 *     zero-padded past M; panel q starts at q * MR * max(K, 1).
 * The micro-kernel (nn_gemm.h) computes tiles of `mr` rows (GemmParams::mr, chosen by the
 * lowering for the target's vector registers: gemm_tile_rows) x tile_vectors(mr) vectors of
 * columns, so the packed layouts are the same for every target.
 */
#ifndef ONNXC_GEMM_PARAMS_H
#define ONNXC_GEMM_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {
namespace gemm {

constexpr int64_t kVecBytes = 64; ///< the kernels' generic vector (split by the target)
constexpr int64_t kNV = 3;        ///< vectors per row of a micro-tile (and of a B panel)
constexpr int64_t kMR = 8;        ///< rows of a packed A panel; the largest micro-tile
constexpr int64_t kMC = 64;       ///< rows per work item (multiple of kMR)
constexpr int64_t kKC = 256;      ///< K block: the MR x KC panel of A stays in L1
constexpr int64_t kNC = 192;      ///< columns per work item (multiple of NR for float and double)
constexpr int64_t kSmallM = 4;    ///< M up to this reads B directly (no packing)
constexpr int64_t kSmallNC = 512; ///< columns per work item then

/// Panel width (columns of packed B) for elements of `elem_bytes`: kNV 64-byte vectors.
constexpr int64_t panel_width(int64_t elem_bytes) { return kNV * kVecBytes / elem_bytes; }
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t min_i(int64_t a, int64_t b) { return a < b ? a : b; }

/// 64-byte vectors per row of a micro-tile of `mr` rows: a whole panel (kNV) for kMR rows, one
/// for fewer (the tile then walks the panel's kNV vectors one column slice at a time, so that
/// a target with few registers keeps its accumulators and B's slice in registers and the
/// slice, KC x one vector, in L1).
constexpr int64_t tile_vectors(int64_t mr) { return mr >= kMR ? kNV : 1; }

/// Micro-tile rows (kMR, 6, 4, 2 or 1) for a target with `vector_regs` SIMD registers of
/// `vector_bytes` each: the largest mr whose mr x tile_vectors(mr) accumulator vectors, the
/// tile_vectors(mr) vectors of B and the broadcast A all fit in registers (AVX-512: 8 x 3
/// zmm; AVX2: 6 x 1 (12 + 2 + 1 ymm); AArch64 NEON: 6 x 1 (24 + 4 + 1 q); SSE, ARMv7 NEON: 2
/// x 1). A tile that does not fit spills accumulators to the stack in the K loop; fewer
/// accumulators than FMA latency x FMA units leave the units idle. 6-row tiles do not line up
/// with packed A's kMR-row panels: the kernels then address packed A row by row.
constexpr int64_t gemm_tile_rows(int64_t vector_regs, int64_t vector_bytes) {
  const int64_t per_vec =
      vector_bytes > 0 && vector_bytes < kVecBytes ? kVecBytes / vector_bytes : 1;
  const int64_t rows[] = {kMR, 6, 4, 2};
  for (int64_t mr : rows)
    if ((mr + 1) * tile_vectors(mr) * per_vec + 1 <= vector_regs)
      return mr;
  return 1;
}

/// Columns of one contiguous sub-panel of a MatMul/Gemm's packed B for micro-tiles of `mr` rows
/// (0: kMR): a tile's width. A panel of NR columns is stored as NR / width sub-panels of K rows
/// of `width` contiguous elements, so that a tile narrower than a panel (6-row tiles: AVX2,
/// AArch64 NEON) reads one sequential stream instead of one line in three (bench/gemm_study.cpp,
/// docs/performance.md sessions 27 and 29); panel sizes and addresses do not change. MatMul,
/// Gemm, Conv's GEMM algos and Winograd (conv_b_sub) and the recurrent products use it;
/// ConvTranspose keeps whole-width rows (width NR).
constexpr int64_t b_slice_width(int64_t mr, int64_t elem_bytes) {
  return tile_vectors(mr == 0 ? kMR : mr) * kVecBytes / elem_bytes;
}

/// Offset in a packed B of K rows (panels of `nr` columns, sub-panels of `sub`) of column n's
/// element in row 0; row k's is `k * sub` further.
constexpr int64_t packed_b_col(int64_t K, int64_t nr, int64_t sub, int64_t n) {
  const int64_t kk = K > 0 ? K : 1, j = n % nr;
  return (n / nr) * kk * nr + (j / sub) * kk * sub + j % sub;
}

/// Elements of one packed B (K x N) for elements of `elem_bytes`.
constexpr int64_t packed_b_elems(int64_t K, int64_t N, int64_t elem_bytes) {
  const int64_t nr = panel_width(elem_bytes);
  return (K > 0 ? K : 1) * ceil_div(N, nr) * nr;
}

/// Elements of one packed A (M x K).
constexpr int64_t packed_a_elems(int64_t M, int64_t K) {
  return ceil_div(M, kMR) * kMR * (K > 0 ? K : 1);
}

/// Packs panel `p` (columns p*NR ..) of the K x N matrix B(k, n) = b[k*rsb + n*csb], as sub-panels
/// of `sub` columns (b_slice_width; NR: one K x NR block). Sub-panels wholly past N are not
/// written (no micro-kernel reads them: a slice's tile covers only columns that exist), so a
/// last panel of one column (a 7x7 plane) costs one sub-panel, not three.
template <typename T>
inline void pack_b_panel(T *dst, const T *b, int64_t K, int64_t N, int64_t rsb, int64_t csb,
                         int64_t p, int64_t sub = panel_width(sizeof(T))) {
  constexpr int64_t NR = panel_width(sizeof(T));
  const int64_t j0 = p * NR, cols = min_i(NR, N - j0);
  if (sub != NR) {
    const int64_t kk = K > 0 ? K : 1;
    for (int64_t s0 = 0; s0 < NR && s0 < cols; s0 += sub)
      for (int64_t k = 0; k < K; ++k) {
        T *d = dst + s0 * kk + k * sub;
        const T *src = b + k * rsb + (j0 + s0) * csb;
        if (s0 + sub <= cols && csb == 1) { /* a whole run of contiguous columns */
          for (int64_t j = 0; j < sub; ++j)
            d[j] = src[j];
        } else {
          for (int64_t j = 0; j < sub; ++j)
            d[j] = s0 + j < cols ? src[j * csb] : T(0);
        }
      }
    return;
  }
  for (int64_t k = 0; k < K; ++k) {
    const T *src = b + k * rsb + j0 * csb;
    T *d = dst + k * NR;
    if (cols == NR && csb == 1) {
      for (int64_t j = 0; j < NR; ++j)
        d[j] = src[j];
    } else {
      for (int64_t j = 0; j < cols; ++j)
        d[j] = src[j * csb];
      for (int64_t j = cols; j < NR; ++j)
        d[j] = T(0);
    }
  }
}

/// Packs the whole K x N matrix B(k, n) = b[k*rsb + n*csb] (packed_b_elems elements).
template <typename T>
inline void pack_b(T *dst, const T *b, int64_t K, int64_t N, int64_t rsb, int64_t csb,
                   int64_t sub = panel_width(sizeof(T))) {
  const int64_t NR = panel_width(sizeof(T)), kk = K > 0 ? K : 1;
  for (int64_t p = 0; p < ceil_div(N, NR); ++p)
    pack_b_panel(dst + p * kk * NR, b, K, N, rsb, csb, p, sub);
}

/// Packs the M x K matrix A(m, k) = a[m*rsa + k*csa] (packed_a_elems elements).
template <typename T>
inline void pack_a(T *dst, const T *a, int64_t M, int64_t K, int64_t rsa, int64_t csa) {
  const int64_t kk = K > 0 ? K : 1;
  for (int64_t q = 0; q < ceil_div(M, kMR); ++q)
    for (int64_t k = 0; k < kk; ++k)
      for (int64_t i = 0; i < kMR; ++i) {
        const int64_t m = q * kMR + i;
        dst[(q * kk + k) * kMR + i] = m < M && k < K ? a[m * rsa + k * csa] : T(0);
      }
}

/// Most batch dims of a MatMul (more: the lowering reports an error).
constexpr int64_t kMaxRank = 8;

/// Params of onnxc_k_gemm_<dtype> (templates/cpu/matmul.cpp), filled by gemm_call():
/// Y[b] = act(alpha * A[b] B[b] + beta * C) for every batch index b.
struct GemmParams {
  int64_t M, N, K;
  int64_t rsa, csa, rsb, csb, rsy, csy; ///< element strides of A, B (unpacked) and Y
  double alpha, beta;
  int64_t has_c, rsc, csc; ///< C (tensor 2) broadcast to M x N by these strides
  int64_t b_count;         ///< distinct B matrices (dense K x N blocks)
  int64_t direct;          ///< 0/1: small M, B read as it is (no packing, no scratch)
  int64_t b_packed;        ///< 0/1: tensor 1 holds the b_count matrices already packed
  int64_t rank;            ///< batch dims
  int64_t mr;              ///< micro-tile rows: 1, 2, 4, 6 or kMR (gemm_tile_rows); 0: kMR
  ActParams act;
  int64_t batch[kMaxRank], a_bs[kMaxRank], b_bs[kMaxRank]; ///< dims, A strides (elements),
                                                           ///< B strides (matrices)
};

/// Scratch bytes of a GEMM call: the packed B matrices unless they are packed already.
constexpr int64_t gemm_scratch_bytes(const GemmParams &p, int64_t elem_bytes) {
  if (p.direct || p.b_packed)
    return 0;
  return p.b_count * packed_b_elems(p.K, p.N, elem_bytes) * elem_bytes;
}

} // namespace gemm
} // namespace onnxc_k

#endif
