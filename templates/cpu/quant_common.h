/* Shared pieces of the quantisation kernels (quant.cpp, quant_gemm.cpp).
 *
 * Real values are float16/bfloat16/float/double tensors, read into float (double for double)
 * and written back with round-to-nearest-even. Quantised values are (u)int8, (u)int16 or int32.
 * quantize() is ONNX's saturate(round_half_to_even(v) + zero_point): ties go to the even
 * integer, results clamp to the type's range, and NaN gives the zero point.
 *
 * Scale / zero-point layout (per-tensor, per-axis and blocked alike): x is viewed as
 * [outer, A, inner] around the quantisation axis; element (o, a, i) uses the scale at
 * o * so + (a / block) * sa + i * si (strides 0 for per-tensor, sa = 1 for per-axis). */
#ifndef ONNXC_KERNEL_QUANT_COMMON_H
#define ONNXC_KERNEL_QUANT_COMMON_H

#include "templates/cpu/half.h"
#include "templates/cpu/kernel_abi.h"

namespace onnxc_k {
namespace quant {

/* ONNX dtype numbers used here. */
constexpr i64 kF32 = 1, kU8 = 2, kI8 = 3, kU16 = 4, kI16 = 5, kI32 = 6, kF16 = 10, kF64 = 11,
              kBF16 = 16;

/// Reads element i of a real tensor of ONNX dtype `dt` (float16/bfloat16/float/double).
inline double load_real(i64 dt, const void *p, i64 i) {
  switch (dt) {
  case kF16:
    return half::half_to_float(static_cast<const unsigned short *>(p)[i]);
  case kBF16:
    return half::bf16_to_float(static_cast<const unsigned short *>(p)[i]);
  case kF64:
    return static_cast<const double *>(p)[i];
  default:
    return static_cast<const float *>(p)[i];
  }
}

/// Writes element i of a real tensor of ONNX dtype `dt` (rounding to its precision).
inline void store_real(i64 dt, void *p, i64 i, double v) {
  switch (dt) {
  case kF16:
    static_cast<unsigned short *>(p)[i] = half::float_to_half(static_cast<float>(v));
    break;
  case kBF16:
    static_cast<unsigned short *>(p)[i] = half::float_to_bf16(static_cast<float>(v));
    break;
  case kF64:
    static_cast<double *>(p)[i] = v;
    break;
  default:
    static_cast<float *>(p)[i] = static_cast<float>(v);
    break;
  }
}

/// Reads element i of an integer tensor of ONNX dtype `dt` ((u)int8, (u)int16, int32).
inline int32_t load_int(i64 dt, const void *p, i64 i) {
  switch (dt) {
  case kU8:
    return static_cast<const unsigned char *>(p)[i];
  case kI8:
    return static_cast<const signed char *>(p)[i];
  case kU16:
    return static_cast<const unsigned short *>(p)[i];
  case kI16:
    return static_cast<const short *>(p)[i];
  default:
    return static_cast<const int32_t *>(p)[i];
  }
}

template <typename T> struct Range;
template <> struct Range<unsigned char> { static constexpr float lo = 0, hi = 255; };
template <> struct Range<signed char> { static constexpr float lo = -128, hi = 127; };
template <> struct Range<unsigned short> { static constexpr float lo = 0, hi = 65535; };
template <> struct Range<short> { static constexpr float lo = -32768, hi = 32767; };

/// saturate(round_half_to_even(v) + zp) in T's range; NaN gives zp. C is float or double.
template <typename T, typename C> inline T quantize(C v, int32_t zp) {
  C r; /* rint in the default rounding mode: ties to even */
  if constexpr (sizeof(C) == 4)
    r = __builtin_rintf(v) + static_cast<C>(zp);
  else
    r = __builtin_rint(v) + static_cast<C>(zp);
  if (!(r == r))
    r = static_cast<C>(zp);
  r = r < C(Range<T>::lo) ? C(Range<T>::lo) : r;
  r = r > C(Range<T>::hi) ? C(Range<T>::hi) : r;
  return static_cast<T>(static_cast<int32_t>(r));
}

/// Scale / zero-point geometry (see the file comment).
struct QAxis {
  i64 outer, A, inner, block, so, sa, si;
  i64 index(i64 o, i64 a, i64 i) const { return o * so + (a / block) * sa + i * si; }
};

inline QAxis read_axis(const i64 *p) { return QAxis{p[0], p[1], p[2], p[3], p[4], p[5], p[6]}; }

} // namespace quant
} // namespace onnxc_k

#endif
