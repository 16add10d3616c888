/* The contract between the LSTM/GRU/RNN lowering (compiler/ops/nn/recurrent.cpp) and the kernel
 * onnxc_k_recurrent_<dtype> (templates/cpu/recurrent.cpp): parameter positions, activation
 * codes and the scratch layout. Plain arithmetic only, so that both sides include it. */
#ifndef ONNXC_RECURRENT_H
#define ONNXC_RECURRENT_H

#include <stdint.h>

/* Activation functions of the recurrent ops, in code order (the ONNX names). */
// clang-format off
#define ONNXC_RNN_ACTIVATIONS(X)                                                                   \
  X(Sigmoid) X(Tanh) X(Relu) X(Affine) X(LeakyRelu) X(ThresholdedRelu) X(ScaledTanh)              \
  X(HardSigmoid) X(Elu) X(Softsign) X(Softplus)
// clang-format on

namespace onnxc_rnn {

/// Cell kinds; the number of gates is 1, 3 and 4.
enum Cell : int64_t { kRnn = 0, kGru = 1, kLstm = 2 };

#define ONNXC_RNN_ACT_ENUM(name) kRnnAct##name,
/// Activation codes (params).
enum Act : int64_t { ONNXC_RNN_ACTIVATIONS(ONNXC_RNN_ACT_ENUM) kRnnActCount };
#undef ONNXC_RNN_ACT_ENUM

/// Positions in the kernel's params. kActs starts kMaxActs (kind, alpha f64, beta f64) triples
/// per direction: f, g, h (those the cell does not use are ignored).
enum Param : int64_t {
  kCell,
  kSeq,
  kBatch,
  kInput,
  kHidden,
  kDirs,
  kReverse, ///< 1: the first direction runs backwards in time (direction "reverse")
  kLayout,
  kLinearBeforeReset,
  kInputForget,
  kHasClip,
  kClip,     ///< f64
  kPackedW,  ///< 1: W is W^T packed at compile time, per direction (packed_w_offset)
  kPackedR,  ///< 1: R is R^T packed by units at compile time (lstm_fused), per direction
  kTileRows, ///< GEMM micro-tile rows (gemm_params.h gemm_tile_rows; 0: kMR), as MatMul's
  kActs,
};
constexpr int64_t kMaxActs = 3;
constexpr int64_t kNumParams = kActs + 2 * kMaxActs * 3;

/// Products with at most this many rows read the weights directly (nn_gemm.h's kSmallM).
constexpr int64_t kSmallM = 4;

inline int64_t gates(int64_t cell) { return cell == kLstm ? 4 : cell == kGru ? 3 : 1; }

/// Element offsets of the scratch buffer's parts (each rounded to 16 elements, 64 bytes for
/// float); `total` is the size. bias: G*H combined input+recurrent bias, then H recurrent bias of
/// GRU's hidden gate; xw: the input projection of every step (seq*batch rows of G*H, in X's row
/// order); hr: one step's recurrent projection (batch x G*H); h, c: the state (batch x H); rh:
/// GRU's r (.) h, and the next state of the fused LSTM step; pw, pr: W^T and R^T packed for the
/// GEMM (absent when the product has few rows); pu: R^T by units for the fused LSTM step
/// (lstm_fused).
struct Scratch {
  int64_t bias, xw, hr, h, c, rh, pw, pr, pu, total;
};

/// Units per block of the fused LSTM step (one 64-byte vector of float).
constexpr int64_t kUnitBlock = 16;

/// True when a float LSTM with a small batch runs the fused step: per block of kUnitBlock
/// hidden units, the four gates' columns of R^T (packed by units, `pu`) times H_{t-1}, then the
/// cell update of those units, in one parallel loop per step.
inline bool lstm_fused(const int64_t *p, int64_t elem_bytes) {
  return p[kCell] == kLstm && p[kBatch] <= kSmallM && elem_bytes == 4;
}
/// Elements of pu: per unit block, H rows of 4 x kUnitBlock (gates i, o, f, c), zero-padded.
inline int64_t units_packed_size(int64_t H) {
  return (H + kUnitBlock - 1) / kUnitBlock * (H > 0 ? H : 1) * 4 * kUnitBlock;
}

inline int64_t round16(int64_t n) { return (n + 15) / 16 * 16; }
/// Elements of a packed K x N matrix with panels of `nr` columns (nn_gemm.h's packed_elems).
inline int64_t packed_size(int64_t K, int64_t N, int64_t nr) {
  return (K > 0 ? K : 1) * ((N + nr - 1) / nr) * nr;
}

/// The R^T column ranges that are multiplied separately: GRU without linear_before_reset
/// multiplies r (.) h_{t-1} by the hidden gate's columns, so those are a second product.
inline int64_t r_parts(const int64_t *p) {
  return p[kCell] == kGru && p[kLinearBeforeReset] == 0 ? 2 : 1;
}
/// Columns of R^T part `i` (0 or 1) and the first one.
inline int64_t r_part_cols(const int64_t *p, int64_t i) {
  const int64_t gh = gates(p[kCell]) * p[kHidden];
  return r_parts(p) == 1 ? gh : (i == 0 ? 2 * p[kHidden] : p[kHidden]);
}
inline int64_t r_part_first(const int64_t *p, int64_t i) { return i == 0 ? 0 : 2 * p[kHidden]; }

/// Elements from one direction's packed W^T to the next (panels of `nr`), and of R^T by units.
inline int64_t packed_w_stride(const int64_t *p, int64_t nr) {
  return round16(packed_size(p[kInput], gates(p[kCell]) * p[kHidden], nr));
}
inline int64_t packed_r_stride(const int64_t *p) { return round16(units_packed_size(p[kHidden])); }

/// Packs one direction's R (4H x H, gates i, o, f, c) as R^T by units into dst
/// (units_packed_size(H) elements): dst[((ub * H + k) * 4 + gate) * kUnitBlock + l] =
/// R[gate * H + ub * kUnitBlock + l][k], zero past H.
template <typename T> void pack_units(T *dst, const T *r, int64_t H, int64_t ub0, int64_t ub1) {
  for (int64_t ub = ub0; ub < ub1; ++ub)
    for (int64_t gi = 0; gi < 4; ++gi)
      for (int64_t l = 0; l < kUnitBlock; ++l) {
        const int64_t u = ub * kUnitBlock + l;
        T *d = dst + (ub * H * 4 + gi) * kUnitBlock + l;
        for (int64_t k = 0; k < H; ++k)
          d[k * 4 * kUnitBlock] = u < H ? r[(gi * H + u) * H + k] : T(0);
      }
}

/// The scratch layout for params `p`, elements of `elem_bytes` and packed panels of `nr`.
inline Scratch scratch_layout(const int64_t *p, int64_t elem_bytes, int64_t nr) {
  const int64_t S = p[kSeq], B = p[kBatch], I = p[kInput], H = p[kHidden];
  const int64_t gh = gates(p[kCell]) * H;
  Scratch s;
  s.bias = 0;
  s.xw = s.bias + round16(gh + H);
  s.hr = s.xw + round16(S * B * gh);
  s.h = s.hr + round16(B * gh);
  s.c = s.h + round16(B * H);
  s.rh = s.c + round16(B * H);
  s.pw = s.rh + round16(B * H);
  s.pr = s.pw + (S * B > kSmallM && !p[kPackedW] ? round16(packed_size(I, gh, nr)) : 0);
  int64_t pr = 0;
  if (B > kSmallM)
    for (int64_t i = 0; i < r_parts(p); ++i)
      pr += round16(packed_size(H, r_part_cols(p, i), nr));
  s.pu = s.pr + pr;
  s.total = s.pu + (lstm_fused(p, elem_bytes) && !p[kPackedR] ? round16(units_packed_size(H)) : 0);
  return s;
}

} // namespace onnxc_rnn

#endif
