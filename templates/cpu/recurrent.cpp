/* LSTM, GRU and RNN (compiler/ops/nn/recurrent.cpp); params and scratch: recurrent.h.
 *
 * tensors {X, W, R, B, sequence_lens, initial_h, initial_c, P, Y, Y_h, Y_c, scratch}; omitted
 * optional inputs and unused outputs are null.
 *
 * Each direction runs in turn:
 *   1. one GEMM projects every time step at once: XW = X W^T + (Wb + Rb) (nn_gemm.h);
 *   2. per step, one GEMM HR = H_{t-1} R^T (R^T packed once per direction unless the batch is
 *      small; GRU without linear_before_reset multiplies r (.) H_{t-1} by the hidden gate's
 *      columns in a second one), then one fused pass over the batch: clip, activations,
 *      peepholes, the cell and hidden update, Y. Steps at or past a batch entry's
 *      sequence_lens keep its state and write zeros to Y.
 *   3. Y_h (and Y_c) get the final state; zeros for a batch entry whose sequence_lens is 0 (as
 *      ONNX Runtime does; the initial state is not passed through).
 * Gate order is ONNX's: LSTM i, o, f, c; GRU z, r, h.
 */
#include "templates/cpu/recurrent.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/nn_gemm.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

using namespace onnxc_rnn;
static_assert(onnxc_rnn::kSmallM == gemm::kSmallM, "recurrent.h must match nn_gemm.h");

enum : int { kX, kW, kR, kB, kLens, kH0, kC0, kP, kY, kYh, kYc, kScratch };

template <typename T> struct Activation {
  i64 kind;
  T alpha, beta;

  T operator()(T x) const {
    switch (kind) {
    case kRnnActSigmoid:
      return T(1) / (T(1) + ex(-x));
    case kRnnActTanh:
      return th(x);
    case kRnnActRelu:
      return x > T(0) ? x : T(0);
    case kRnnActAffine:
      return alpha * x + beta;
    case kRnnActLeakyRelu:
      return x < T(0) ? alpha * x : x;
    case kRnnActThresholdedRelu:
      return x > alpha ? x : T(0);
    case kRnnActScaledTanh:
      return alpha * th(beta * x);
    case kRnnActHardSigmoid: {
      const T v = alpha * x + beta;
      return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
    }
    case kRnnActElu:
      return x < T(0) ? alpha * (ex(x) - T(1)) : x;
    case kRnnActSoftsign:
      return x / (T(1) + ab(x));
    default: /* Softplus: log(1 + e^x) without overflow */
      return x > T(0) ? x + log1(ex(-x)) : log1(ex(x));
    }
  }

  /// operator() on 16 floats: Sigmoid and Tanh as vector code (vec_math.h's vector forms give
  /// the scalar forms' values), the other kinds lane by lane.
  vf32 vec(vf32 x) const {
    if (kind == kRnnActSigmoid)
      return 1.0f / (1.0f + vm::exp(-x));
    if (kind == kRnnActTanh)
      return vm::tanh(x);
    for (int l = 0; l < kVecF32; ++l)
      x[l] = (*this)(x[l]);
    return x;
  }
};

template <typename T> struct Rnn {
  onnxc_rt *rt;
  const i64 *p;
  i64 cell, S, B, I, H, G, dirs, layout;
  bool lbr, input_forget, has_clip;
  T clip;
  const T *x, *w, *r, *b, *h0, *c0, *peep;
  const int32_t *lens;
  T *y, *yh, *yc;
  T *bias, *xw, *hr, *h, *c, *rh, *pw, *pr, *pu;
  bool fused; /* lstm_fused: the step by unit blocks, the state double-buffered in h and rh */
  Activation<T> f, g, hf; /* the current direction's */

  T cl(T v) const { return has_clip ? (v < -clip ? -clip : (v > clip ? clip : v)) : v; }
  vf32 cl(vf32 v) const { /* cl() on 16 floats */
    if (!has_clip)
      return v;
    const vf32 lo = vm::cst<vf32>(-float(clip)), hi = vm::cst<vf32>(float(clip));
    return vm::sel(v < lo, lo, vm::sel(v > hi, hi, v));
  }
  i64 len(i64 bi) const { return lens ? lens[bi] : S; }
  i64 xrow(i64 s, i64 bi) const { return layout ? bi * S + s : s * B + bi; }
  i64 state_at(i64 d, i64 bi) const { return (layout ? bi * dirs + d : d * B + bi) * H; }
  T *y_at(i64 s, i64 d, i64 bi) const {
    return y + (layout ? (bi * S + s) * dirs + d : (s * dirs + d) * B + bi) * H;
  }
};

template <typename T> Activation<T> activation(const i64 *p, i64 d, i64 k) {
  const int base = int(kActs + (d * kMaxActs + k) * 3);
  return {p[base], T(param_f64(p, base + 1)), T(param_f64(p, base + 2))};
}

/// Y[0..M) x [0..N) = A B (+ bias row c) with B(k, n) = b[k + n * ldb] (a weight matrix read
/// transposed), A rows `rsa` apart and Y rows `rsy` apart; bp: B packed, or null (small M); in
/// micro-tiles of MR rows. The GEMM's parallel body is generic (gemm::run without node params),
/// so what decides its micro-kernels is set here as constants: only MR's tiles for row-major A
/// are compiled into it, not every height and A layout (test_lstm_defaults compiled 42 of them,
/// 3-4 s of codegen, before). MR is the node's kTileRows, made a template argument at the
/// kernel's entry (recurrent_kernel).
template <typename T, i64 MR>
void product(onnxc_rt *rt, i64 M, i64 N, i64 K, const T *a, i64 rsa, const T *bp, const T *b,
             i64 ldb, T *y, i64 rsy, const T *c) {
  const gemm::Problem<T> pr{M, N, K, a, rsa, 1, bp, b, 1, ldb, y, rsy, 1, T(1), T(1), c, 0, 1, {}};
  auto problem = [&](i64) {
    gemm::Problem<T> q = pr;
    q.mr = MR, q.a_packed = 0, q.csa = 1, q.bsub = gemm::b_slice_width(MR, sizeof(T));
    return q;
  };
  gemm::run<T>(rt, 1, M, N, problem);
}

/// Packs B(k, n) = b[k + n * ldb] (K x N) into panels (nn_gemm.h's layout) of sub-panels for
/// MR-row tiles (gemm::b_slice_width, as product() reads them).
template <typename T, i64 MR> void pack(onnxc_rt *rt, T *dst, const T *b, i64 K, i64 N, i64 ldb) {
  constexpr i64 NR = gemm::nr<T>(), sub = gemm::b_slice_width(MR, sizeof(T));
  auto body = [&](i64 lo, i64 hi) {
    for (i64 pn = lo; pn < hi; ++pn)
      gemm::pack_panel(dst + pn * K * NR, b, K, N, 1, ldb, pn, sub);
  };
  parallel_for(rt, gemm::ceil_div(N, NR), 1 + 8192 / ((K > 0 ? K : 1) * NR), body);
}

/// Bias, initial state and packed weights of direction d; then the input projection.
template <typename T, i64 MR> void start_direction(Rnn<T> &s, i64 d) {
  const i64 gh = s.G * s.H;
  s.f = activation<T>(s.p, d, 0), s.g = activation<T>(s.p, d, 1), s.hf = activation<T>(s.p, d, 2);
  for (i64 k = 0; k < gh + s.H; ++k)
    s.bias[k] = T(0);
  if (s.b) {
    const T *wb = s.b + d * 2 * gh, *rb = wb + gh;
    for (i64 k = 0; k < gh; ++k) {
      const bool apart = s.lbr && k >= 2 * s.H; /* GRU's Rb_h goes inside r (.) (...) */
      s.bias[k] = wb[k] + (apart ? T(0) : rb[k]);
      if (apart)
        s.bias[gh + k - 2 * s.H] = rb[k];
    }
  }
  for (i64 bi = 0; bi < s.B; ++bi)
    for (i64 j = 0; j < s.H; ++j) {
      s.h[bi * s.H + j] = s.h0 ? s.h0[s.state_at(d, bi) + j] : T(0);
      s.c[bi * s.H + j] = s.c0 ? s.c0[s.state_at(d, bi) + j] : T(0);
    }
  const T *w = s.w + d * gh * s.I, *r = s.r + d * gh * s.H;
  const i64 rows = s.S * s.B;
  if (rows > kSmallM && s.p[kPackedW]) /* W^T packed at compile time */
    s.pw = const_cast<T *>(s.w) + d * packed_w_stride(s.p, gemm::nr<T>());
  else if (rows > kSmallM)
    pack<T, MR>(s.rt, s.pw, w, s.I, gh, s.I);
  product<T, MR>(s.rt, rows, gh, s.I, s.x, s.I, rows > kSmallM ? s.pw : nullptr, w, s.I, s.xw, gh,
                 s.bias);
  if (s.fused && s.p[kPackedR]) /* R^T by units, packed at compile time */
    s.pu = const_cast<T *>(s.r) + d * packed_r_stride(s.p);
  else if (s.fused) {
    auto body = [&](i64 lo, i64 hi) { pack_units(s.pu, r, s.H, lo, hi); };
    parallel_for(s.rt, (s.H + kUnitBlock - 1) / kUnitBlock, 1, body);
  }
  if (s.B > kSmallM) {
    T *dst = s.pr;
    for (i64 i = 0; i < r_parts(s.p); ++i) {
      const i64 cols = r_part_cols(s.p, i);
      pack<T, MR>(s.rt, dst, r + r_part_first(s.p, i) * s.H, s.H, cols, s.H);
      dst += round16(packed_size(s.H, cols, gemm::nr<T>()));
    }
  }
}

/// HR[:, part i's columns] = A R_i^T for the part's columns of R^T.
template <typename T, i64 MR> void recurrent_product(Rnn<T> &s, i64 d, i64 i, const T *a) {
  const T *r = s.r + d * s.G * s.H * s.H + r_part_first(s.p, i) * s.H;
  const T *bp = nullptr;
  if (s.B > kSmallM) {
    bp = s.pr;
    if (i == 1)
      bp += round16(packed_size(s.H, r_part_cols(s.p, 0), gemm::nr<T>()));
  }
  product<T, MR>(s.rt, s.B, r_part_cols(s.p, i), s.H, a, s.H, bp, r, s.H,
                 s.hr + r_part_first(s.p, i), s.G * s.H, (const T *)nullptr);
}

/// The LSTM cell update of units [j0, j1) of one batch entry: xw, hr its rows (G*H), c its cell
/// state (updated), h where its new hidden state goes.
template <typename T>
void lstm_row(const Rnn<T> &s, const T *xw, const T *hr, T *h, T *c, i64 d, i64 j0, i64 j1) {
  const i64 H = s.H;
  const T *pi = s.peep ? s.peep + d * 3 * H : nullptr, *po = pi ? pi + H : nullptr,
          *pf = pi ? pi + 2 * H : nullptr;
  i64 j = j0;
  if constexpr (is_f32<T>) { /* 16 units at a time: the expressions below, as vectors */
    const vf32 zero = vf32{};
    for (; j + kVecF32 <= j1; j += kVecF32) {
      const vf32 cp = load_f32(c + j);
      const vf32 i =
          s.f.vec(s.cl(load_f32(xw + j) + load_f32(hr + j) + (pi ? load_f32(pi + j) * cp : zero)));
      const vf32 fg = s.input_forget
                          ? 1.0f - i
                          : s.f.vec(s.cl(load_f32(xw + 2 * H + j) + load_f32(hr + 2 * H + j) +
                                         (pf ? load_f32(pf + j) * cp : zero)));
      const vf32 cn =
          fg * cp + i * s.g.vec(s.cl(load_f32(xw + 3 * H + j) + load_f32(hr + 3 * H + j)));
      const vf32 o = s.f.vec(
          s.cl(load_f32(xw + H + j) + load_f32(hr + H + j) + (po ? load_f32(po + j) * cn : zero)));
      store_f32(c + j, cn);
      store_f32(h + j, o * s.hf.vec(cn));
    }
  }
  for (; j < j1; ++j) {
    const T cp = c[j];
    const T i = s.f(s.cl(xw[j] + hr[j] + (pi ? pi[j] * cp : T(0))));
    const T fg = s.input_forget
                     ? T(1) - i
                     : s.f(s.cl(xw[2 * H + j] + hr[2 * H + j] + (pf ? pf[j] * cp : T(0))));
    const T cn = fg * cp + i * s.g(s.cl(xw[3 * H + j] + hr[3 * H + j]));
    const T o = s.f(s.cl(xw[H + j] + hr[H + j] + (po ? po[j] * cn : T(0))));
    c[j] = cn;
    h[j] = o * s.hf(cn);
  }
}

template <typename T> void gru_row(const Rnn<T> &s, const T *xw, const T *hr, T *h) {
  const i64 H = s.H;
  const T *rbh = s.bias + s.G * H;
  for (i64 j = 0; j < H; ++j) {
    const T z = s.f(s.cl(xw[j] + hr[j]));
    T pre = xw[2 * H + j];
    if (s.lbr)
      pre += s.f(s.cl(xw[H + j] + hr[H + j])) * (hr[2 * H + j] + rbh[j]);
    else
      pre += hr[2 * H + j]; /* already (r (.) h) R_h^T */
    const T hh = s.g(s.cl(pre));
    h[j] = (T(1) - z) * hh + z * h[j];
  }
}

/// acc[b][gate] = sum_k h[b * H + k] * pu[(k * 4 + gate) * kUnitBlock ..] (one unit block of
/// R^T by units, NB batch rows of H_{t-1}); k runs in two interleaved halves for NB <= 2 so
/// that eight accumulators hide the FMA latency.
template <int NB>
inline void units_product(const float *pu, const float *h, i64 H, vf32 (&acc)[NB][4]) {
  constexpr int kSplit = NB <= 2 ? 2 : 1;
  vf32 a[kSplit][NB][4] = {};
  i64 k = 0;
  for (; k + kSplit <= H; k += kSplit)
    for (int e = 0; e < kSplit; ++e) {
      const float *w = pu + (k + e) * 4 * kUnitBlock;
      const vf32 w0 = load_f32(w), w1 = load_f32(w + kUnitBlock), w2 = load_f32(w + 2 * kUnitBlock),
                 w3 = load_f32(w + 3 * kUnitBlock);
      for (int b = 0; b < NB; ++b) {
        const vf32 hb = vm::cst<vf32>(h[b * H + k + e]);
        a[e][b][0] += hb * w0, a[e][b][1] += hb * w1, a[e][b][2] += hb * w2, a[e][b][3] += hb * w3;
      }
    }
  for (; k < H; ++k) {
    const float *w = pu + k * 4 * kUnitBlock;
    for (int b = 0; b < NB; ++b)
      for (int gi = 0; gi < 4; ++gi)
        a[0][b][gi] += vm::cst<vf32>(h[b * H + k]) * load_f32(w + gi * kUnitBlock);
  }
  for (int b = 0; b < NB; ++b)
    for (int gi = 0; gi < 4; ++gi) {
      acc[b][gi] = a[0][b][gi];
      for (int e = 1; e < kSplit; ++e)
        acc[b][gi] += a[e][b][gi];
    }
}

/// Unit block ub of the fused step (NB batch rows): its gates' recurrent products into hr, then
/// the cell update of its units from s.h (H_{t-1}) into s.rh (H_t) and c.
template <int NB> void fused_block(Rnn<float> &s, i64 d, i64 st, i64 ub) {
  const i64 H = s.H, gh = 4 * H, u0 = ub * kUnitBlock;
  const i64 u1 = u0 + kUnitBlock < H ? u0 + kUnitBlock : H;
  vf32 acc[NB][4];
  units_product<NB>(s.pu + ub * H * 4 * kUnitBlock, s.h, H, acc);
  for (int b = 0; b < NB; ++b) {
    float *yv = s.y ? s.y_at(st, d, b) : nullptr;
    if (st >= s.len(b)) { /* past this entry's sequence: its state stays, Y gets zeros */
      for (i64 j = u0; j < u1; ++j) {
        s.rh[b * H + j] = s.h[b * H + j];
        if (yv)
          yv[j] = 0.0f;
      }
      continue;
    }
    float *hr = s.hr + b * gh;
    for (int gi = 0; gi < 4; ++gi) {
      float lanes[kUnitBlock];
      store_f32(lanes, acc[b][gi]);
      for (i64 j = u0; j < u1; ++j)
        hr[gi * H + j] = lanes[j - u0];
    }
    lstm_row(s, s.xw + s.xrow(st, b) * gh, hr, s.rh + b * H, s.c + b * H, d, u0, u1);
    for (i64 j = u0; yv && j < u1; ++j)
      yv[j] = s.rh[b * H + j];
  }
}

/// One time step of the fused LSTM (lstm_fused), work items the unit blocks; then H_t becomes
/// the state.
inline void step_fused(Rnn<float> &s, i64 d, i64 st) {
  const i64 nub = (s.H + kUnitBlock - 1) / kUnitBlock;
  /* odd steps walk the blocks backwards: the blocks read last by the step before, still in
     L2, come first (a forward sweep over an R^T larger than what L2 keeps of it misses on every
     block) */
  const bool backwards = (st & 1) != 0;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 i = lo; i < hi; ++i) {
      const i64 ub = backwards ? lo + hi - 1 - i : i;
      switch (s.B) {
      case 1:
        fused_block<1>(s, d, st, ub);
        break;
      case 2:
        fused_block<2>(s, d, st, ub);
        break;
      case 3:
        fused_block<3>(s, d, st, ub);
        break;
      default:
        fused_block<4>(s, d, st, ub);
        break;
      }
    }
  };
  parallel_for(s.rt, nub, 1, body); /* each thread keeps its share of R^T's unit blocks */
  float *t = s.h;
  s.h = s.rh, s.rh = t;
}

/// One time step `st` of direction d for every batch entry.
template <typename T, i64 MR> void step(Rnn<T> &s, i64 d, i64 st) {
  if constexpr (is_f32<T>)
    if (s.fused)
      return step_fused(s, d, st);
  const i64 H = s.H, gh = s.G * H;
  recurrent_product<T, MR>(s, d, 0, s.h);
  if (s.cell == kGru && !s.lbr) { /* r (.) h_{t-1}, then its product with R_h^T */
    for (i64 bi = 0; bi < s.B; ++bi) {
      const T *xw = s.xw + s.xrow(st, bi) * gh + H, *hr = s.hr + bi * gh + H;
      for (i64 j = 0; j < H; ++j)
        s.rh[bi * H + j] = s.f(s.cl(xw[j] + hr[j])) * s.h[bi * H + j];
    }
    recurrent_product<T, MR>(s, d, 1, s.rh);
  }
  auto body = [&](i64 lo, i64 hi) {
    for (i64 bi = lo; bi < hi; ++bi) {
      T *yv = s.y ? s.y_at(st, d, bi) : nullptr;
      if (st >= s.len(bi)) {
        for (i64 j = 0; yv && j < H; ++j)
          yv[j] = T(0);
        continue;
      }
      const T *xw = s.xw + s.xrow(st, bi) * gh, *hr = s.hr + bi * gh;
      T *h = s.h + bi * H;
      if (s.cell == kLstm)
        lstm_row(s, xw, hr, h, s.c + bi * H, d, 0, H);
      else if (s.cell == kGru)
        gru_row(s, xw, hr, h);
      else
        for (i64 j = 0; j < H; ++j)
          h[j] = s.f(s.cl(xw[j] + hr[j]));
      for (i64 j = 0; yv && j < H; ++j)
        yv[j] = h[j];
    }
  };
  parallel_for(s.rt, s.B, 1 + 4096 / (gh > 0 ? gh : 1), body);
}

template <typename T> Rnn<T> make_rnn(onnxc_rt *rt, void *const *t, const i64 *p) {
  Rnn<T> s;
  s.rt = rt, s.p = p;
  s.cell = p[kCell], s.S = p[kSeq], s.B = p[kBatch], s.I = p[kInput], s.H = p[kHidden];
  s.G = gates(s.cell), s.dirs = p[kDirs], s.layout = p[kLayout];
  s.lbr = p[kLinearBeforeReset] != 0, s.input_forget = p[kInputForget] != 0;
  s.has_clip = p[kHasClip] != 0, s.clip = T(param_f64(p, kClip));
  s.x = static_cast<const T *>(t[kX]), s.w = static_cast<const T *>(t[kW]);
  s.r = static_cast<const T *>(t[kR]), s.b = static_cast<const T *>(t[kB]);
  s.lens = static_cast<const int32_t *>(t[kLens]);
  s.h0 = static_cast<const T *>(t[kH0]), s.c0 = static_cast<const T *>(t[kC0]);
  s.peep = static_cast<const T *>(t[kP]);
  s.y = static_cast<T *>(t[kY]), s.yh = static_cast<T *>(t[kYh]), s.yc = static_cast<T *>(t[kYc]);
  const Scratch l = scratch_layout(p, sizeof(T), gemm::nr<T>());
  T *sc = static_cast<T *>(t[kScratch]);
  s.bias = sc + l.bias, s.xw = sc + l.xw, s.hr = sc + l.hr, s.h = sc + l.h, s.c = sc + l.c;
  s.rh = sc + l.rh, s.pw = sc + l.pw, s.pr = sc + l.pr, s.pu = sc + l.pu;
  s.fused = lstm_fused(p, sizeof(T));
  return s;
}

/// The directions' steps with GEMM micro-tiles of MR rows.
template <typename T, i64 MR> void run_directions(Rnn<T> &s, const i64 *p) {
  for (i64 d = 0; d < s.dirs; ++d) {
    start_direction<T, MR>(s, d);
    const bool reverse = d == 1 || p[kReverse] != 0;
    for (i64 k = 0; k < s.S; ++k)
      step<T, MR>(s, d, reverse ? s.S - 1 - k : k);
    for (i64 bi = 0; bi < s.B; ++bi) {
      const bool empty = s.len(bi) == 0; /* no last state: zeros, as ONNX Runtime */
      for (i64 j = 0; j < s.H; ++j) {
        if (s.yh)
          s.yh[s.state_at(d, bi) + j] = empty ? T(0) : s.h[bi * s.H + j];
        if (s.yc)
          s.yc[s.state_at(d, bi) + j] = empty ? T(0) : s.c[bi * s.H + j];
      }
    }
  }
}

template <typename T> int32_t recurrent_kernel(onnxc_rt *rt, void *const *t, const i64 *p) {
  Rnn<T> s = make_rnn<T>(rt, t, p);
  for (i64 bi = 0; s.lens && bi < s.B; ++bi)
    if (s.lens[bi] < 0 || s.lens[bi] > s.S)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "sequence_lens has a value outside [0, seq_length]");
  /* the tile height as a template argument: a constant of the node, so one case remains */
  switch (p[kTileRows]) {
  case 1:
    run_directions<T, 1>(s, p);
    break;
  case 2:
    run_directions<T, 2>(s, p);
    break;
  case 4:
    run_directions<T, 4>(s, p);
    break;
  case 6:
    run_directions<T, 6>(s, p);
    break;
  default:
    run_directions<T, gemm::kMR>(s, p);
    break;
  }
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_RECURRENT_KERNEL(ct, sfx, unused)                                                    \
  extern "C" int32_t onnxc_k_recurrent_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {     \
    return onnxc_k::recurrent_kernel<ct>(rt, t, p);                                                \
  }
ONNXC_FLOAT_TYPES(ONNXC_RECURRENT_KERNEL, 0)
