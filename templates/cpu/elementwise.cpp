/* Element-wise kernels, generated from elementwise.def for every dtype of each op's type list.
 *
 * Unary   params: {n, a0 (f64 bits), a1 (f64 bits)}; tensors {x, y}.
 * Binary  params: {rank, out_dims[rank], a_strides[rank], b_strides[rank], a0 (f64 bits)}
 *         (stride 0 broadcasts); rank 0 means both inputs have the output's shape: params
 *         {0, n, a0}. tensors {a, b, y}.
 *
 * float unary ops with an explicit 16-lane form (VecForm below: the vec_math.h functions) run
 * it over the tensor; the others run their scalar expression, which LLVM vectorises where it can.
 */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {
namespace {

constexpr i64 kGrain = 16384;

/// The explicit vector form of unary op Op (a struct with eval<T>), if it has one.
template <typename Op> struct VecForm {
  static constexpr bool ok = false;
};

/// y = Op(x): the 16-lane form for float where VecForm<Op> has one, else the scalar expression.
template <typename T, typename Op, typename R = T>
int32_t unary(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  R *y = static_cast<R *>(t[1]);
  const double a0 = param_f64(p, 1), a1 = param_f64(p, 2);
  auto body = [&](i64 b, i64 e) {
    if constexpr (is_f32<T> && is_f32<R> && VecForm<Op>::ok) {
      map_f32(x + b, y + b, e - b, [](vf32 v) { return VecForm<Op>::f(v); });
    } else {
      for (i64 i = b; i < e; ++i)
        y[i] = Op::template eval<T>(x[i], a0, a1);
    }
  };
  parallel_for(rt, p[0], kGrain, body);
  return 0;
}

/// Elements of one chunk of the unit-stride loops below: read into locals before any is
/// written, so that the chunk vectorises even when the output is an input's buffer (in place,
/// which LLVM cannot rule out: a loop with a constant trip count was unrolled into scalar ops).
constexpr i64 kChunk = 16;

/// py[i] = f(pa[i], pb[i]) for i < n, `A` / `B` false: that operand is one element (*pa / *pb).
template <bool A, bool B, typename T, typename TB, typename R, typename F>
inline void binary_unit(const T *pa, const TB *pb, R *py, i64 n, double a0, F f) {
  i64 i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    T va[A ? kChunk : 1];
    TB vb[B ? kChunk : 1];
    R vy[kChunk];
    __builtin_memcpy(va, pa + (A ? i : 0), sizeof va);
    __builtin_memcpy(vb, pb + (B ? i : 0), sizeof vb);
    for (i64 j = 0; j < kChunk; ++j)
      vy[j] = f(va[A ? j : 0], vb[B ? j : 0], a0);
    __builtin_memcpy(py + i, vy, sizeof vy);
  }
  for (; i < n; ++i)
    py[i] = f(pa[A ? i : 0], pb[B ? i : 0], a0);
}

/// One output row: py[i] = f(pa[i * ia], pb[i * ib]). The common stride pairs (both unit, one
/// broadcast) get loops of their own, which vectorise whatever the node's constant strides are.
template <typename T, typename TB, typename R, typename F>
inline void binary_row(const T *pa, i64 ia, const TB *pb, i64 ib, R *py, i64 n, double a0, F f) {
  if (ia == 1 && ib == 1) {
    binary_unit<true, true>(pa, pb, py, n, a0, f);
  } else if (ia == 1 && ib == 0) {
    binary_unit<true, false>(pa, pb, py, n, a0, f);
  } else if (ia == 0 && ib == 1) {
    binary_unit<false, true>(pa, pb, py, n, a0, f);
  } else {
    for (i64 i = 0; i < n; ++i)
      py[i] = f(pa[i * ia], pb[i * ib], a0);
  }
}

/// The first of the trailing dims that one flat row covers ({rank, dims, a_strides,
/// b_strides} params): dim d - 1 joins the row while each input steps through it as through a
/// longer last dim (its stride is the next dim's times that dim's size), so a channel broadcast
/// over H x W gets rows of H * W, not of W. Constant in a node's specialised kernel.
inline i64 inner_dims_from(const i64 *p) {
  const i64 r = p[0], *pd = p + 1, *psa = p + 1 + r, *psb = p + 1 + 2 * r;
  i64 e = r - 1;
  while (e > 0 && psa[e - 1] == psa[e] * pd[e] && psb[e - 1] == psb[e] * pd[e])
    --e;
  return e;
}

/* Iterates the output in row-major order; the trailing dims that both inputs step through as one
   (inner_dims_from) run as a flat loop. */
template <typename T, typename R, typename F, typename TB = T>
int32_t binary(onnxc_rt *rt, void *const *t, const i64 *p, F f) {
  const T *a = static_cast<const T *>(t[0]);
  const TB *b = static_cast<const TB *>(t[1]);
  R *y = static_cast<R *>(t[2]);
  const i64 rank = p[0];
  const double a0 = param_f64(p, rank == 0 ? 2 : 1 + 3 * static_cast<int>(rank));
  if (rank == 0) {
    auto body = [&](i64 lo, i64 hi) {
      binary_unit<true, true>(a + lo, b + lo, y + lo, hi - lo, a0, f);
    };
    parallel_for(rt, p[1], kGrain, body);
    return 0;
  }
  const i64 *dims = p + 1;
  const i64 e0 = inner_dims_from(p);
  i64 inner = 1, outer = 1;
  for (i64 d = 0; d < rank; ++d)
    (d < e0 ? outer : inner) *= dims[d];
  // The shape is read again from the body's params argument, so that it folds also in the
  // node-specialised copy the thread pool runs (codegen/cpu/specialise_parallel.h).
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const i64 r = pp[0], e = inner_dims_from(pp);
    const i64 *pd = pp + 1, *psa = pp + 1 + r, *psb = pp + 1 + 2 * r;
    i64 n = 1;
    for (i64 d = e; d < r; ++d)
      n *= pd[d];
    const i64 pia = psa[r - 1], pib = psb[r - 1];
    const double c0 = param_f64(pp, 1 + 3 * static_cast<int>(r));
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, oa = 0, ob = 0;
      for (i64 d = e - 1; d >= 0; --d) {
        i64 c = rem % pd[d];
        rem /= pd[d];
        oa += c * psa[d];
        ob += c * psb[d];
      }
      binary_row(a + oa, pia, b + ob, pib, y + o * n, n, c0, f);
    }
  };
  i64 grain = inner >= kGrain ? 1 : kGrain / (inner ? inner : 1);
  parallel_for(rt, p, outer, grain, body);
  return 0;
}

} // namespace
} // namespace onnxc_k

using namespace onnxc_k;

/* Each op gets a scalar function template eval<T> (in a struct for unary ops, a namespace for the
 * others), then one kernel per type. */
#define ONNXC_UNARY_KERNEL(ct, sfx, id)                                                            \
  extern "C" int32_t onnxc_k_##id##_##sfx(onnxc_rt *rt, void *const *t, const i64 *p) {           \
    return unary<ct, unary_##id>(rt, t, p);                                                        \
  }
#define ONNXC_PREDICATE_KERNEL(ct, sfx, id)                                                        \
  extern "C" int32_t onnxc_k_##id##_##sfx(onnxc_rt *rt, void *const *t, const i64 *p) {           \
    return unary<ct, unary_##id, bool>(rt, t, p);                                                  \
  }
#define ONNXC_BINARY_KERNEL(ct, sfx, id)                                                           \
  extern "C" int32_t onnxc_k_##id##_##sfx(onnxc_rt *rt, void *const *t, const i64 *p) {           \
    return binary<ct, ct>(rt, t, p, [](ct a, ct b, double a0) {                                  \
      return binary_##id::eval<ct>(a, b, a0);                                                      \
    });                                        \
  }
#define ONNXC_COMPARE_KERNEL(ct, sfx, id)                                                          \
  extern "C" int32_t onnxc_k_##id##_##sfx(onnxc_rt *rt, void *const *t, const i64 *p) {           \
    return binary<ct, bool>(rt, t, p,                                                              \
                            [](ct a, ct b, double) { return compare_##id::eval<ct>(a, b); });                                     \
  }

#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
#pragma GCC diagnostic ignored "-Wpragmas"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#endif
#pragma GCC diagnostic ignored "-Wbool-compare"

/* First pass: the unary ops' scalar functions, so that VecForm can name them. */
#define ONNXC_UNARY(op, id, types, n0, d0, n1, d1, expr)                                           \
  struct unary_##id {                                                                              \
    template <typename T> static T eval(T x, double a0, double a1) {                              \
      (void)a0;                                                                                    \
      (void)a1;                                                                                    \
      return static_cast<T>(expr);                                                                 \
    }                                                                                              \
  };
#define ONNXC_PREDICATE(op, id, types, n0, d0, n1, d1, expr)                                       \
  struct unary_##id {                                                                              \
    template <typename T> static bool eval(T x, double a0, double a1) {                           \
      (void)a0;                                                                                    \
      (void)a1;                                                                                    \
      return expr;                                                                                 \
    }                                                                                              \
  };
#define ONNXC_BINARY(op, id, types, n0, d0, expr)
#define ONNXC_COMPARE(op, id, types, expr)
namespace onnxc_k {
namespace {
#include "templates/cpu/elementwise.def"

/* The explicit vector forms (the same functions as the scalar ones, so results are equal). */
#define ONNXC_VEC_FORM(id, fn)                                                                     \
  template <> struct VecForm<unary_##id> {                                                         \
    static constexpr bool ok = true;                                                               \
    static vf32 f(vf32 x) { return vm::fn(x); }                                                    \
  };
ONNXC_VEC_FORM(sigmoid, sigmoid)
ONNXC_VEC_FORM(tanh, tanh)
ONNXC_VEC_FORM(exp, exp)
ONNXC_VEC_FORM(log, log)
ONNXC_VEC_FORM(erf, erf)
#undef ONNXC_VEC_FORM
} // namespace
} // namespace onnxc_k

/* Second pass: the kernels. */
#define ONNXC_UNARY(op, id, types, n0, d0, n1, d1, expr) types(ONNXC_UNARY_KERNEL, id)
#define ONNXC_PREDICATE(op, id, types, n0, d0, n1, d1, expr) types(ONNXC_PREDICATE_KERNEL, id)
#define ONNXC_BINARY(op, id, types, n0, d0, expr)                                                  \
  namespace binary_##id {                                                                          \
  template <typename T> inline T eval(T a, T b, double a0) {                                       \
    (void)a0;                                                                                      \
    return static_cast<T>(expr);                                                                   \
  }                                                                                                \
  }                                                                                                \
  types(ONNXC_BINARY_KERNEL, id)
#define ONNXC_COMPARE(op, id, types, expr)                                                         \
  namespace compare_##id {                                                                         \
  template <typename T> inline bool eval(T a, T b) { return expr; }                                \
  }                                                                                                \
  types(ONNXC_COMPARE_KERNEL, id)
#include "templates/cpu/elementwise.def"

/* Pow with exponents of another type (opset 12+): computed in double, converted to the base's
 * type as the reference does (np.power(x, y).astype(x.dtype)). onnxc_k_pow_<x>_<y>. */
#define ONNXC_POW_MIXED_KERNEL(cb, sb, ce, se)                                                     \
  extern "C" int32_t onnxc_k_pow_##sb##_##se(onnxc_rt *rt, void *const *t, const i64 *p) {        \
    return binary<cb, cb, decltype(&pow_mixed<cb, ce>), ce>(rt, t, p, &pow_mixed<cb, ce>);        \
  }
#define ONNXC_POW_EXPONENTS(cb, sb, ...)                                                           \
  ONNXC_POW_MIXED_KERNEL(cb, sb, float, f32) ONNXC_POW_MIXED_KERNEL(cb, sb, double, f64)           \
  ONNXC_POW_MIXED_KERNEL(cb, sb, int, i32) ONNXC_POW_MIXED_KERNEL(cb, sb, long long, i64)          \
  ONNXC_POW_MIXED_KERNEL(cb, sb, unsigned, u32)                                                    \
  ONNXC_POW_MIXED_KERNEL(cb, sb, unsigned long long, u64)
namespace {
template <typename B, typename E> B pow_mixed(B a, E b, double) {
  return static_cast<B>(__builtin_pow(static_cast<double>(a), static_cast<double>(b)));
}
} // namespace
ONNXC_POW_EXPONENTS(float, f32)
ONNXC_POW_EXPONENTS(double, f64)
ONNXC_POW_EXPONENTS(int, i32)
ONNXC_POW_EXPONENTS(long long, i64)
