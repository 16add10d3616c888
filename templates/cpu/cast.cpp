/* Cast between float, double, float16, bfloat16, int8..int64, uint8..uint64 and bool.
 * params {from dtype, to dtype, count} (ONNX TensorProto.DataType numbers); tensors {x, y}.
 * float16/bfloat16 are converted by bit manipulation (round to nearest even). Float to integer:
 * NaN gives 0, values are truncated toward zero and saturate at the int64/uint64 range, then
 * wrap to the narrower type (as numpy does on x86). Anything to bool is x != 0. */
#include "templates/cpu/half.h"
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;
using u16 = unsigned short;

struct Half { u16 bits; };
struct BFloat { u16 bits; };

using onnxc_k::half::bf16_to_float;
using onnxc_k::half::float_to_bf16;
using onnxc_k::half::float_to_half;
using onnxc_k::half::half_to_float;

/* Source values are read as double (float types) or as a 64-bit integer (integers, bool). */
template <typename S> struct Src {
  static constexpr bool is_float = false;
  static long long as_int(S v) { return static_cast<long long>(v); }
  static unsigned long long as_uint(S v) { return static_cast<unsigned long long>(v); }
  static constexpr bool is_unsigned = S(-1) > S(0);
};
template <> struct Src<float> { static constexpr bool is_float = true; static double as_f(float v) { return v; } };
template <> struct Src<double> { static constexpr bool is_float = true; static double as_f(double v) { return v; } };
template <> struct Src<Half> { static constexpr bool is_float = true; static double as_f(Half v) { return half_to_float(v.bits); } };
template <> struct Src<BFloat> { static constexpr bool is_float = true; static double as_f(BFloat v) { return bf16_to_float(v.bits); } };

template <typename D> D from_double(double d) {
  if constexpr (__is_same(D, float) || __is_same(D, double)) {
    return static_cast<D>(d);
  } else if constexpr (__is_same(D, Half)) {
    return Half{float_to_half(static_cast<float>(d))};
  } else if constexpr (__is_same(D, BFloat)) {
    return BFloat{float_to_bf16(static_cast<float>(d))};
  } else if constexpr (__is_same(D, bool)) {
    return d != 0;
  } else {
    if (d != d)
      return D(0);
    if (d >= 9223372036854775808.0) /* 2^63 */
      return d >= 18446744073709551616.0 ? D(~0ull) : D(static_cast<unsigned long long>(d));
    if (d < -9223372036854775808.0)
      return D(static_cast<long long>(1ull << 63));
    return D(static_cast<long long>(d));
  }
}

/* A 64-bit integer magnitude to float, rounded once. Above 2^53 the low 11 bits are folded into
 * a sticky bit first (round to odd), so the conversion to double is exact and only the
 * double -> float step rounds: a plain uitofp may be lowered through double with two roundings
 * (AArch64 vector code does), which is off by one ulp near ties, e.g. 2^60 + 2^36 + 1. */
inline float u64_to_float(unsigned long long m) {
  if (m >> 53)
    return static_cast<float>(static_cast<double>((m >> 11) | ((m & 0x7ffu) != 0)) * 2048.0);
  return static_cast<float>(static_cast<double>(m));
}

template <typename D, typename I> D from_integer(I v) {
  if constexpr (__is_same(D, float) && sizeof(I) == 8) {
    if (v < 0)
      return -u64_to_float(0 - static_cast<unsigned long long>(v));
    return u64_to_float(static_cast<unsigned long long>(v));
  } else if constexpr (__is_same(D, Half) || __is_same(D, BFloat))
    return from_double<D>(static_cast<double>(v));
  else if constexpr (__is_same(D, bool))
    return v != 0;
  else
    return static_cast<D>(v);
}

template <typename S, typename D> D convert(S s) {
  if constexpr (Src<S>::is_float)
    return from_double<D>(Src<S>::as_f(s));
  else if constexpr (Src<S>::is_unsigned)
    return from_integer<D>(Src<S>::as_uint(s));
  else
    return from_integer<D>(Src<S>::as_int(s));
}

template <typename S, typename D> void cast(onnxc_rt *rt, const void *x, void *y, i64 count) {
  const S *s = static_cast<const S *>(x);
  D *d = static_cast<D *>(y);
  auto body = [&](i64 b, i64 e) {
    for (i64 i = b; i < e; ++i)
      d[i] = convert<S, D>(s[i]);
  };
  onnxc_k::parallel_for(rt, count, 16384, body);
}

#define ONNXC_CAST_TYPES(X, ...)                                                                   \
  X(1, float, __VA_ARGS__) X(2, unsigned char, __VA_ARGS__) X(3, signed char, __VA_ARGS__)          \
  X(4, unsigned short, __VA_ARGS__) X(5, short, __VA_ARGS__) X(6, int, __VA_ARGS__)                 \
  X(7, long long, __VA_ARGS__) X(9, bool, __VA_ARGS__) X(10, Half, __VA_ARGS__)                     \
  X(11, double, __VA_ARGS__) X(12, unsigned int, __VA_ARGS__) X(13, unsigned long long, __VA_ARGS__) \
  X(16, BFloat, __VA_ARGS__)

#define ONNXC_CAST_TO(code, D, S)                                                                  \
  case code: cast<S, D>(rt, x, y, count); return true;

template <typename S> bool cast_from(onnxc_rt *rt, i64 to, const void *x, void *y, i64 count) {
  switch (to) { ONNXC_CAST_TYPES(ONNXC_CAST_TO, S) }
  return false;
}

#define ONNXC_CAST_FROM(code, S, unused)                                                           \
  case code: return cast_from<S>(rt, p[1], t[0], t[1], p[2]);

bool dispatch(onnxc_rt *rt, void *const *t, const i64 *p) {
  switch (p[0]) { ONNXC_CAST_TYPES(ONNXC_CAST_FROM, 0) }
  return false;
}
} // namespace

extern "C" int32_t onnxc_k_cast(onnxc_rt *rt, void *const *t, const int64_t *p) {
  if (!dispatch(rt, t, p))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "Cast: unsupported element types");
  return 0;
}
