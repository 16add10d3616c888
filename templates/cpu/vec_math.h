/* Branch-free float32 exp, log, tanh, erf and sigmoid, for one float or a 16-lane vector.
 *
 * Each function is written once as a template over a lane type: `float` (with `int32_t` for the
 * bit manipulation) or `vf32`, 16 floats in the generic vector extension (`vi32` / `vu32`).
 * Comparisons give a bool or a lane mask, `sel` picks lanes, so the scalar and the vector form
 * run the same operations and give the same result for every element. The vector form is what
 * the kernels' hot loops use (map_f32): like nn_gemm.h, the vectors are explicit because the
 * kernel bitcode is optimised before the target's vector width is known; LLVM legalises 64-byte
 * vectors to zmm (AVX-512), ymm (AVX2), xmm or NEON registers when a model is compiled.
 *
 * Method: range reduction, then a polynomial fitted (near-minimax, scripts/fit_vec_math.py) on
 * the reduced range; the special values (+-inf, NaN, overflow, underflow to denormals and zero,
 * denormal inputs of log) are handled by selects, not branches. Error against the exact value
 * (tests/unit/test_vec_math.cpp, over a sweep of all floats; measured without FMA): exp 1.02
 * ulp, log 0.82, tanh 1.3, sigmoid 2.26, erf 2.67 (the test's bounds: 1.5, 1.5, 2, 3, 3). No libm
 * call, so the same code runs on every target; `a * b + c` may be contracted to an FMA where
 * the target has one. Where denormals are flushed (32-bit ARM NEON), tiny results are 0.
 */
#ifndef ONNXC_VEC_MATH_H
#define ONNXC_VEC_MATH_H

#include <stdint.h>

/* g++ (the native build) warns that 64-byte vector arguments change the ABI without AVX-512;
 * these functions are inline and never cross a library boundary. Applies to the includer too,
 * where the templates are instantiated. */
#pragma GCC diagnostic ignored "-Wpsabi"

namespace onnxc_k {

typedef float vf32 __attribute__((vector_size(64)));    ///< 16 floats
typedef int32_t vi32 __attribute__((vector_size(64)));  ///< 16 int32 (lane masks, exponents)
typedef uint32_t vu32 __attribute__((vector_size(64))); ///< 16 uint32 (bit patterns)
constexpr int64_t kVecF32 = 16;                         ///< lanes of vf32

namespace vm {

/// The integer types that go with a float lane type.
template <typename F> struct Lanes;
template <> struct Lanes<float> {
  typedef int32_t I;
  typedef uint32_t U;
  static float to_f(int32_t i) { return static_cast<float>(i); }
};
template <> struct Lanes<vf32> {
  typedef vi32 I;
  typedef vu32 U;
  static vf32 to_f(vi32 i) { return __builtin_convertvector(i, vf32); }
};

inline float sel(bool m, float a, float b) { return m ? a : b; }
inline vf32 sel(vi32 m, vf32 a, vf32 b) { return m ? a : b; }
inline int32_t sel(bool m, int32_t a, int32_t b) { return m ? a : b; }
inline vi32 sel(vi32 m, vi32 a, vi32 b) { return m ? a : b; }

/// c in every lane.
template <typename V, typename S> inline V cst(S c) { return V{} + c; }
template <typename F> inline typename Lanes<F>::U bits(F x) {
  return __builtin_bit_cast(typename Lanes<F>::U, x);
}
template <typename F> inline F from_bits(typename Lanes<F>::U u) {
  return __builtin_bit_cast(F, u);
}
/// |x| (clears the sign bit; NaN stays NaN).
template <typename F> inline F fabs_(F x) { return from_bits<F>(bits(x) & 0x7fffffffu); }
/// |y| with the sign of x.
template <typename F> inline F copysign_(F y, F x) {
  return from_bits<F>((bits(y) & 0x7fffffffu) | (bits(x) & 0x80000000u));
}

/// e^x's reduction and polynomial: x = n ln2 + r, |r| <= ln2/2, y = e^r = 1 + r + r^2 p(r)
/// (p of degree 4: 7.5e-9 relative error on the range, a twentieth of an ulp; the degree-5 p
/// before cost one more FMA per vector for nothing the float result could show), and t, whose
/// low bits hold n (bits(t) - 0x4b400000). x must be clamped to [-104, 89].
template <typename F> struct ExpCore {
  F y, t;
};
template <typename F> inline ExpCore<F> exp_core(F x) {
  const F t = x * 1.44269504088896341f + 12582912.0f; /* 1.5 * 2^23: rounds to an integer */
  const F n = t - 12582912.0f;
  F r = x - n * 0.693145751953125f; /* ln2 high part: n * hi is exact */
  r = r - n * 1.42860682030941723212e-6f;
  F p = cst<F>(1.39410976e-3f);
  p = p * r + 8.36317526e-3f;
  p = p * r + 4.16663754e-2f;
  p = p * r + 1.66665770e-1f;
  p = p * r + 5.00000003e-1f;
  return {(p * (r * r) + r) + 1.0f, t};
}

/// y 2^k for y = exp_core()'s e^r (in [0.7, 1.42]) and -86 <= k <= 64 (exp's first factor:
/// -75..64; exp_nonpos's: -86..64), as an integer add to y's exponent field: exact (both
/// normal), so the same value as y times the float 2^k, without the multiplication (one
/// FMA-port operation fewer per vector: exp_nonpos 13 -> 12 cycles per 16 floats on Zen 4).
/// `kb` is (k << 23) as unsigned lanes. A NaN input x of the exponential gives x (the add
/// alone would change a NaN's exponent field and make it finite).
template <typename F> inline F scale_exact(F y, typename Lanes<F>::U kb, F x) {
  return sel(x != x, x, from_bits<F>(bits(y) + kb));
}

/// e^x: exp_core()'s e^r times 2^n, applied as two factors so that results down to the
/// smallest denormal round once.
template <typename F> inline F exp(F x) {
  typedef typename Lanes<F>::I I;
  typedef typename Lanes<F>::U U;
  x = sel(x > 89.0f, cst<F>(89.0f), x);     /* e^89 overflows to inf, e^-104 underflows to 0; */
  x = sel(x < -104.0f, cst<F>(-104.0f), x); /* NaN passes both */
  const ExpCore<F> c = exp_core(x);
  const I ni = __builtin_bit_cast(I, bits(c.t) - 0x4b400000u);
  const I h = ni >> 1; /* -75 <= h <= 64: the first factor is exact (scale_exact) */
  const F s2 = from_bits<F>(__builtin_bit_cast(U, ni - h + 127) << 23);
  return scale_exact(c.y, __builtin_bit_cast(U, h) << 23, x) * s2;
}

/// Natural logarithm. x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f),
/// log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))) with R the series of 2 atanh(s) - 2s.
template <typename F> inline F log(F x) {
  typedef typename Lanes<F>::I I;
  typedef typename Lanes<F>::U U;
  const auto tiny = x < 1.17549435e-38f; /* denormal (or <= 0): scale by 2^23 first */
  const F xs = sel(tiny, x * 8388608.0f, x);
  const I e0 = sel(tiny, cst<I>(-23), cst<I>(0));
  /* Unsigned arithmetic: negative x (answered NaN below) must not overflow a signed int. */
  const U ux = bits(xs);
  const I k = __builtin_bit_cast(I, ux - 0x3f3504f3u) >> 23; /* m in [sqrt(1/2), sqrt(2)) */
  const F m = from_bits<F>(ux - (__builtin_bit_cast(U, k) << 23));
  const F f = m - 1.0f;
  const F s = f / (f + 2.0f), z = s * s;
  F R = cst<F>(0.181818182f); /* 2/11 */
  R = R * z + 0.222222222f;
  R = R * z + 0.285714286f;
  R = R * z + 0.4f;
  R = R * z + 0.666666667f;
  R = R * z;
  const F hf = 0.5f * f * f;
  const F e = Lanes<F>::to_f(k + e0);
  F y = (f - (hf - (s * (hf + R) + e * 1.42860682030941723212e-6f))) + e * 0.693145751953125f;
  y = sel(x == 0.0f, cst<F>(-__builtin_inff()), y);
  y = sel(x < 0.0f, cst<F>(__builtin_nanf("")), y);
  return sel(x == __builtin_inff(), x, sel(x != x, x, y));
}

/// e^x for x <= 0 (or NaN) with fewer operations than exp(): no overflow clamp, and 2^n as
/// one factor, 2^(n+64) (normal for every n >= -150 the clamp leaves; applied by
/// scale_exact), times 2^-64, so that results down to the smallest denormal still round once.
/// sigmoid()'s exponential (SiLU's: efficientnet spends a quarter of its time there).
template <typename F> inline F exp_nonpos(F x) {
  x = sel(x < -104.0f, cst<F>(-104.0f), x); /* e^-104 underflows to 0; NaN passes */
  const ExpCore<F> c = exp_core(x);
  /* bits(t) - 0x4b400000 is n >= -150; y 2^(n+64) is exact and normal */
  return scale_exact(c.y, (bits(c.t) - (0x4b400000u - 64u)) << 23, x) *
         5.42101086242752217e-20f; /* 2^-64 */
}

/// 1 / (1 + e^-x), from e = e^-|x| (no overflow, no cancellation for either sign).
template <typename F> inline F sigmoid(F x) {
  const F e = exp_nonpos(-fabs_(x));
  return sel(x >= 0.0f, cst<F>(1.0f), e) / (1.0f + e);
}

/// tanh: x + x^3 q(x^2) for |x| < 0.625, else 1 - 2 / (e^2|x| + 1) with the sign of x.
template <typename F> inline F tanh(F x) {
  F a = fabs_(x);
  const F z = a * a;
  F q = cst<F>(2.14294950e-3f);
  q = q * z - 8.17738363e-3f;
  q = q * z + 2.17006967e-2f;
  q = q * z - 5.39467617e-2f;
  q = q * z + 1.33332060e-1f;
  q = q * z - 3.33333308e-1f;
  const F small = a + a * z * q;
  const F ac = sel(a > 9.5f, cst<F>(9.5f), a); /* tanh(9.5) rounds to 1 */
  const F big = 1.0f - 2.0f / (exp(ac + ac) + 1.0f);
  return copysign_(sel(a < 0.625f, small, big), x); /* -0 stays -0 */
}

/// erf: x P(x^2) for |x| < 1, else 1 - e^(-x^2) R(1/|x|) with the sign of x (R fitted on
/// [1, 4]; from 4 on the result rounds to +-1).
template <typename F> inline F erf(F x) {
  const F z = x * x;
  F p = cst<F>(-9.64150530e-6f);
  p = p * z + 1.12569441e-4f;
  p = p * z - 8.48282832e-4f;
  p = p * z + 5.22094540e-3f;
  p = p * z - 2.68654000e-2f;
  p = p * z + 1.12837820e-1f;
  p = p * z - 3.76126384e-1f;
  p = p * z + 1.12837917f;
  const F small = x * p;
  F a = fabs_(x);
  a = sel(a > 4.0f, cst<F>(4.0f), a);
  a = sel(a < 1.0f, cst<F>(1.0f), a); /* NaN passes: the result is NaN */
  const F u = 1.0f / a;
  F R = cst<F>(3.07160488e-2f);
  R = R * u - 1.79724246e-1f;
  R = R * u + 4.38267616e-1f;
  R = R * u - 5.36985963e-1f;
  R = R * u + 2.38365763e-1f;
  R = R * u + 2.30377467e-1f;
  R = R * u - 3.75856730e-1f;
  R = R * u + 2.05344118e-2f;
  R = R * u + 5.61768146e-1f;
  R = R * u + 1.21068228e-4f;
  const F big = 1.0f - exp(-(a * a)) * R;
  return sel(fabs_(x) < 1.0f, small, copysign_(big, x));
}

} // namespace vm

/// Loads 16 floats from p (any alignment).
inline vf32 load_f32(const float *p) {
  vf32 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
/// Stores 16 floats to p (any alignment).
inline void store_f32(float *p, const vf32 &v) { __builtin_memcpy(p, &v, sizeof v); }
/// Half a vf32: 8 floats (the 8 x 8 blocks conv.cpp's transpose8 works on).
typedef float vf32h __attribute__((vector_size(32)));
/// Loads 8 floats from p (any alignment).
inline vf32h load_f32h(const float *p) {
  vf32h v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
/// Stores 8 floats to p (any alignment).
inline void store_f32h(float *p, const vf32h &v) { __builtin_memcpy(p, &v, sizeof v); }
/// p[0], p[2], ..., p[30] (a stride-2 load: the even lanes of two vectors; reads p[0..32)).
inline vf32 load_even_f32(const float *p) {
  const vf32 a = load_f32(p), b = load_f32(p + kVecF32);
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

/// y[i] = f(x[i]) for i < n (x may equal y). f takes and returns a vf32; the last partial
/// vector is computed padded with zeros, so every element goes through the same code.
template <typename Fn> inline void map_f32(const float *x, float *y, int64_t n, Fn f) {
  int64_t i = 0;
  for (; i + kVecF32 <= n; i += kVecF32)
    store_f32(y + i, f(load_f32(x + i)));
  if (i < n) {
    vf32 v = {};
    for (int64_t j = 0; i + j < n; ++j)
      v[j] = x[i + j];
    v = f(v);
    for (int64_t j = 0; i + j < n; ++j)
      y[i + j] = v[j];
  }
}

} // namespace onnxc_k

#endif
