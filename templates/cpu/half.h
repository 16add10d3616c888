/* float16 and bfloat16 conversions by bit manipulation (round to nearest even), shared by the
 * Cast and quantisation kernels. Kernels must not use _Float16 conversions (compiler-runtime
 * helpers are not available to compiled models, see docs/codegen-cpu.md). */
#ifndef ONNXC_KERNEL_HALF_H
#define ONNXC_KERNEL_HALF_H

namespace onnxc_k {
namespace half {
using u16 = unsigned short;
using u32 = unsigned int;

inline u32 f2u(float f) {
  u32 u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
inline float u2f(u32 u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}

/// IEEE binary16 bits to float (exact).
inline float half_to_float(u16 h) {
  const u32 shifted_exp = 0x7c00u << 13;
  u32 o = (h & 0x7fffu) << 13;
  u32 exp = shifted_exp & o;
  o += (127u - 15u) << 23;
  if (exp == shifted_exp) {
    o += (128u - 16u) << 23; /* Inf/NaN */
  } else if (exp == 0) {
    o += 1u << 23; /* zero/subnormal: renormalise */
    o = f2u(u2f(o) - u2f(113u << 23));
  }
  return u2f(o | (u32(h & 0x8000u) << 16));
}

/// float to IEEE binary16 bits, round to nearest even; overflow gives Inf, NaN stays NaN.
inline u16 float_to_half(float f) {
  u32 u = f2u(f);
  u32 sign = u & 0x80000000u;
  u ^= sign;
  u16 o;
  if (u >= (127u + 16u) << 23) { /* overflow, Inf, NaN */
    o = u > (255u << 23) ? 0x7e00 : 0x7c00;
  } else if (u < (113u << 23)) { /* result is subnormal or zero */
    const u32 magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    o = static_cast<u16>(f2u(u2f(u) + u2f(magic)) - magic);
  } else {
    u32 mant_odd = (u >> 13) & 1u;
    u += ((u32)(15 - 127) << 23) + 0xfffu + mant_odd;
    o = static_cast<u16>(u >> 13);
  }
  return static_cast<u16>(o | (sign >> 16));
}

/// bfloat16 bits to float (exact).
inline float bf16_to_float(u16 b) { return u2f(u32(b) << 16); }

/// float to bfloat16 bits, round to nearest even; NaN stays a quiet NaN.
inline u16 float_to_bf16(float f) {
  u32 u = f2u(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<u16>((u >> 16) | 0x40u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<u16>(u >> 16);
}
} // namespace half
} // namespace onnxc_k

#endif
