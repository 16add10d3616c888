/* Resize with scales, sizes or roi computed at run time (resize_params.h): the taps of each axis
 * as compiler/ops/tensor/resize.cpp computes them for constant inputs, then the Resize kernels
 * of templates/cpu/resize.cpp. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/resize_params.h"

extern "C" int32_t onnxc_k_resize_nearest(onnxc_rt *rt, void *const *t, const int64_t *p);
extern "C" int32_t onnxc_k_resize_f32(onnxc_rt *rt, void *const *t, const int64_t *p);
extern "C" int32_t onnxc_k_resize_f64(onnxc_rt *rt, void *const *t, const int64_t *p);

namespace {
using onnxc_k::i64;
using onnxc_k::ResizeRtParams;

inline double dmin(double a, double b) { return a < b ? a : b; }
inline double dmax(double a, double b) { return a > b ? a : b; }
inline double dabs(double a) { return a < 0 ? -a : a; }
inline i64 clampi(i64 v, i64 lo, i64 hi) { return v < lo ? lo : v > hi ? hi : v; }

inline i64 param_bits(double v) {
  i64 b;
  __builtin_memcpy(&b, &v, sizeof b);
  return b;
}

/// The coefficients of one output coordinate (at most 2 * kMaxTaps); returns their count.
constexpr i64 kMaxTaps = 64;
i64 coeffs(const ResizeRtParams &p, double r, double scale, double *c) {
  if (p.mode == onnxc_k::kResizeNearest) {
    if (r == 1.0) {
      c[0] = 0, c[1] = 1;
    } else if (p.nearest_mode == onnxc_k::kNearestRoundPreferFloor) {
      c[0] = r <= 0.5, c[1] = r > 0.5;
    } else if (p.nearest_mode == onnxc_k::kNearestRoundPreferCeil) {
      c[0] = r < 0.5, c[1] = r >= 0.5;
    } else if (p.nearest_mode == onnxc_k::kNearestFloor ||
               (p.nearest_mode == onnxc_k::kNearestSimple && scale >= 1)) {
      c[0] = 1, c[1] = 0;
    } else {
      c[0] = 0, c[1] = 1;
    }
    return 2;
  }
  const double A = p.cubic_a;
  i64 n = 0;
  if (p.mode == onnxc_k::kResizeLinear && !p.antialias) {
    c[0] = 1 - r, c[1] = r;
    return 2;
  }
  if (p.mode == onnxc_k::kResizeCubic && !p.antialias) {
    c[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
    c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
    c[2] = ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1;
    c[3] = ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A;
    return 4;
  }
  scale = dmin(scale, 1.0);
  const double support = p.mode == onnxc_k::kResizeLinear ? 1 : 2;
  if (!(2 * support / scale + 2 <= static_cast<double>(kMaxTaps)))
    return -1; /* antialiasing a scale this small needs more taps than the kernel keeps */
  if (p.mode == onnxc_k::kResizeLinear) {
    const i64 start = static_cast<i64>(__builtin_floor(-1 / scale) + 1), footprint = 2 - 2 * start;
    for (i64 i = start; i < start + footprint && n < kMaxTaps; ++i)
      c[n++] = dmax(0.0, dmin(1.0, 1 - dabs((static_cast<double>(i) - r) * scale)));
  } else {
    const i64 start = static_cast<i64>(__builtin_floor(-2 / scale) + 1), end = 2 - start;
    for (i64 i = start; i < end && n < kMaxTaps; ++i) {
      const double x = dabs(scale * (static_cast<double>(i) - r)), x2 = x * x, x3 = x * x2;
      c[n++] = x <= 1  ? (A + 2) * x3 - (A + 3) * x2 + 1
               : x < 2 ? A * x3 - 5 * A * x2 + 8 * A * x - 4 * A
                       : 0.0;
    }
  }
  double sum = 0;
  for (i64 k = 0; k < n; ++k)
    sum += c[k];
  for (i64 k = 0; k < n; ++k)
    c[k] /= sum;
  return n;
}

/// Input coordinate of output coordinate x of axis d; sets `outside` (tf_crop_and_resize).
double original(const ResizeRtParams &p, i64 xi, double in, double scale, i64 out, double r0,
                double r1, bool &outside) {
  const double x = static_cast<double>(xi), out_w = scale * in;
  outside = false;
  switch (p.ctm) {
  case onnxc_k::kCtmAlignCorners:
    return out_w == 1 ? 0.0 : x * (in - 1) / (out_w - 1);
  case onnxc_k::kCtmAsymmetric:
    return x / scale;
  case onnxc_k::kCtmTfCropAndResize: {
    double xo = out_w == 1 ? (r1 - r0) * (in - 1) / 2 : x * (r1 - r0) * (in - 1) / (out_w - 1);
    xo += r0 * (in - 1);
    outside = xo < 0 || xo > in - 1;
    return xo;
  }
  case onnxc_k::kCtmPytorchHalfPixel:
    return out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  case onnxc_k::kCtmTfHalfPixelForNn:
    return (x + 0.5) / scale;
  case onnxc_k::kCtmHalfPixelSymmetric: {
    const double adjustment = static_cast<double>(out) / out_w, center = in / 2;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  default:
    return (x + 0.5) / scale - 0.5;
  }
}

inline i64 fail(onnxc_rt *rt, const char *msg) {
  return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, msg);
}
} // namespace

extern "C" int32_t onnxc_k_resize_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<ResizeRtParams>(pp);
  const i64 R = p.rank;
  double scales[8], r0[8], r1[8];
  i64 out[8];
  for (i64 d = 0; d < R; ++d)
    scales[d] = 1.0, out[d] = p.dims[d], r0[d] = 0.0, r1[d] = 1.0;
  if (t[3]) { /* sizes */
    const int64_t *sizes = static_cast<const int64_t *>(t[3]);
    for (i64 i = 0; i < p.naxes; ++i) {
      const i64 a = p.axes[i];
      if (sizes[i] < 0 || sizes[i] > (int64_t(1) << 40))
        return fail(rt, "sizes has a negative or too large value");
      out[a] = sizes[i];
      scales[a] = p.dims[a] ? static_cast<double>(out[a]) / static_cast<double>(p.dims[a]) : 1.0;
    }
    if (p.keep_aspect) {
      double s = p.keep_aspect == 1 ? 1e300 : -1e300;
      for (i64 i = 0; i < p.naxes; ++i)
        s = p.keep_aspect == 1 ? dmin(s, scales[p.axes[i]]) : dmax(s, scales[p.axes[i]]);
      for (i64 i = 0; i < p.naxes; ++i) {
        const i64 a = p.axes[i];
        scales[a] = s;
        const double o = s * static_cast<double>(p.dims[a]) + 0.5;
        if (!(o >= 0 && o < 0x1p40))
          return fail(rt, "the scale gives an invalid output size");
        out[a] = static_cast<i64>(o);
      }
    }
  } else if (t[2]) { /* scales */
    const float *sc = static_cast<const float *>(t[2]);
    for (i64 i = 0; i < p.naxes; ++i) {
      const i64 a = p.axes[i];
      if (!(sc[i] > 0))
        return fail(rt, "scales must be positive");
      scales[a] = sc[i];
    }
    for (i64 d = 0; d < R; ++d) {
      const double o = scales[d] * static_cast<double>(p.dims[d]);
      if (!(o < 0x1p40))
        return fail(rt, "a scale gives an output too large");
      out[d] = static_cast<i64>(o);
    }
  } else {
    return fail(rt, "one of scales and sizes must be given");
  }
  if (p.ctm == onnxc_k::kCtmTfCropAndResize) {
    if (!t[1])
      return fail(rt, "tf_crop_and_resize needs roi");
    const float *roi = static_cast<const float *>(t[1]);
    for (i64 i = 0; i < p.naxes; ++i)
      r0[p.axes[i]] = roi[i], r1[p.axes[i]] = roi[i + p.naxes];
  }
  /* taps per axis: in the params of the Resize kernels (templates/cpu/resize.cpp) */
  const bool nearest = p.mode == onnxc_k::kResizeNearest;
  double c[kMaxTaps];
  i64 ntaps[8], words = 4 + 3 * R, numel = 1;
  for (i64 d = 0; d < R; ++d) {
    const i64 n = coeffs(p, 0.5, scales[d], c);
    if (n < 0)
      return fail(rt, "antialiasing at this scale needs more than 64 taps");
    ntaps[d] = nearest ? 1 : n;
    i64 axis_words;
    if (__builtin_mul_overflow(out[d], ntaps[d] * (nearest ? 1 : 2), &axis_words) ||
        __builtin_add_overflow(words, axis_words, &words) || words > (int64_t(1) << 40) ||
        __builtin_mul_overflow(numel, out[d], &numel) || numel > (int64_t(1) << 40))
      return fail(rt, "the output is too large");
  }
  if (numel == 0) { /* an empty output: nothing to compute */
    if (!onnxc_rt_output_buffer(rt, t[4], 0))
      return ONNXC_STATUS_OUT_OF_MEMORY;
    onnxc_rt_set_shape(rt, t[4], static_cast<int32_t>(R), out);
    return 0;
  }
  i64 *q = static_cast<i64 *>(onnxc_rt_dyn_alloc(rt, static_cast<uint64_t>(words) * 8));
  void *y = q ? onnxc_rt_output_buffer(rt, t[4], static_cast<uint64_t>(numel * p.elem_bytes)) : 0;
  if (!q || !y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  q[0] = p.elem_bytes, q[1] = R, q[2] = 1;
  q[3] = nearest ? p.extrapolation_bits : param_bits(p.extrapolation);
  i64 stride[8], at = 4 + 3 * R;
  for (i64 d = R; d-- > 0;)
    stride[d] = d + 1 < R ? stride[d + 1] * p.dims[d + 1] : 1;
  for (i64 d = 0; d < R; ++d) {
    q[4 + d] = p.dims[d], q[4 + R + d] = out[d], q[4 + 2 * R + d] = ntaps[d];
    const i64 in = p.dims[d], base = at;
    for (i64 x = 0; x < out[d]; ++x) {
      bool outside;
      const double xo =
          original(p, x, static_cast<double>(in), scales[d], out[d], r0[d], r1[d], outside);
      const double fl = __builtin_floor(xo), ratio = xo == fl ? 1.0 : xo - fl;
      const i64 n = coeffs(p, ratio, scales[d], c), pad = (n + 1) / 2, len = in + 2 * pad;
      /* a coordinate far outside (a huge or NaN roi) clamps like one just outside */
      const double xs = xo == xo ? dmax(-1e15, dmin(1e15, xo)) : 0.0;
      i64 start = static_cast<i64>(
          __builtin_ceil(xs + static_cast<double>(pad) - static_cast<double>(n) / 2));
      start = clampi(start, 0, len - n > 0 ? len - n : 0);
      if (p.exclude_outside) {
        double sum = 0;
        for (i64 k = 0; k < n; ++k) {
          const i64 i = start + k - pad;
          if (i < 0 || i >= in)
            c[k] = 0;
          sum += c[k];
        }
        for (i64 k = 0; k < n; ++k)
          c[k] = sum != 0 ? c[k] / sum : 0;
      }
      i64 best = 0;
      for (i64 k = 1; k < n; ++k)
        best = c[k] > c[best] ? k : best;
      for (i64 k = nearest ? best : 0; k < (nearest ? best + 1 : n); ++k) {
        const i64 i = clampi(start + k - pad, 0, in - 1 > 0 ? in - 1 : 0);
        const i64 slot = nearest ? x : x * n + k;
        q[base + slot] = outside || in == 0 ? -1 : i * stride[d];
        if (!nearest)
          q[base + out[d] * n + slot] = param_bits(c[k]);
      }
    }
    at += out[d] * ntaps[d] * (nearest ? 1 : 2);
  }
  void *io[2] = {t[0], y};
  const int32_t st = numel == 0 ? 0
                     : nearest  ? onnxc_k_resize_nearest(rt, io, q)
                     : p.is_f64 ? onnxc_k_resize_f64(rt, io, q)
                                : onnxc_k_resize_f32(rt, io, q);
  onnxc_rt_set_shape(rt, t[4], static_cast<int32_t>(R), out);
  return st;
}
