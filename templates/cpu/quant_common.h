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
              kBF16 = 16, kE4M3FN = 17, kE4M3FNUZ = 18, kE5M2 = 19, kE5M2FNUZ = 20, kU4 = 21,
              kI4 = 22, kF4E2M1 = 23, kE8M0 = 24, kU2 = 25, kI2 = 26;

/// Bits per element of a packed sub-byte type (4 or 2), 0 for whole-byte types.
inline int packed_bits(i64 dt) {
  return dt == kU4 || dt == kI4 || dt == kF4E2M1 ? 4 : dt == kU2 || dt == kI2 ? 2 : 0;
}

/// Raw code of element i of a packed tensor (lowest bits first).
inline unsigned load_packed(const void *p, i64 i, int bits) {
  const int per = 8 / bits;
  return (static_cast<const unsigned char *>(p)[i / per] >> (bits * (i % per))) &
         ((1u << bits) - 1);
}

/// Sets element i of a packed tensor to `code` (read-modify-write of its byte).
inline void store_packed(void *p, i64 i, int bits, unsigned code) {
  const int per = 8 / bits, shift = bits * static_cast<int>(i % per);
  unsigned char *b = static_cast<unsigned char *>(p) + i / per;
  const unsigned mask = ((1u << bits) - 1) << shift;
  *b = static_cast<unsigned char>((*b & ~mask) | ((code << shift) & mask));
}

/// Code of element i: packed when `bits` is 4 or 2, else one byte.
inline unsigned load_packed_or_byte(const void *p, i64 i, int bits) {
  return bits ? load_packed(p, i, bits) : static_cast<const unsigned char *>(p)[i];
}

/// A small float format (float8 variants, float4e2m1). fnuz: 0x80 is the only NaN, no
/// infinity, no negative zero; otherwise e5m2 has infinities, e4m3fn only NaN (all ones),
/// float4e2m1 neither.
struct MiniFloat {
  int ebits, mbits, bias;
  bool fnuz;
  unsigned max_mag; /* largest finite magnitude code */
};

inline bool minifloat_of(i64 dt, MiniFloat &f) {
  switch (dt) {
  case kE4M3FN:
    f = {4, 3, 7, false, 0x7e};
    return true;
  case kE4M3FNUZ:
    f = {4, 3, 8, true, 0x7f};
    return true;
  case kE5M2:
    f = {5, 2, 15, false, 0x7b};
    return true;
  case kE5M2FNUZ:
    f = {5, 2, 16, true, 0x7f};
    return true;
  case kF4E2M1:
    f = {2, 1, 1, false, 0x7};
    return true;
  default:
    return false;
  }
}

inline float pow2f(int e) { return half::u2f(static_cast<half::u32>(e + 127) << 23); }

/// Code of a small float to float.
inline float minifloat_decode(const MiniFloat &f, unsigned code) {
  const int width = 1 + f.ebits + f.mbits;
  const unsigned sign = (code >> (width - 1)) & 1u, mag = code & ((1u << (width - 1)) - 1);
  const float nan = __builtin_nanf("");
  if (f.fnuz && sign && mag == 0)
    return nan;
  if (!f.fnuz && mag > f.max_mag) /* e4m3fn NaN; e5m2 infinity (0x7c) or NaN */
    return f.ebits == 5 && mag == 0x7c ? (sign ? -__builtin_inff() : __builtin_inff()) : nan;
  const int e = static_cast<int>(mag >> f.mbits), m = static_cast<int>(mag & ((1u << f.mbits) - 1));
  const float v = e == 0 ? static_cast<float>(m) * pow2f(1 - f.bias - f.mbits)
                         : static_cast<float>(m + (1 << f.mbits)) * pow2f(e - f.bias - f.mbits);
  return sign ? -v : v;
}

/// float to a small float code, rounding to nearest even. Out of range: the largest finite
/// value if `saturate` (always for float4e2m1), else infinity (e5m2) or NaN.
inline unsigned minifloat_encode(const MiniFloat &f, float v, bool saturate) {
  const int width = 1 + f.ebits + f.mbits;
  const unsigned sign_bit = 1u << (width - 1);
  const unsigned nan = f.fnuz ? 0x80u : f.ebits == 5 ? 0x7fu : f.ebits == 4 ? 0x7fu : f.max_mag;
  if (v != v)
    return nan;
  unsigned sign = v < 0 ? sign_bit : 0u;
  const float a = v < 0 ? -v : v;
  unsigned mag;
  if (a > 3.0e38f) { /* infinity */
    mag = f.max_mag + 1;
  } else {
    int e = static_cast<int>((half::f2u(a) >> 23) & 0xff) - 127; /* floor(log2 a), normal a */
    if (e < 1 - f.bias)
      e = 1 - f.bias; /* subnormal range: fixed quantum */
    const float q = __builtin_rintf(a * pow2f(f.mbits - e));
    const unsigned qi = static_cast<unsigned>(q);
    /* q in [2^mbits, 2^(mbits+1)] for normals (the top end carries into the exponent) */
    mag = qi < (1u << f.mbits)
              ? qi
              : (static_cast<unsigned>(e + f.bias) << f.mbits) + qi - (1u << f.mbits);
    if (a == 0)
      mag = 0;
  }
  if (mag > f.max_mag) {
    if (saturate || f.ebits == 2)
      mag = f.max_mag;
    else
      return f.ebits == 5 && !f.fnuz ? (sign | 0x7cu) : nan;
  }
  if (f.fnuz && mag == 0)
    sign = 0;
  return sign | mag;
}

/// float8e8m0 (exponent only, no sign): code c is 2^(c - 127), 0xff is NaN.
inline float e8m0_decode(unsigned code) {
  if (code == 0xffu)
    return __builtin_nanf("");
  return half::u2f(code ? code << 23 : 0x400000u); /* code 0: the subnormal 2^-127 */
}

/// Rounding of float8e8m0_encode: toward +infinity magnitude, toward zero, or to nearest.
enum E8M0Round : i64 { kE8M0Up = 0, kE8M0Down = 1, kE8M0Nearest = 2 };

/// float to float8e8m0 as onnx.numpy_helper.to_float8e8m0: the float's exponent field,
/// incremented per `round` (`nearest` rounds up on the guard bit unless the rest is zero and
/// the exponent field is 0); NaN and infinity give 0xff; with `saturate`, rounding stops at 0xfe.
inline unsigned e8m0_encode(float v, i64 round, bool saturate) {
  const half::u32 bits = half::f2u(v);
  unsigned e = (bits >> 23) & 0xffu;
  if (e == 0xffu)
    return 0xffu;
  bool up = false;
  if (round == kE8M0Up)
    up = (bits & 0x7fffffu) != 0;
  else if (round == kE8M0Nearest)
    up = (bits & 0x400000u) && ((bits & 0x3fffffu) || e > 0);
  if (up && !(saturate && e == 0xfeu))
    ++e;
  return e;
}

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

/// Reads element i of an integer tensor of ONNX dtype `dt` ((u)int8, (u)int16, int32, and the
/// packed (u)int4 / (u)int2).
inline int32_t load_int(i64 dt, const void *p, i64 i) {
  switch (dt) {
  case kU4:
    return static_cast<int32_t>(load_packed(p, i, 4));
  case kU2:
    return static_cast<int32_t>(load_packed(p, i, 2));
  case kI4:
    return static_cast<int32_t>(load_packed(p, i, 4) ^ 8u) - 8;
  case kI2:
    return static_cast<int32_t>(load_packed(p, i, 2) ^ 2u) - 2;
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
