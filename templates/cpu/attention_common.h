/* Helpers shared by the attention-family kernels (attention.cpp, linear_attention.cpp,
 * rotary.cpp, causal_conv_state.cpp, swiglu.cpp): float16 storage computed in float, and a
 * vectorisable dot product. */
#ifndef ONNXC_ATTENTION_COMMON_H
#define ONNXC_ATTENTION_COMMON_H

#include "templates/cpu/half.h"
#include "templates/cpu/kernel_abi.h"

namespace onnxc_k {

/// A float16 element (IEEE binary16 bits).
struct F16 {
  unsigned short bits;
};

/// Storage type S, accumulator type A, and the conversions between them.
template <typename S> struct Elem {
  using A = S;
  static A load(S v) { return v; }
  static S store(A v) { return v; }
};
template <> struct Elem<F16> {
  using A = float;
  static A load(F16 v) { return half::half_to_float(v.bits); }
  static F16 store(A v) { return F16{half::float_to_half(v)}; }
};

/// a . b in the accumulator type, with 8 independent partial sums (vectorisable).
template <typename S> typename Elem<S>::A dot(const S *a, const S *b, i64 n) {
  using A = typename Elem<S>::A;
  A part[8] = {};
  i64 d = 0;
  for (; d + 8 <= n; d += 8)
    for (int l = 0; l < 8; ++l)
      part[l] += Elem<S>::load(a[d + l]) * Elem<S>::load(b[d + l]);
  for (; d < n; ++d)
    part[0] += Elem<S>::load(a[d]) * Elem<S>::load(b[d]);
  return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

} // namespace onnxc_k

/// Defines extern "C" onnxc_k_<name>_{f32,f64,f16} calling onnxc_k::<fn><S>(rt, t, p).
#define ONNXC_ATTN_KERNELS(name, fn)                                                               \
  extern "C" int32_t onnxc_k_##name##_f32(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return onnxc_k::fn<float>(rt, t, p);                                                           \
  }                                                                                                \
  extern "C" int32_t onnxc_k_##name##_f64(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return onnxc_k::fn<double>(rt, t, p);                                                          \
  }                                                                                                \
  extern "C" int32_t onnxc_k_##name##_f16(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return onnxc_k::fn<onnxc_k::F16>(rt, t, p);                                                    \
  }

#endif
