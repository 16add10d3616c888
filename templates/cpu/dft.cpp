/* DFT / STFT kernel (parameters and layouts: templates/cpu/dft_params.h). A direct O(n^2)
 * transform per line with an exact twiddle table (index k * t mod n), accumulated in double.
 * Lines (outer x frames x inner) run in parallel. */
#include "templates/cpu/dft_params.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_k {
namespace {

/// Fills tw[2k], tw[2k + 1] = cos, sin of 2 pi k / n.
void twiddles(double *tw, i64 n) {
  const double pi = 3.14159265358979323846;
  for (i64 k = 0; k < n; ++k) {
    double a = 2.0 * pi * double(k) / double(n);
    tw[2 * k] = cs(a);
    tw[2 * k + 1] = sn(a);
  }
}

/// Sample t (< frame_len) of one line as a complex number (imaginary 0 for real input), times
/// the window if there is one; zero past the input's end.
template <typename T> struct Line {
  const T *x; ///< the line's first sample of the frame
  const T *w;
  i64 stride, cin, avail;
  void at(i64 t, double &re, double &im) const {
    re = im = 0.0;
    if (t >= avail)
      return;
    const T *v = x + t * stride;
    re = double(v[0]);
    im = cin == 2 ? double(v[1]) : 0.0;
    if (w) {
      re *= double(w[t]);
      im *= double(w[t]);
    }
  }
};

/// y[k] = sum_t x[t] e^{sign 2 pi i k t / n} (scaled), for k < out_len.
template <typename T>
void complex_dft(const DftParams &p, const Line<T> &in, const double *tw, T *y, i64 ystride) {
  const double sign = p.mode == kDftForward ? -1.0 : 1.0;
  const double scale = p.mode == kDftForward ? 1.0 : 1.0 / double(p.n);
  const i64 len = in.avail < p.n ? in.avail : p.n;
  for (i64 k = 0; k < p.out_len; ++k) {
    double sr = 0.0, si = 0.0;
    i64 idx = 0; // k * t mod n
    for (i64 t = 0; t < len; ++t) {
      double re, im;
      in.at(t, re, im);
      const double c = tw[2 * idx], s = sign * tw[2 * idx + 1];
      sr += re * c - im * s;
      si += re * s + im * c;
      idx += k % p.n;
      if (idx >= p.n)
        idx -= p.n;
    }
    y[k * ystride] = T(sr * scale);
    if (p.cout == 2)
      y[k * ystride + 1] = T(si * scale);
  }
}

/// The real inverse of the one-sided spectrum x[0..n/2] (numpy.fft.irfft): the imaginary parts
/// of x[0] and, for even n, x[n/2] are ignored.
template <typename T>
void inverse_real(const DftParams &p, const Line<T> &in, const double *tw, T *y, i64 ystride) {
  const i64 half = p.n / 2;
  for (i64 t = 0; t < p.n; ++t) {
    double re, im, s = 0.0;
    in.at(0, re, im);
    s += re;
    i64 idx = 0;
    for (i64 k = 1; k <= half; ++k) {
      idx += t;
      idx %= p.n;
      in.at(k, re, im);
      if (2 * k == p.n)
        s += re * tw[2 * idx];
      else
        s += 2.0 * (re * tw[2 * idx] - im * tw[2 * idx + 1]);
    }
    y[t * ystride] = T(s / double(p.n));
  }
}

template <typename T> int32_t dft(onnxc_rt *rt, void *const *t, const i64 *params) {
  const DftParams p0 = params_of<DftParams>(params);
  double *tw = static_cast<double *>(t[3]);
  twiddles(tw, p0.n);
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const DftParams p = params_of<DftParams>(pp);
    const T *x = static_cast<const T *>(t[0]);
    const T *w = static_cast<const T *>(t[1]);
    T *y = static_cast<T *>(t[2]);
    for (i64 line = lo; line < hi; ++line) {
      const i64 i = line % p.inner, f = (line / p.inner) % p.frames;
      const i64 o = line / (p.inner * p.frames);
      const i64 start = f * p.step;
      Line<T> in{x + ((o * p.n_in + start) * p.inner + i) * p.cin, w, p.inner * p.cin, p.cin,
                 p.n_in - start < p.frame_len ? p.n_in - start : p.frame_len};
      T *out = y + ((o * p.frames + f) * p.out_len * p.inner + i) * p.cout;
      if (p.mode == kDftInverseReal)
        inverse_real(p, in, tw, out, p.inner * p.cout);
      else
        complex_dft(p, in, tw, out, p.inner * p.cout);
    }
  };
  const i64 lines = p0.outer * p0.frames * p0.inner;
  const i64 work = p0.n * p0.out_len;
  parallel_for(rt, params, lines, work >= 4096 ? 1 : 4096 / (work ? work : 1), body);
  return 0;
}

template <typename T> int32_t dft_axis(onnxc_rt *rt, void *const *t, const i64 *params) {
  const i64 rank = params[0];
  const i64 a =
      params[1] == 4 ? *static_cast<const int32_t *>(t[1]) : *static_cast<const int64_t *>(t[1]);
  if (a < -rank || a > rank - 2 || a == -1)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                         "axis is out of range for the input's rank (the last dimension holds "
                         "the complex parts)");
  const i64 axis = a < 0 ? a + rank : a;
  if (!params[__builtin_offsetof(DftAxisParams, valid) / sizeof(i64) + axis])
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                         "the DFT length along this axis is out of range (an inverse real DFT "
                         "needs 2 or more samples)");
  constexpr i64 kWords = sizeof(DftParams) / sizeof(i64);
  const i64 *at = params + __builtin_offsetof(DftAxisParams, at) / sizeof(i64) + axis * kWords;
  void *io[4] = {t[0], nullptr, t[2], t[3]};
  const int32_t st = dft<T>(rt, io, at);
  const i64 *dims = params + __builtin_offsetof(DftAxisParams, out_dims) / sizeof(i64) + axis * 8;
  onnxc_rt_set_shape(rt, t[2], static_cast<int32_t>(rank), dims);
  return st;
}

template <typename T> int32_t stft_rt(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto q = params_of<StftRtParams>(params);
  const i64 step = index_at(t[1], q.index_bytes, 0);
  const i64 len = t[3] ? index_at(t[3], q.index_bytes, 0) : q.window_len;
  if (step < 1 || len < 1 || len > q.n_in || (q.window_len && len != q.window_len))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                         "frame_step must be positive and frame_length between 1 and the signal "
                         "length (and the window's length when there is a window)");
  DftParams p{};
  p.outer = q.batch, p.n_in = q.n_in, p.inner = 1, p.cin = q.cin;
  p.frames = (q.n_in - len) / step + 1;
  p.step = step, p.frame_len = len, p.n = len;
  p.out_len = q.onesided ? len / 2 + 1 : len;
  p.cout = 2, p.mode = kDftForward;
  const uint64_t bytes = uint64_t(p.outer * p.frames * p.out_len * 2) * sizeof(T);
  void *y = onnxc_rt_output_buffer(rt, t[4], bytes);
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  void *io[4] = {t[0], t[2], y, t[5]};
  i64 raw[sizeof(DftParams) / sizeof(i64)];
  __builtin_memcpy(raw, &p, sizeof p);
  const int32_t st = dft<T>(rt, io, raw);
  const i64 shape[4] = {p.outer, p.frames, p.out_len, 2};
  onnxc_rt_set_shape(rt, t[4], 4, shape);
  return st;
}

} // namespace
} // namespace onnxc_k

extern "C" int32_t onnxc_k_stft_rt_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return onnxc_k::stft_rt<float>(rt, t, p);
}
extern "C" int32_t onnxc_k_stft_rt_f64(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return onnxc_k::stft_rt<double>(rt, t, p);
}

extern "C" int32_t onnxc_k_dft_axis_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return onnxc_k::dft_axis<float>(rt, t, p);
}
extern "C" int32_t onnxc_k_dft_axis_f64(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return onnxc_k::dft_axis<double>(rt, t, p);
}

extern "C" int32_t onnxc_k_dft_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return onnxc_k::dft<float>(rt, t, p);
}
extern "C" int32_t onnxc_k_dft_f64(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return onnxc_k::dft<double>(rt, t, p);
}
