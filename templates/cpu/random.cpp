/* The random ops: RandomUniform(Like), RandomNormal(Like), Bernoulli, Multinomial
 * (compiler/ops/math/random.cpp). One entry, onnxc_k_random; RandomParams and the generator
 * (counter-based splitmix64 hash of key and element index) in templates/cpu/random_params.h.
 *
 * Tensors: uniform/normal {Y}; Bernoulli {P, Y}; Multinomial {X [batch, classes],
 * Y [batch, samples], scratch (batch x classes doubles)}.
 *
 * Uniform: the top 24 bits (53 for double) as U in [0, 1), low + (high - low) * U computed in
 * double, rounded to the output type and kept below high. Normal: Box-Muller on the pair of
 * counters (2j, 2j + 1); element 2j takes the cosine, 2j + 1 the sine. Bernoulli: 1 if U53 < p.
 * Multinomial: the cumulative exp(x - max) of each row, then per sample the first class whose
 * cumulative weight exceeds U53 times the row's total.
 *
 * Without a seed the key is a nonce drawn per call from a process-wide call counter, the
 * monotonic clock and the context's address, so every call (every run) draws new values. */
#include "templates/cpu/half.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/random_params.h"

extern "C" int clock_gettime(int clock_id, void *ts); /* libc; kernels include no libc header */

namespace onnxc_k {
namespace {

using u64 = uint64_t;
constexpr double k2pow53 = 1.0 / 9007199254740992.0; // 2^-53
constexpr double k2pow24 = 1.0 / 16777216.0;         // 2^-24

unsigned int g_calls = 0; // unseeded calls so far (a 32-bit atomic: lock-free on every target)

u64 call_nonce(onnxc_rt *rt) {
  const unsigned int call = __atomic_fetch_add(&g_calls, 1u, __ATOMIC_RELAXED);
  int64_t ts[2] = {0, 0}; // struct timespec is at most 16 bytes (2 x 32 bits on 32-bit ARM)
  clock_gettime(1 /* CLOCK_MONOTONIC */, ts);
  u64 h = random_mix(u64(ts[0]) ^ 0x243f6a8885a308d3ull);
  h = random_mix(h ^ u64(ts[1]));
  h = random_mix(h ^ u64(reinterpret_cast<__UINTPTR_TYPE__>(rt)));
  return random_mix(h + call);
}

u64 key_of(onnxc_rt *rt, const RandomParams &p) {
  return random_key(p.seeded ? u64(p.seed_bits) : call_nonce(rt), u64(p.node));
}

/// U in [0, 1) from 53 random bits.
inline double unit53(u64 bits) { return double(bits >> 11) * k2pow53; }

/* ---- element types ------------------------------------------------------------------------- */

/// The value of element i of a float input of ONNX dtype D.
template <int D> inline double get(const void *x, i64 i) {
  if constexpr (D == 1)
    return static_cast<const float *>(x)[i];
  else if constexpr (D == 11)
    return static_cast<const double *>(x)[i];
  else if constexpr (D == 10)
    return half::half_to_float(static_cast<const unsigned short *>(x)[i]);
  else
    return half::bf16_to_float(static_cast<const unsigned short *>(x)[i]);
}

template <typename T> inline void put_as(void *y, i64 i, double v) {
  static_cast<T *>(y)[i] = static_cast<T>(v);
}

/// Stores v (exact for 0 and 1; rounded for the float types) as element i of dtype D.
template <int D> inline void put(void *y, i64 i, double v) {
  if constexpr (D == 1)
    put_as<float>(y, i, v);
  else if constexpr (D == 11)
    put_as<double>(y, i, v);
  else if constexpr (D == 10)
    static_cast<unsigned short *>(y)[i] = half::float_to_half(float(v));
  else if constexpr (D == 16)
    static_cast<unsigned short *>(y)[i] = half::float_to_bf16(float(v));
  else if constexpr (D == 2 || D == 9)
    put_as<unsigned char>(y, i, v);
  else if constexpr (D == 3)
    put_as<signed char>(y, i, v);
  else if constexpr (D == 4)
    put_as<unsigned short>(y, i, v);
  else if constexpr (D == 5)
    put_as<short>(y, i, v);
  else if constexpr (D == 6)
    put_as<int>(y, i, v);
  else if constexpr (D == 7)
    put_as<long long>(y, i, v);
  else if constexpr (D == 12)
    put_as<unsigned int>(y, i, v);
  else
    put_as<unsigned long long>(y, i, v);
}

/// The next representable value below h, by its bit pattern (sign-magnitude, W bits).
template <typename U> inline U bits_below(U h, U sign) {
  if ((h & ~sign) == 0) // +-0: the smallest negative subnormal
    return U(sign | 1u);
  return (h & sign) ? U(h + 1u) : U(h - 1u);
}

/// Stores the uniform draw v of element i, rounded to dtype D but kept below `high`.
template <int D> inline void put_below(void *y, i64 i, double v, double high) {
  if constexpr (D == 1) {
    float f = float(v);
    if (!(f < float(high))) {
      const float h = float(high);
      unsigned int b;
      __builtin_memcpy(&b, &h, 4);
      b = bits_below<unsigned int>(b, 0x80000000u);
      __builtin_memcpy(&f, &b, 4);
    }
    static_cast<float *>(y)[i] = f;
  } else if constexpr (D == 11) {
    double d = v;
    if (!(d < high)) {
      u64 b;
      __builtin_memcpy(&b, &high, 8);
      b = bits_below<u64>(b, 0x8000000000000000ull);
      __builtin_memcpy(&d, &b, 8);
    }
    static_cast<double *>(y)[i] = d;
  } else {
    unsigned short (*to)(float) = D == 10 ? half::float_to_half : half::float_to_bf16;
    float (*from)(unsigned short) = D == 10 ? half::half_to_float : half::bf16_to_float;
    unsigned short h = to(float(v));
    if (!(double(from(h)) < high))
      h = bits_below<unsigned short>(to(float(high)), 0x8000u);
    static_cast<unsigned short *>(y)[i] = h;
  }
}

/* ---- the draws ------------------------------------------------------------------------------ */

template <int D> void uniform(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  void *y = t[0];
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const RandomParams q = params_of<RandomParams>(pp);
    for (i64 i = lo; i < hi; ++i) {
      const u64 bits = random_bits(key, u64(i));
      const double u = D == 11 ? unit53(bits) : double(bits >> 40) * k2pow24;
      put_below<D>(y, i, q.a + (q.b - q.a) * u, q.b);
    }
  };
  parallel_for(rt, params, params_of<RandomParams>(params).count, 4096, body);
}

template <int D> void normal(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  void *y = t[0];
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const RandomParams q = params_of<RandomParams>(pp);
    for (i64 i = lo; i < hi; ++i) {
      const u64 pair = u64(i) & ~u64(1);
      const double u1 = double((random_bits(key, pair) >> 11) + 1) * k2pow53; // (0, 1]
      const double angle = 6.283185307179586 * unit53(random_bits(key, pair + 1));
      const double r = __builtin_sqrt(-2.0 * __builtin_log(u1));
      const double z = r * ((i & 1) ? __builtin_sin(angle) : __builtin_cos(angle));
      put<D>(y, i, q.a + q.b * z);
    }
  };
  parallel_for(rt, params, params_of<RandomParams>(params).count, 1024, body);
}

template <int DI, int DO> void bernoulli(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  const void *x = t[0];
  void *y = t[1];
  auto body = [&](const i64 *, i64 lo, i64 hi) {
    for (i64 i = lo; i < hi; ++i)
      put<DO>(y, i, unit53(random_bits(key, u64(i))) < get<DI>(x, i) ? 1.0 : 0.0);
  };
  parallel_for(rt, params, params_of<RandomParams>(params).count, 4096, body);
}

template <int DI, int DO>
void multinomial(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  const void *x = t[0];
  void *y = t[1];
  double *cdf = static_cast<double *>(t[2]);
  auto rows = [&](const i64 *pp, i64 lo, i64 hi) {
    const RandomParams q = params_of<RandomParams>(pp);
    for (i64 r = lo; r < hi; ++r) {
      double m = get<DI>(x, r * q.classes);
      for (i64 k = 1; k < q.classes; ++k)
        m = get<DI>(x, r * q.classes + k) > m ? get<DI>(x, r * q.classes + k) : m;
      double sum = 0;
      for (i64 k = 0; k < q.classes; ++k)
        cdf[r * q.classes + k] = sum += __builtin_exp(get<DI>(x, r * q.classes + k) - m);
    }
  };
  const RandomParams p = params_of<RandomParams>(params);
  parallel_for(rt, params, p.count, 16, rows);
  auto draws = [&](const i64 *pp, i64 lo, i64 hi) {
    const RandomParams q = params_of<RandomParams>(pp);
    for (i64 i = lo; i < hi; ++i) {
      const double *c = cdf + (i / q.samples) * q.classes;
      const double target = unit53(random_bits(key, u64(i))) * c[q.classes - 1];
      i64 first = 0, last = q.classes - 1; // the first class with c[k] > target
      while (first < last) {
        const i64 mid = first + (last - first) / 2;
        if (c[mid] > target)
          last = mid;
        else
          first = mid + 1;
      }
      put<DO>(y, i, double(first));
    }
  };
  parallel_for(rt, params, p.count * p.samples, 1024, draws);
}

/* ---- dispatch ------------------------------------------------------------------------------- */

/// Runs the uniform or normal draw for output dtype D; direct calls, so that with constant
/// params only the node's instance remains.
template <int D> bool sample(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  if (params_of<RandomParams>(params).kind == kRandomUniform)
    uniform<D>(rt, t, params, key);
  else
    normal<D>(rt, t, params, key);
  return true;
}

/// The Bernoulli/Multinomial draw for input dtype DI and output dtype DO.
template <int DI, int DO> bool two(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  if (params_of<RandomParams>(params).kind == kRandomBernoulli)
    bernoulli<DI, DO>(rt, t, params, key);
  else
    multinomial<DI, DO>(rt, t, params, key);
  return true;
}

/// The Bernoulli/Multinomial draw for output dtype DO and the params' input dtype.
template <int DO> bool by_input(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  switch (params_of<RandomParams>(params).in_dtype) {
  case 1:
    return two<1, DO>(rt, t, params, key);
  case 11:
    return two<11, DO>(rt, t, params, key);
  case 10:
    return two<10, DO>(rt, t, params, key);
  case 16:
    return two<16, DO>(rt, t, params, key);
  default:
    return false;
  }
}

/// The uniform/normal draw for output dtype `out` among D...; false if it is none of them.
template <int... D>
bool sample_as(i64 out, onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  return ((out == D && sample<D>(rt, t, params, key)) || ...);
}

/// The Bernoulli/Multinomial draw for output dtype `out` among D...; false if none (or the input
/// dtype has no instance).
template <int... D> bool two_as(i64 out, onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  return ((out == D && by_input<D>(rt, t, params, key)) || ...);
}

/// False for a dtype combination the kernel has no instance for.
bool draw(onnxc_rt *rt, void *const *t, const i64 *params, u64 key) {
  const RandomParams p = params_of<RandomParams>(params);
  if (p.kind == kRandomUniform || p.kind == kRandomNormal)
    return sample_as<1, 11, 10, 16>(p.out_dtype, rt, t, params, key);
  return two_as<1, 11, 10, 16, 2, 3, 4, 5, 6, 7, 9, 12, 13>(p.out_dtype, rt, t, params, key);
}

} // namespace
} // namespace onnxc_k

extern "C" int32_t onnxc_k_random(onnxc_rt *rt, void *const *t, const int64_t *params) {
  using namespace onnxc_k;
  if (!draw(rt, t, params, key_of(rt, params_of<RandomParams>(params))))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "random: unsupported dtype");
  return 0;
}
