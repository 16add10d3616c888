/* DFT and STFT (compiler/ops/signal/dft.cpp, stft.cpp; kernel templates/cpu/dft.cpp).
 *
 * One kernel computes a direct DFT of length n along one axis of X viewed as
 * [outer, n_in, inner, cin] (cin = 1 real, 2 complex), for `frames` windows per line starting
 * at f * step (DFT: frames 1, step 0; STFT: the frames of the signal, each multiplied by the
 * window when there is one). Y is [outer, frames, out_len, inner, cout]. Twiddles come from a
 * table of n complex doubles in the scratch; sums run in double.
 * tensors {X, window (or null), Y, scratch}. */
#ifndef ONNXC_DFT_PARAMS_H
#define ONNXC_DFT_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// Modes of DftParams::mode.
enum DftMode : int64_t {
  kDftForward = 0,     ///< y[k] = sum_t x[t] e^{-2 pi i k t / n}
  kDftInverse = 1,     ///< y[t] = 1/n sum_k x[k] e^{+2 pi i k t / n}
  kDftInverseReal = 2, ///< the inverse of a one-sided spectrum (x[n - k] = conj(x[k])), real y
};

struct DftParams {
  int64_t outer, n_in, inner, cin;
  int64_t frames, step, frame_len; ///< frame_len: input samples per frame (zero-padded to n)
  int64_t n, out_len, cout, mode;
};

/// Scratch bytes: the twiddle table.
constexpr int64_t dft_scratch_bytes(const DftParams &p) { return p.n * 16; }

/// DFT (opset 20) whose axis is computed at run time: the DftParams and output dims for each
/// axis it may name (0 .. rank - 2; the last dim holds the complex parts), and whether the DFT
/// is defined along it (an inverse real DFT needs 2 or more samples). The kernel checks the
/// axis, runs the DFT with its params and reports the output's shape (onnxc_rt_set_shape).
/// Tensors {X, AXIS (an int32 or int64 scalar), Y, scratch (the largest twiddle table)}.
struct DftAxisParams {
  int64_t rank, axis_bytes;
  int64_t valid[7];
  DftParams at[7];
  int64_t out_dims[7][8];
};

/// STFT whose frame_step (and frame_length, when given) are computed at run time: tensors
/// {SIGNAL [batch, n_in, cin], FRAME_STEP, WINDOW [window_len] or null, FRAME_LENGTH or null,
/// Y, scratch (n_in twiddles)}; the scalars are int32 or int64 (index_bytes). Y [batch, frames,
/// bins, 2] has no bound: it goes where onnxc_rt_output_buffer says, its shape reported.
struct StftRtParams {
  int64_t batch, n_in, cin, onesided, window_len, index_bytes;
};

} // namespace onnxc_k

#endif
