/* Activation epilogues fused into Conv and GEMM kernels (compiler/passes/fuse_activation.cpp).
 *
 * A fused node passes {kind, a (f64), b (f64)}; the kernel applies act(kind, a, b, y) to each
 * output element right where it stores the finished value, so the output is written once. The
 * expressions are exactly those of the stand-alone kernels (templates/cpu/elementwise.def,
 * where.cpp's Clip), so fusing does not change results.
 */
#ifndef ONNXC_ACTIVATION_H
#define ONNXC_ACTIVATION_H

#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {

/// Activation kinds; the numbers are part of the kernel parameters (compiler/ops/nn/nn_util.h).
enum ActKind : i64 {
  kActNone = 0,
  kActRelu = 1,
  kActClip = 2,      /* a = min, b = max (+-inf when absent) */
  kActLeakyRelu = 3, /* a = alpha */
  kActSigmoid = 4,
  kActHardSigmoid = 5, /* a = alpha, b = beta */
  kActHardSwish = 6,
  kActSilu = 7,     /* x * Sigmoid(x) */
  kActGelu = 8,     /* Gelu, exact (erf) */
  kActGeluTanh = 9, /* Gelu, tanh approximation */
};

/// 0.5 x (1 + erf(x / sqrt 2)) for a float or a vf32 (the Gelu kernel's and the epilogue's).
template <typename F> inline F gelu_erf(F v) {
  return 0.5f * v * (1.0f + vm::erf(v * 0.7071067811865476f));
}
/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) for a float or a vf32.
template <typename F> inline F gelu_tanh(F v) {
  return 0.5f * v * (1.0f + vm::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}

template <typename T> inline T act_relu(T x) { return x > T(0) ? x : T(0); }
template <typename T> inline T act_clip(T x, T lo, T hi) {
  if (x < lo)
    x = lo;
  if (x > hi)
    x = hi;
  return x;
}
template <typename T> inline T act_leaky(T x, T a) { return x >= T(0) ? x : a * x; }
template <typename T> inline T act_sigmoid(T x) { return sgm(x); }
template <typename T> inline T act_hard_sigmoid(T x, T a, T b) {
  return mx(T(0), mn(T(1), a * x + b));
}
template <typename T> inline T act_hard_swish(T x) {
  return x * mx(T(0), mn(T(1), x / T(6) + T(0.5)));
}
template <typename T> inline T act_gelu(T x) {
  if constexpr (is_f32<T>)
    return gelu_erf(x);
  else
    return T(0.5) * x * (T(1) + er(x * T(0.7071067811865476)));
}
template <typename T> inline T act_gelu_tanh(T x) {
  if constexpr (is_f32<T>)
    return gelu_tanh(x);
  else
    return T(0.5) * x * (T(1) + th(T(0.7978845608028654) * (x + T(0.044715) * x * x * x)));
}

/// Calls f(g) with g the scalar function of `kind` (identity for kActNone), so each caller
/// chooses once, outside its loops, and the loop body is g alone.
template <typename T, typename F> inline void visit_act(i64 kind, T a, T b, F &&f) {
  switch (kind) {
  case kActRelu:
    return f([](T x) { return act_relu(x); });
  case kActClip:
    return f([=](T x) { return act_clip(x, a, b); });
  case kActLeakyRelu:
    return f([=](T x) { return act_leaky(x, a); });
  case kActSigmoid:
    return f([](T x) { return act_sigmoid(x); });
  case kActHardSigmoid:
    return f([=](T x) { return act_hard_sigmoid(x, a, b); });
  case kActHardSwish:
    return f([](T x) { return act_hard_swish(x); });
  case kActSilu:
    return f([](T x) { return x * act_sigmoid(x); });
  case kActGelu:
    return f([](T x) { return act_gelu(x); });
  case kActGeluTanh:
    return f([](T x) { return act_gelu_tanh(x); });
  default:
    return f([](T x) { return x; });
  }
}

/// An activation with its parameters converted to T once.
template <typename T> struct Act {
  i64 kind = kActNone;
  T a = T(0), b = T(0);
  /// apply_act() on `rows` rows of n elements at stride s, rows rs apart, out of line and
  /// compiled for this kind only (act_rows_for; set by make_act and read_act, null for none).
  void (*rows)(const Act &, T *, i64 rows, i64 n, i64 rs, i64 s) = nullptr;

  /// One element (per-element paths; apply_act() is the vectorisable form for rows).
  T operator()(T x) const {
    T y = x;
    visit_act(kind, a, b, [&](auto g) { y = g(x); });
    return y;
  }
};

/// y[j * s] = f(y[j * s]) for j < n; the unit-stride loop vectorises.
template <typename T, typename F> inline void map_strided(T *y, i64 n, i64 s, F f) {
  if (s == 1) {
    for (i64 j = 0; j < n; ++j)
      y[j] = f(y[j]);
  } else {
    for (i64 j = 0; j < n; ++j)
      y[j * s] = f(y[j * s]);
  }
}

/// Whether act_vec_cheap() handles `kind`: a few compares and selects (Relu, Clip, LeakyRelu),
/// cheap to inline into every micro-kernel variant.
inline bool act_is_cheap(i64 kind) {
  return kind == kActRelu || kind == kActClip || kind == kActLeakyRelu;
}

/// Relu, Clip and LeakyRelu (the act_is_cheap() kinds) on each lane of v, a 64-byte vector of T
/// in registers, with the values of act(); v unchanged for any other kind.
template <typename T, typename V> inline V act_vec_cheap(const Act<T> &act, V v) {
  if constexpr (is_f32<T>) {
    switch (act.kind) {
    case kActRelu:
      return vm::sel(v > vm::cst<V>(0.0f), v, vm::cst<V>(0.0f));
    case kActClip:
      v = vm::sel(v < vm::cst<V>(act.a), vm::cst<V>(act.a), v);
      return vm::sel(v > vm::cst<V>(act.b), vm::cst<V>(act.b), v);
    case kActLeakyRelu:
      return vm::sel(v >= vm::cst<V>(0.0f), v, act.a * v);
    default:
      return v;
    }
  } else {
    for (int l = 0; l < int(sizeof(V) / sizeof(T)); ++l) {
      const T x = v[l];
      v[l] = act.kind == kActRelu        ? act_relu(x)
             : act.kind == kActClip      ? act_clip(x, act.a, act.b)
             : act.kind == kActLeakyRelu ? act_leaky(x, act.a)
                                         : x;
    }
    return v;
  }
}

/// Applies act to n elements at stride s. The switch is outside the loops (kernels such as
/// gemm::tile are shared by every node, so the kind is not a compile-time constant there).
template <typename T> inline void apply_act(const Act<T> &act, T *y, i64 n, i64 s) {
  if (act.kind == kActNone)
    return;
  if constexpr (is_f32<T>) { /* 16 lanes of vec_math.h's sigmoid: the same values as act() */
    /* Relu, Clip, LeakyRelu as 64-byte vectors: left to the loop vectoriser, which runs on the
       kernel bitcode before the target is known, they ran 4 lanes at a time (10% of a
       384-channel 14x14 depthwise conv with Clip, applied to its channel vectors) */
    if (s == 1 && act_is_cheap(act.kind))
      return map_f32(y, y, n, [&](vf32 v) { return act_vec_cheap(act, v); });
    if (s == 1 && act.kind == kActSigmoid)
      return map_f32(y, y, n, [](vf32 v) { return vm::sigmoid(v); });
    if (s == 1 && act.kind == kActSilu)
      return map_f32(y, y, n, [](vf32 v) { return v * vm::sigmoid(v); });
    if (s == 1 && act.kind == kActGelu)
      return map_f32(y, y, n, [](vf32 v) { return gelu_erf(v); });
    if (s == 1 && act.kind == kActGeluTanh)
      return map_f32(y, y, n, [](vf32 v) { return gelu_tanh(v); });
  }
  visit_act(act.kind, act.a, act.b, [&](auto g) { map_strided(y, n, s, g); });
}

/// Act::rows for one kind: apply_act() with the kind a constant, out of line. Code that knows
/// its node's activation (every kernel, once its params are constants) references only its
/// kind's copy: the generic apply_act() holds every transcendental activation (17 KB of code
/// on AVX2), which the shared GEMM micro-kernels, reached with a run-time Act, used to pull
/// into every model.
template <typename T, i64 Kind>
__attribute__((noinline)) void act_rows_of(const Act<T> &act, T *y, i64 rows, i64 n, i64 rs,
                                           i64 s) {
  Act<T> k = act;
  k.kind = Kind;
  for (i64 i = 0; i < rows; ++i) {
#if defined(__clang__) /* inlined, so that only Kind's branch is compiled */
    [[clang::always_inline]] apply_act(k, y + i * rs, n, s);
#else
    apply_act(k, y + i * rs, n, s);
#endif
  }
}

/// Act::rows by kind (kActNone's null): a constant table, so that where the kind is a constant
/// the lookup folds to one function, with no code at the lookup.
template <typename T>
inline constexpr decltype(Act<T>::rows) kActRows[] = {nullptr,
                                                      act_rows_of<T, kActRelu>,
                                                      act_rows_of<T, kActClip>,
                                                      act_rows_of<T, kActLeakyRelu>,
                                                      act_rows_of<T, kActSigmoid>,
                                                      act_rows_of<T, kActHardSigmoid>,
                                                      act_rows_of<T, kActHardSwish>,
                                                      act_rows_of<T, kActSilu>,
                                                      act_rows_of<T, kActGelu>,
                                                      act_rows_of<T, kActGeluTanh>};

/// The Act::rows of `kind`.
template <typename T> inline auto act_rows_for(i64 kind) -> decltype(Act<T>::rows) {
  return kind > kActNone && kind <= kActGeluTanh ? kActRows<T>[kind] : nullptr;
}

/// apply_act() out of line (Act::rows): the GEMM micro-kernel variants (nn_gemm.h) share one
/// copy of the transcendental activations instead of each inlining them (code size: the edge
/// budget).
template <typename T> inline void apply_act_row(const Act<T> &act, T *y, i64 n, i64 s) {
  if (act.rows)
    act.rows(act, y, 1, n, 0, s);
}

/// apply_act() on `rows` rows of n contiguous elements, `rs` apart, out of line: one call for a
/// micro-tile's rows, so that the transcendental activations run many vectors per call.
template <typename T> inline void apply_act_rows(const Act<T> &act, T *y, i64 rows, i64 n, i64 rs) {
  if (act.rows)
    act.rows(act, y, rows, n, rs, 1);
}

/// The activation of typed params, converted to T.
template <typename T> inline Act<T> make_act(const ActParams &p) {
  Act<T> act;
  act.kind = p.kind;
  act.a = T(p.a);
  act.b = T(p.b);
  act.rows = act_rows_for<T>(act.kind);
  return act;
}

/// Reads {kind, a, b} at params p[i], p[i+1], p[i+2] (kernels with hand-laid params).
template <typename T> inline Act<T> read_act(const i64 *p, int i) {
  Act<T> act;
  act.kind = p[i];
  act.a = T(param_f64(p, i + 1));
  act.b = T(param_f64(p, i + 2));
  act.rows = act_rows_for<T>(act.kind);
  return act;
}

} // namespace onnxc_k

#endif
