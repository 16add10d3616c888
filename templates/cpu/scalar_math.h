/* Scalar helpers for element-wise expressions in elementwise.def. Freestanding: math goes through
 * compiler builtins, which LLVM turns into intrinsics (and libm calls) in generated code and which
 * g++/clang resolve to libm natively. float exp, log, tanh, erf and sigmoid are the branch-free
 * functions of vec_math.h instead (no call, so loops using them vectorise; the same results as
 * the kernels' explicit vector loops); double keeps libm. */
#ifndef ONNXC_SCALAR_MATH_H
#define ONNXC_SCALAR_MATH_H

#include "templates/cpu/vec_math.h"

namespace onnxc_k {

template <typename T> inline constexpr bool is_f32 = false;
template <> inline constexpr bool is_f32<float> = true;
template <typename T> inline constexpr bool is_float = false;
template <> inline constexpr bool is_float<float> = true;
template <> inline constexpr bool is_float<double> = true;

#define ONNXC_MATH1(fn, b)                                                                         \
  template <typename T> inline T fn(T x) {                                                         \
    if constexpr (is_f32<T>)                                                                       \
      return __builtin_##b##f(x);                                                                  \
    else                                                                                           \
      return static_cast<T>(__builtin_##b(static_cast<double>(x)));                                \
  }
#define ONNXC_MATH1_VM(fn, b)                                                                      \
  template <typename T> inline T fn(T x) {                                                         \
    if constexpr (is_f32<T>)                                                                       \
      return vm::b(x);                                                                             \
    else                                                                                           \
      return static_cast<T>(__builtin_##b(static_cast<double>(x)));                                \
  }
ONNXC_MATH1_VM(ex, exp)
ONNXC_MATH1_VM(lg, log)
ONNXC_MATH1_VM(th, tanh)
ONNXC_MATH1_VM(er, erf)
#undef ONNXC_MATH1_VM
ONNXC_MATH1(sq, sqrt)
ONNXC_MATH1(sn, sin)
ONNXC_MATH1(cs, cos)
ONNXC_MATH1(tn, tan)
ONNXC_MATH1(asn, asin)
ONNXC_MATH1(acs, acos)
ONNXC_MATH1(atn, atan)
ONNXC_MATH1(snh, sinh)
ONNXC_MATH1(csh, cosh)
ONNXC_MATH1(asnh, asinh)
ONNXC_MATH1(acsh, acosh)
ONNXC_MATH1(atnh, atanh)
ONNXC_MATH1(flr, floor)
ONNXC_MATH1(cel, ceil)
ONNXC_MATH1(rnd, rint) /* round half to even, as ONNX Round */
ONNXC_MATH1(log1, log1p)
#undef ONNXC_MATH1

/// Sigmoid 1 / (1 + e^-x).
template <typename T> inline T sgm(T x) {
  if constexpr (is_f32<T>)
    return vm::sigmoid(x);
  else
    return T(1) / (T(1) + ex(-x));
}

/* Wrapping integer + - *: an overflowing int32/int64 result wraps (as numpy's and ORT's do)
 * instead of being undefined behaviour (uint16 * uint16 overflows int after promotion, too). */
#define ONNXC_WRAPPING(fn, op, builtin)                                                            \
  template <typename T> inline T fn(T a, T b) {                                                    \
    if constexpr (is_float<T> || __is_same(T, bool))                                               \
      return T(a op b);                                                                            \
    else {                                                                                         \
      T r;                                                                                         \
      builtin(a, b, &r);                                                                           \
      return r;                                                                                    \
    }                                                                                              \
  }
ONNXC_WRAPPING(wadd, +, __builtin_add_overflow)
ONNXC_WRAPPING(wsub, -, __builtin_sub_overflow)
ONNXC_WRAPPING(wmul, *, __builtin_mul_overflow)
#undef ONNXC_WRAPPING

/* double to T without undefined behaviour (Cast's float-to-integer rule): for an integer T, NaN
 * gives 0, values are truncated toward zero and saturate at the int64/uint64 range, then wrap
 * to T (as numpy does on x86). */
template <typename T> inline T from_f64(double d) {
  if constexpr (is_float<T>)
    return static_cast<T>(d);
  else {
    if (d != d)
      return T(0);
    if (d >= 9223372036854775808.0) /* 2^63 */
      return d >= 18446744073709551616.0 ? T(~0ull) : T(static_cast<unsigned long long>(d));
    if (d < -9223372036854775808.0)
      return T(static_cast<long long>(1ull << 63));
    return T(static_cast<long long>(d));
  }
}

/* |x|; the most negative integer stays itself (wrapping, as numpy.abs). */
template <typename T> inline T ab(T x) { return x < T(0) ? wsub(T(0), x) : x; }
template <typename T> inline T sgn(T x) { return T((T(0) < x) - (x < T(0))); }
template <typename T> inline bool isnan_(T x) { return x != x; }
template <typename T> inline T mx(T a, T b) {
  if constexpr (is_float<T>)
    if (isnan_(a) || isnan_(b))
      return a + b; /* NaN propagates, as in numpy.maximum */
  return a > b ? a : b;
}
template <typename T> inline T mn(T a, T b) {
  if constexpr (is_float<T>)
    if (isnan_(a) || isnan_(b))
      return a + b;
  return a < b ? a : b;
}

/* Pow: floats via pow(); integers by repeated squaring (negative exponents give 0, or +-1). */
template <typename T> inline T pw(T a, T b) {
  if constexpr (is_f32<T>)
    return __builtin_powf(a, b);
  else if constexpr (is_float<T>)
    return __builtin_pow(a, b);
  else {
    if (b < T(0))
      return a == T(1) ? T(1) : (a == T(-1) ? ((b & 1) ? T(-1) : T(1)) : T(0));
    /* wrapping products (an overflowing power wraps, as the GPU's does), and no squaring after
     * the exponent's top bit (2^30 in int32 squared 65536 once too often: signed overflow) */
    T r = 1;
    for (;;) {
      if (b & 1)
        __builtin_mul_overflow(r, a, &r);
      b >>= 1;
      if (!b)
        return r;
      __builtin_mul_overflow(a, a, &a);
    }
  }
}

/* Division that never traps: integer x/0 gives 0 (ONNX leaves it undefined) and MIN/-1 wraps. */
template <typename T> inline T dv(T a, T b) {
  if constexpr (is_float<T>)
    return a / b;
  else {
    if (b == T(0))
      return T(0);
    if constexpr (T(-1) < T(0))
      if (b == T(-1)) { /* -a, wrapping: MIN / -1 is MIN (0 - MIN overflows int32 and int64) */
        T r;
        __builtin_sub_overflow(T(0), a, &r);
        return r;
      }
    return a / b;
  }
}

/* ONNX Mod: fmod=0 → sign of the divisor (Python %), fmod=1 → C fmod. */
template <typename T> inline T md(T a, T b, double fmod_flag) {
  if constexpr (is_float<T>) {
    T r = is_f32<T> ? __builtin_fmodf(a, b) : static_cast<T>(__builtin_fmod(a, b));
    if (fmod_flag == 0 && r != T(0) && ((r < T(0)) != (b < T(0))))
      r += b;
    return r;
  } else {
    if (b == T(0))
      return T(0);
    if constexpr (T(-1) < T(0))
      if (b == T(-1))
        return T(0);
    T r = a % b;
    if (fmod_flag == 0 && r != T(0) && ((r < T(0)) != (b < T(0))))
      r += b;
    return r;
  }
}

} // namespace onnxc_k

#endif
