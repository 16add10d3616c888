/* Cast between every numeric ONNX type: float, double, float16, bfloat16, int8..int64,
 * uint8..uint64, bool, float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz), float4e2m1 and the packed
 * (u)int4 / (u)int2. params: CastParams (cast_params.h); tensors {x, y}.
 * float16/bfloat16 are converted by bit manipulation (round to nearest even). Float to integer:
 * NaN gives 0, values are truncated toward zero and saturate at the int64/uint64 range, then
 * wrap to the narrower type (as numpy does on x86); (u)int4 / (u)int2 keep the low bits too.
 * Anything to bool is x != 0. Float8 / float4 codes are the quantisation kernels' own
 * (quant_common.h): values go through float, round to nearest even; out of range (and
 * infinities) give the largest finite value with `saturate` (always for float4e2m1), else
 * infinity (e5m2) or NaN; NaN to float4e2m1, which has none, gives -0 (code 0x8) as
 * ml_dtypes, the ONNX reference, does. float8e8m0 (a power of two) is the float's exponent
 * field, rounded per `round_mode` (quant_common.h). */
#include "templates/cpu/cast_params.h"
#include "templates/cpu/half.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/quant_common.h"
#include "templates/cpu/scalar_math.h"

namespace {
using onnxc_k::i64;
using u16 = unsigned short;

struct Half {
  u16 bits;
};
struct BFloat {
  u16 bits;
};

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
template <> struct Src<float> {
  static constexpr bool is_float = true;
  static double as_f(float v) { return v; }
};
template <> struct Src<double> {
  static constexpr bool is_float = true;
  static double as_f(double v) { return v; }
};
template <> struct Src<Half> {
  static constexpr bool is_float = true;
  static double as_f(Half v) { return half_to_float(v.bits); }
};
template <> struct Src<BFloat> {
  static constexpr bool is_float = true;
  static double as_f(BFloat v) { return bf16_to_float(v.bits); }
};

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
    return onnxc_k::from_f64<D>(d);
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
  X(1, float, __VA_ARGS__)                                                                         \
  X(2, unsigned char, __VA_ARGS__) X(3, signed char, __VA_ARGS__)                                  \
      X(4, unsigned short, __VA_ARGS__) X(5, short, __VA_ARGS__) X(6, int, __VA_ARGS__)            \
          X(7, long long, __VA_ARGS__) X(9, bool, __VA_ARGS__) X(10, Half, __VA_ARGS__)            \
              X(11, double, __VA_ARGS__) X(12, unsigned int, __VA_ARGS__)                          \
                  X(13, unsigned long long, __VA_ARGS__) X(16, BFloat, __VA_ARGS__)

#define ONNXC_CAST_TO(code, D, S)                                                                  \
  case code:                                                                                       \
    cast<S, D>(rt, x, y, count);                                                                   \
    return true;

template <typename S> bool cast_from(onnxc_rt *rt, i64 to, const void *x, void *y, i64 count) {
  switch (to) { ONNXC_CAST_TYPES(ONNXC_CAST_TO, S) }
  return false;
}

#define ONNXC_CAST_FROM(code, S, unused)                                                           \
  case code:                                                                                       \
    return cast_from<S>(rt, to, t[0], t[1], count);

/* The params are passed as scalars, not a struct: constants then propagate into the (internal,
 * single-caller) functions even where they are not inlined, and the unused cases fold away. */
bool dispatch(onnxc_rt *rt, void *const *t, i64 from, i64 to, i64 count) {
  switch (from) { ONNXC_CAST_TYPES(ONNXC_CAST_FROM, 0) }
  return false;
}

/* ---- float8, float4e2m1 and packed (u)int4 / (u)int2, element by element ---- */
using namespace onnxc_k::quant;

/// One source element: its value as a double and, for integer sources, exactly as an integer.
struct Num {
  double f;
  long long i;
  bool is_int;
};

template <typename S> Num num_of(S v) {
  if constexpr (Src<S>::is_float)
    return {Src<S>::as_f(v), 0, false};
  else if constexpr (Src<S>::is_unsigned)
    return {static_cast<double>(Src<S>::as_uint(v)), static_cast<long long>(v), true};
  else
    return {static_cast<double>(Src<S>::as_int(v)), static_cast<long long>(v), true};
}

bool is_small(i64 dt) {
  MiniFloat f;
  return packed_bits(dt) != 0 || minifloat_of(dt, f) || dt == kE8M0;
}

Num load_small(i64 dt, const void *p, i64 i) {
  MiniFloat f;
  if (dt == kE8M0)
    return {e8m0_decode(static_cast<const unsigned char *>(p)[i]), 0, false};
  if (minifloat_of(dt, f))
    return {minifloat_decode(f, load_packed_or_byte(p, i, packed_bits(dt))), 0, false};
  const long long v = load_int(dt, p, i);
  return {static_cast<double>(v), v, true};
}

void store_small(i64 dt, void *p, i64 i, const Num &v, bool saturate, i64 round) {
  MiniFloat f;
  const int bits = packed_bits(dt);
  unsigned code;
  if (dt == kE8M0) {
    code = e8m0_encode(static_cast<float>(v.f), round, saturate);
  } else if (minifloat_of(dt, f)) {
    const bool nan = v.f != v.f;
    code = dt == kF4E2M1 && nan ? 0x8u : minifloat_encode(f, static_cast<float>(v.f), saturate);
  } else {
    const long long w = v.is_int ? v.i : from_double<long long>(v.f);
    code = static_cast<unsigned>(w) & ((1u << bits) - 1);
  }
  if (bits)
    store_packed(p, i, bits, code);
  else
    static_cast<unsigned char *>(p)[i] = static_cast<unsigned char>(code);
}

#define ONNXC_CAST_LOAD(code, S, unused)                                                           \
  case code:                                                                                       \
    return num_of<S>(static_cast<const S *>(p)[i]);

Num load_any(i64 dt, const void *p, i64 i) {
  switch (dt) {
    ONNXC_CAST_TYPES(ONNXC_CAST_LOAD, 0)
  default:
    return load_small(dt, p, i);
  }
}

#define ONNXC_CAST_STORE(code, D, unused)                                                          \
  case code:                                                                                       \
    static_cast<D *>(p)[i] = v.is_int ? from_integer<D>(v.i) : from_double<D>(v.f);                \
    return;

void store_any(i64 dt, void *p, i64 i, const Num &v, bool saturate, i64 round) {
  switch (dt) {
    ONNXC_CAST_TYPES(ONNXC_CAST_STORE, 0)
  default:
    store_small(dt, p, i, v, saturate, round);
  }
}

/// Casts from or to a small type; packed outputs serially (their elements share bytes).
void cast_small(onnxc_rt *rt, void *const *t, i64 from, i64 to, i64 count, bool saturate,
                i64 round) {
  const void *x = t[0];
  void *y = t[1];
  auto body = [&](i64 b, i64 e) {
    for (i64 i = b; i < e; ++i)
      store_any(to, y, i, load_any(from, x, i), saturate, round);
  };
  if (packed_bits(to))
    body(0, count);
  else
    onnxc_k::parallel_for(rt, count, 16384, body);
}
} // namespace

extern "C" int32_t onnxc_k_cast(onnxc_rt *rt, void *const *t, const int64_t *params) {
  const auto p = onnxc_k::params_of<onnxc_k::CastParams>(params);
  if (is_small(p.from) || is_small(p.to)) {
    cast_small(rt, t, p.from, p.to, p.count, p.saturate != 0, p.round_mode);
    return 0;
  }
  if (!dispatch(rt, t, p.from, p.to, p.count))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "Cast: unsupported element types");
  return 0;
}
