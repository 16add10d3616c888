/* Reductions (ReduceSum/Mean/Max/Min/Prod/L1/L2/SumSquare/LogSum/LogSumExp) and ArgMax/ArgMin.
 *
 * Reduce params {op, nk, kept_dims[nk], kept_strides[nk], nr, red_dims[nr], red_strides[nr]};
 *   tensors {x, y}. Output element o (row-major over kept_dims) reduces the input elements
 *   at sum(kept coords * kept_strides) + sum(reduced coords * red_strides). op is a ReduceOp.
 *   Floats accumulate in double; integers wrap like numpy; an integer mean truncates.
 *   Empty reductions give 0 (sum, L1, L2, sum of squares), 1 (prod), NaN (mean),
 *   -inf / lowest (max, log-sum, log-sum-exp), +inf / highest (min).
 *   bool inputs support max and min only.
 * Arg params {is_min, select_last, outer, len, inner}; tensors {x, y (int64)}. NaN wins (numpy). */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/reduce_params.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"

namespace {
using onnxc_k::i64;
using onnxc_k::is_float;

enum ReduceOp { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

template <typename T> constexpr T lowest() {
  if constexpr (is_float<T>)
    return -__builtin_inf();
  else if constexpr (T(-1) < T(0))
    return static_cast<T>(1ull << (sizeof(T) * 8 - 1));
  else
    return T(0);
}
template <typename T> constexpr T highest() {
  if constexpr (is_float<T>)
    return __builtin_inf();
  else if constexpr (__is_same(T, bool))
    return true;
  else
    return static_cast<T>(~lowest<T>());
}

/* Accumulator: double for floats, 64-bit two's complement (wrapping) for integers. */
template <typename T, bool F = is_float<T>> struct AccOf { using type = double; };
template <typename T> struct AccOf<T, false> { using type = unsigned long long; };
template <typename T> using Acc = typename AccOf<T>::type;

template <typename T> struct Reducer {
  i64 op, nr;
  const i64 *rd, *rs;
  i64 outer_count; /* product of all reduced dims but the last */

  /* Calls f(value) for every reduced element starting at base. */
  template <typename F> void each(const T *x, i64 base, F &&f) const {
    if (nr == 0) {
      f(x[base]);
      return;
    }
    const i64 inner = rd[nr - 1], is = rs[nr - 1];
    for (i64 r = 0; r < outer_count; ++r) {
      i64 rem = r, off = base;
      for (i64 d = nr - 2; d >= 0; --d) {
        off += (rem % rd[d]) * rs[d];
        rem /= rd[d];
      }
      for (i64 i = 0; i < inner; ++i)
        f(x[off + i * is]);
    }
  }

  T reduce(const T *x, i64 base, i64 count) const {
    if (op == kMax || op == kMin || op == kLogSumExp) {
      T m = op == kMin ? highest<T>() : lowest<T>();
      each(x, base, [&](T v) { m = op == kMin ? onnxc_k::mn(m, v) : onnxc_k::mx(m, v); });
      if (op != kLogSumExp)
        return m;
      if constexpr (is_float<T>) {
        if (m == lowest<T>() || m != m)
          return m;
        double s = 0;
        each(x, base, [&](T v) { s += __builtin_exp(double(v) - double(m)); });
        return T(double(m) + __builtin_log(s));
      }
      return m;
    }
    Acc<T> a = op == kProd ? Acc<T>(1) : Acc<T>(0);
    each(x, base, [&](T v) {
      Acc<T> w = static_cast<Acc<T>>(v);
      switch (op) {
      case kProd:
        a *= w;
        break;
      case kL1:
        a += static_cast<Acc<T>>(onnxc_k::ab(v));
        break;
      case kL2:
      case kSumSquare:
        a += w * w;
        break;
      default:
        a += w;
      }
    });
    if constexpr (is_float<T>) {
      if (op == kMean)
        return T(a / double(count));
      if (op == kL2)
        return T(__builtin_sqrt(a));
      if (op == kLogSum)
        return T(__builtin_log(a));
      return T(a);
    } else {
      if (op == kMean) {
        if (count == 0)
          return T(0);
        if constexpr (T(-1) < T(0))
          return T(static_cast<long long>(a) / count);
        else
          return T(a / static_cast<unsigned long long>(count));
      }
      if (op == kL2)
        return onnxc_k::from_f64<T>(__builtin_sqrt(double(a)));
      if (op == kLogSum) // log 0 is -inf: saturates
        return onnxc_k::from_f64<T>(__builtin_log(double(a)));
      return T(a);
    }
  }
};

template <typename T> int32_t reduce(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  const i64 op = p[0], nk = p[1];
  const i64 *kd = p + 2, *ks = p + 2 + nk;
  Reducer<T> r{op, p[2 + 2 * nk], p + 3 + 2 * nk, p + 3 + 2 * nk + p[2 + 2 * nk], 1};
  i64 out = 1, count = 1;
  for (i64 d = 0; d < nk; ++d)
    out *= kd[d];
  for (i64 d = 0; d < r.nr; ++d)
    count *= r.rd[d];
  for (i64 d = 0; d + 1 < r.nr; ++d)
    r.outer_count *= r.rd[d];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, base = 0;
      for (i64 d = nk - 1; d >= 0; --d) {
        base += (rem % kd[d]) * ks[d];
        rem /= kd[d];
      }
      y[o] = r.reduce(x, base, count);
    }
  };
  i64 grain = count >= 4096 ? 1 : 4096 / (count ? count : 1);
  onnxc_k::parallel_for(rt, out, grain, body);
  return 0;
}

template <typename T> int32_t arg(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  int64_t *y = static_cast<int64_t *>(t[1]);
  const bool is_min = p[0], last = p[1];
  const i64 outer = p[2], len = p[3], inner = p[4];
  if (len <= 0)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "ArgMax/ArgMin: empty axis");
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      const T *px = x + (o / inner) * len * inner + o % inner;
      T best = px[0];
      i64 bi = 0;
      for (i64 j = 1; j < len; ++j) {
        T v = px[j * inner];
        bool better;
        if (onnxc_k::isnan_(best))
          better = false;
        else if (onnxc_k::isnan_(v))
          better = true;
        else
          better = (is_min ? v < best : v > best) || (last && v == best);
        if (better) {
          best = v;
          bi = j;
        }
      }
      y[o] = bi;
    }
  };
  onnxc_k::parallel_for(rt, outer * inner, 256, body);
  return 0;
}

/* Axes computed at run time (reduce_params.h): the params of reduce() built from them. */
template <typename T> int32_t reduce_axes(onnxc_rt *rt, void *const *t, const i64 *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::ReduceAxesParams>(pp);
  const int64_t *axes = static_cast<const int64_t *>(t[1]);
  bool red[8] = {};
  for (i64 d = 0; d < p.rank; ++d)
    red[d] = p.naxes == 0 && !p.noop_with_empty_axes;
  for (i64 k = 0; k < p.naxes; ++k) {
    i64 a = axes[k];
    if (a < -p.rank || a >= p.rank)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "a value of axes is outside [-rank, rank) of the input");
    a += a < 0 ? p.rank : 0;
    if (red[a])
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "an axis appears twice in axes");
    red[a] = true;
  }
  i64 strides[8], q[2 + 16 + 1 + 16], nk = 0, nr = 0;
  for (i64 d = p.rank; d-- > 0;)
    strides[d] = d + 1 < p.rank ? strides[d + 1] * p.dims[d + 1] : 1;
  for (i64 d = 0; d < p.rank; ++d)
    nk += !red[d];
  nr = p.rank - nk;
  q[0] = p.op;
  q[1] = nk;
  q[2 + 2 * nk] = nr;
  for (i64 d = 0, k = 0, r = 0; d < p.rank; ++d) {
    if (red[d]) {
      q[3 + 2 * nk + r] = p.dims[d];
      q[3 + 2 * nk + nr + r] = strides[d];
      ++r;
    } else {
      q[2 + k] = p.dims[d];
      q[2 + nk + k] = strides[d];
      ++k;
    }
  }
  void *io[2] = {t[0], t[2]};
  const int32_t st = reduce<T>(rt, io, q);
  i64 shape[8];
  int32_t rank = 0;
  for (i64 d = 0; d < p.rank; ++d)
    if (!red[d] || p.keepdims)
      shape[rank++] = red[d] ? 1 : p.dims[d];
  onnxc_rt_set_shape(rt, t[2], rank, shape);
  return st;
}
} // namespace

#define ONNXC_REDUCE_KERNELS(ct, sfx, unused)                                                      \
  extern "C" int32_t onnxc_k_reduce_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return reduce<ct>(rt, t, p);                                                                   \
  }                                                                                                \
  extern "C" int32_t onnxc_k_reduce_axes_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {   \
    return reduce_axes<ct>(rt, t, p);                                                              \
  }                                                                                                \
  extern "C" int32_t onnxc_k_arg_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {           \
    return arg<ct>(rt, t, p);                                                                      \
  }
ONNXC_NUMERIC_TYPES(ONNXC_REDUCE_KERNELS, 0)

/* bool: ReduceMax (any) and ReduceMin (all), opset 20. */
extern "C" int32_t onnxc_k_reduce_bool(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return reduce<bool>(rt, t, p);
}
extern "C" int32_t onnxc_k_reduce_axes_bool(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return reduce_axes<bool>(rt, t, p);
}
