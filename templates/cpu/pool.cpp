/* MaxPool / AveragePool (1-D to 3-D, also used for the global pools).
 * params {planes (N*C), mode, in[3], out[3], k[3], stride[3], pad_begin[3], dilation[3],
 *         pad_end[3]} (leading spatial dims padded with 1)
 * mode: 0 max, 1 average over the positions inside the input, 2 average counting padding
 * (count_include_pad: positions inside [-pad_begin, in + pad_end)).
 * tensors {X, Y, Indices (max only, may be null: flat index into X, int64)}; params[23] is
 * the storage order of the index within a plane (0 row-major, 1 column-major).
 * A window that is the whole unpadded plane (the global pools) is a plain per-plane reduction;
 * a window inside the input is read without per-element bounds checks.
 * LpPool: onnxc_k_lp_pool_<dtype>, typed params templates/cpu/pool_params.h.
 */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/pool_params.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {
namespace {

struct PoolGeom {
  i64 planes, mode;
  i64 in[3], out[3], k[3], s[3], pb[3], d[3], pe[3];
};

__attribute__((always_inline)) inline PoolGeom read_geom(const i64 *p) {
  PoolGeom g;
  g.planes = p[0], g.mode = p[1];
  for (int i = 0; i < 3; ++i) {
    g.in[i] = p[2 + i], g.out[i] = p[5 + i], g.k[i] = p[8 + i], g.s[i] = p[11 + i];
    g.pb[i] = p[14 + i], g.d[i] = p[17 + i], g.pe[i] = p[20 + i];
  }
  return g;
}

template <typename T> T lowest() {
  if constexpr (T(0.5) != T(0))
    return -__builtin_huge_val();
  else if constexpr (T(-1) < T(0))
    return T(T(1) << (sizeof(T) * 8 - 1));
  else
    return T(0);
}

/// Column-major position of the row-major in-plane offset `at`.
inline i64 flip(const PoolGeom &g, i64 at) {
  const i64 iw = at % g.in[2], ih = (at / g.in[2]) % g.in[1], id = at / (g.in[2] * g.in[1]);
  return (iw * g.in[1] + ih) * g.in[0] + id;
}

/// True when the one window is the whole plane with no padding (the global pools).
inline bool whole_plane(const PoolGeom &g) {
  for (int i = 0; i < 3; ++i)
    if (g.out[i] != 1 || g.k[i] != g.in[i] || g.pb[i] != 0 || g.pe[i] != 0 || g.d[i] != 1)
      return false;
  return true;
}

typedef double vd8 __attribute__((vector_size(64))); /* 8 doubles */
typedef float vf8 __attribute__((vector_size(32)));  /* 8 floats */

/// Max (the first element, then every later one that is greater, as the general path) or mean
/// of one contiguous plane of n > 0 elements; float runs 16 / 8 lanes at a time.
template <typename T> T reduce_plane(const T *x, i64 n, bool max) {
  i64 i = 0;
  if (max) {
    T best = x[0];
    if constexpr (is_f32<T>) {
      vf32 m = vm::cst<vf32>(x[0]);
      for (; i + kVecF32 <= n; i += kVecF32) {
        const vf32 v = load_f32(x + i);
        m = v > m ? v : m;
      }
      for (int j = 0; j < kVecF32; ++j)
        best = m[j] > best ? m[j] : best;
    }
    for (; i < n; ++i)
      best = x[i] > best ? x[i] : best;
    return best;
  }
  double sum = 0;
  if constexpr (is_f32<T>) {
    vd8 acc = {};
    for (; i + 8 <= n; i += 8) {
      vf8 v;
      __builtin_memcpy(&v, x + i, sizeof v);
      acc += __builtin_convertvector(v, vd8);
    }
    for (int j = 0; j < 8; ++j)
      sum += acc[j];
  }
  for (; i < n; ++i)
    sum += (double)x[i];
  return T(sum / (double)n);
}

/// True when the window starting at input position `at` (d, h, w) lies inside the input.
inline bool inside(const PoolGeom &g, const i64 (&at)[3]) {
  for (int i = 0; i < 3; ++i)
    if (at[i] < 0 || at[i] + (g.k[i] - 1) * g.d[i] >= g.in[i])
      return false;
  return true;
}

/// Max or mean of a window that lies inside the input (every position counts): no bounds
/// checks, the same order and comparisons as the general path.
template <typename T> T window_inside(const PoolGeom &g, const T *xp, const i64 (&at)[3]) {
  const T *w = xp + (at[0] * g.in[1] + at[1]) * g.in[2] + at[2];
  const i64 sd = g.d[0] * g.in[1] * g.in[2], sh = g.d[1] * g.in[2], sw = g.d[2];
  if (g.mode == 0) {
    T best = w[0];
    for (i64 kd = 0; kd < g.k[0]; ++kd)
      for (i64 kh = 0; kh < g.k[1]; ++kh)
        for (i64 kw = 0; kw < g.k[2]; ++kw) {
          const T v = w[kd * sd + kh * sh + kw * sw];
          best = v > best ? v : best;
        }
    return best;
  }
  double sum = 0;
  for (i64 kd = 0; kd < g.k[0]; ++kd)
    for (i64 kh = 0; kh < g.k[1]; ++kh)
      for (i64 kw = 0; kw < g.k[2]; ++kw)
        sum += (double)w[kd * sd + kh * sh + kw * sw];
  return T(sum / (double)(g.k[0] * g.k[1] * g.k[2]));
}

/// Output index range [lo, hi) of a chunk [c0, c1) whose input coordinate o*s + off lies in
/// [0, in).
inline void valid_range(i64 in, i64 s, i64 off, i64 c0, i64 c1, i64 &lo, i64 &hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = in - off <= 0 ? 0 : (in - off - 1) / s + 1;
  lo = lo < c0 ? c0 : lo;
  hi = hi > c1 ? c1 : hi;
  if (hi < lo)
    hi = lo;
}

/// One tap of a MaxPool row: best[o] = src[o * s] for o < n (init) or, when greater, best[o] =
/// src[o * s]; float with stride 1 or 2 as explicit vectors (stride 2 never reads past
/// src[2 (n - 1)]), the rest one by one. The last partial vector is a whole one when best has
/// `room` elements for it (the caller passes room > n only when best's elements past n are
/// never stored) and X, which ends at x_end, holds every element it reads.
template <bool kInit, typename T>
inline void max_tap(T *best, const T *src, i64 n, i64 s, i64 room = 0, const T *x_end = nullptr) {
  i64 o = 0;
  if constexpr (is_f32<T>) {
    auto step = [&](vf32 v) {
      const vf32 b = load_f32(best + o);
      store_f32(best + o, kInit ? v : vm::sel(v > b, v, b));
    };
    if (s == 1)
      for (; o + kVecF32 <= n; o += kVecF32)
        step(load_f32(src + o));
    else if (s == 2)
      for (; o + kVecF32 < n; o += kVecF32)
        step(load_even_f32(src + 2 * o));
    if ((s == 1 || s == 2) && o < n && o + kVecF32 <= room &&
        src + s * o + 2 * kVecF32 <= x_end) { /* the tail as one vector */
      step(s == 1 ? load_f32(src + o) : load_even_f32(src + 2 * o));
      return;
    }
  }
  for (; o < n; ++o) {
    const T v = src[o * s];
    best[o] = kInit || v > best[o] ? v : best[o];
  }
}

/// MaxPool without indices, one output row in chunks of kChunk. Same result as the generic
/// loop (the first valid tap, then strictly greater values, taps in the same order): each
/// column starts from its first valid tap (the first valid (kd, kh) of the row, which is the
/// same for every column, and the column's first valid kw), then every valid tap, the first
/// one included (v > v is false, also for NaN), replaces it when greater: a branch-free,
/// vectorisable pass per tap. A column without a valid tap gives lowest<T>(), as before.
/// Inlined into the node-specialised parallel body, so the window (taps, strides, pads) is
/// constant and the tap loops unroll and vectorise.
template <typename T>
__attribute__((always_inline)) inline void max_rows(const PoolGeom &g, const T *xp, T *yp,
                                                    const T *x_end) {
  constexpr i64 kChunk = 128;
  T best[kChunk];
  /* the room of a tap's part of best for a whole last vector: only when the lanes past the
     tap's valid columns fall past the chunk's columns (hi == c1; they are never stored) */
  auto room = [&](i64 lo, i64 hi, i64 c0, i64 c1) { return hi == c1 ? kChunk - (lo - c0) : 0; };
  for (i64 od = 0; od < g.out[0]; ++od)
    for (i64 oh = 0; oh < g.out[1]; ++oh) {
      T *yrow = yp + (od * g.out[1] + oh) * g.out[2];
      const T *first = nullptr; /* the input row of the first valid (kd, kh) */
      for (i64 kd = 0; kd < g.k[0] && !first; ++kd) {
        const i64 id = od * g.s[0] - g.pb[0] + kd * g.d[0];
        for (i64 kh = 0; kh < g.k[1] && !first && id >= 0 && id < g.in[0]; ++kh) {
          const i64 ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
          if (ih >= 0 && ih < g.in[1])
            first = xp + (id * g.in[1] + ih) * g.in[2];
        }
      }
      for (i64 c0 = 0; c0 < g.out[2]; c0 += kChunk) {
        const i64 c1 = c0 + kChunk < g.out[2] ? c0 + kChunk : g.out[2];
        for (i64 j = 0; j < c1 - c0; ++j)
          best[j] = lowest<T>();
        if (first) {
          /* each column from its first valid kw: taps in reverse order, so the first wins */
          for (i64 kw = g.k[2] - 1; kw >= 0; --kw) {
            const i64 off = kw * g.d[2] - g.pb[2];
            i64 lo, hi;
            valid_range(g.in[2], g.s[2], off, c0, c1, lo, hi);
            const T *src = first + lo * g.s[2] + off;
            max_tap<true>(best + (lo - c0), src, hi - lo, g.s[2], room(lo, hi, c0, c1), x_end);
          }
          for (i64 kd = 0; kd < g.k[0]; ++kd) {
            const i64 id = od * g.s[0] - g.pb[0] + kd * g.d[0];
            for (i64 kh = 0; kh < g.k[1] && id >= 0 && id < g.in[0]; ++kh) {
              const i64 ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
              if (ih < 0 || ih >= g.in[1])
                continue;
              const T *xr = xp + (id * g.in[1] + ih) * g.in[2];
              for (i64 kw = 0; kw < g.k[2]; ++kw) {
                const i64 off = kw * g.d[2] - g.pb[2];
                i64 lo, hi;
                valid_range(g.in[2], g.s[2], off, c0, c1, lo, hi);
                const T *src = xr + lo * g.s[2] + off;
                max_tap<false>(best + (lo - c0), src, hi - lo, g.s[2], room(lo, hi, c0, c1), x_end);
              }
            }
          }
        }
        for (i64 j = 0; j < c1 - c0; ++j)
          yrow[c0 + j] = best[j];
      }
    }
}

/// The output columns [lo, hi) whose windows lie inside the input's columns (no dilation): those
/// where the first tap (kw 0) and the last (kw k - 1) both do.
inline void interior_cols(const PoolGeom &g, i64 &lo, i64 &hi) {
  i64 unused;
  valid_range(g.in[2], g.s[2], -g.pb[2], 0, g.out[2], lo, unused);
  valid_range(g.in[2], g.s[2], g.k[2] - 1 - g.pb[2], 0, g.out[2], unused, hi);
  lo = lo < hi ? lo : hi;
}

/// True when max_rows_f32 runs the window: 2-D (or 1-D), no dilation, column stride 1 or 2,
/// and at least one vector of interior columns per row (narrower rows: max_rows, whose passes
/// over the row buffer are then vectors across the row).
inline bool max_rows_f32_fits(const PoolGeom &g) {
  if (!(g.in[0] == 1 && g.out[0] == 1 && g.k[0] == 1 && g.pb[0] == 0 && g.d[1] == 1 &&
        g.d[2] == 1 && (g.s[2] == 1 || g.s[2] == 2)))
    return false;
  i64 lo, hi;
  interior_cols(g, lo, hi);
  return hi - lo >= kVecF32;
}

/// float MaxPool rows (max_rows_f32_fits), the same result as max_rows: every vector of output
/// columns whose windows lie inside the input's columns keeps its maximum in a register over
/// all the window's taps (it starts from the first valid tap, (first valid row, kw 0), then
/// takes each valid tap, that one included, when greater), each tap one (stride 2: two) loads;
/// max_rows passed over a row buffer in memory once per tap (squeezenet's 3x3 stride-2 pools
/// 2x ORT's time). The columns outside, and any whose loads would pass X's end, one by one in
/// max_rows's order.
template <i64 S>
__attribute__((always_inline)) inline void max_rows_f32(const PoolGeom &g, const float *xp,
                                                        float *yp, const float *x_end) {
  constexpr i64 L = kVecF32;
  const i64 Wo = g.out[2], Wi = g.in[2], kW = g.k[2], pb = g.pb[2];
  i64 lo, hi;
  interior_cols(g, lo, hi);
  for (i64 oh = 0; oh < g.out[1]; ++oh) {
    float *yrow = yp + oh * Wo;
    i64 r0 = oh * g.s[1] - g.pb[1], r1 = r0 + g.k[1]; /* the window's rows inside X */
    r0 = r0 < 0 ? 0 : r0;
    r1 = r1 < g.in[1] ? r1 : g.in[1];
    if (r1 <= r0) {
      for (i64 o = 0; o < Wo; ++o)
        yrow[o] = lowest<float>();
      continue;
    }
    /* max_rows's order for one column */
    auto column = [&](i64 o) {
      const i64 c0 = o * S - pb, k0 = c0 < 0 ? -c0 : 0, k1 = Wi - c0 < kW ? Wi - c0 : kW;
      if (k1 <= k0) {
        yrow[o] = lowest<float>();
        return;
      }
      float best = xp[r0 * Wi + c0 + k0];
      for (i64 r = r0; r < r1; ++r)
        for (i64 kw = k0; kw < k1; ++kw) {
          const float v = xp[r * Wi + c0 + kw];
          best = v > best ? v : best;
        }
      yrow[o] = best;
    };
    auto vector = [&](i64 o) {
      const float *base = xp + o * S - pb;
      auto tap = [&](i64 r, i64 kw) {
        return S == 1 ? load_f32(base + r * Wi + kw) : load_even_f32(base + r * Wi + kw);
      };
      vf32 best = tap(r0, 0);
      for (i64 r = r0; r < r1; ++r)
        for (i64 kw = 0; kw < kW; ++kw) {
          const vf32 v = tap(r, kw);
          best = vm::sel(v > best, v, best);
        }
      store_f32(yrow + o, best);
    };
    /* a vector's last load ends at base + (r1 - 1) * Wi + kW - 1 + S * L */
    auto loads_inside = [&](i64 o) {
      return xp + (r1 - 1) * Wi + o * S - pb + kW - 1 + S * L <= x_end;
    };
    i64 o = 0;
    for (; o < lo; ++o)
      column(o);
    for (; o + L <= hi && loads_inside(o); o += L)
      vector(o);
    if (o < hi && loads_inside(hi - L)) { /* the last vector overlaps the one before */
      vector(hi - L);
      o = hi;
    }
    for (; o < Wo; ++o)
      column(o);
  }
}

template <typename T>
__attribute__((always_inline)) inline int32_t pool_kernel(onnxc_rt *rt, void *const *t,
                                                          const i64 *p) {
  const PoolGeom g = read_geom(p);
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  i64 *indices = g.mode == 0 ? static_cast<i64 *>(t[2]) : nullptr;
  const bool col_major = p[23] != 0;
  const i64 isz = g.in[0] * g.in[1] * g.in[2], osz = g.out[0] * g.out[1] * g.out[2];
  if (whole_plane(g) && !indices && isz > 0) {
    auto global = [&](i64 lo, i64 hi) {
      for (i64 plane = lo; plane < hi; ++plane)
        y[plane] = reduce_plane(x + plane * isz, isz, g.mode == 0);
    };
    parallel_for(rt, g.planes, 1 + 4096 / isz, global);
    return 0;
  }
  if (g.mode == 0 && t[2] == nullptr) { /* the common case: MaxPool without indices */
    auto rows = [&](const i64 *pp, i64 lo, i64 hi) {
      const PoolGeom q = read_geom(pp);
      const i64 qi = q.in[0] * q.in[1] * q.in[2], qo = q.out[0] * q.out[1] * q.out[2];
      for (i64 plane = lo; plane < hi; ++plane) {
        if constexpr (is_f32<T>) {
          if (max_rows_f32_fits(q)) {
            if (q.s[2] == 1)
              max_rows_f32<1>(q, x + plane * qi, y + plane * qo, x + q.planes * qi);
            else
              max_rows_f32<2>(q, x + plane * qi, y + plane * qo, x + q.planes * qi);
            continue;
          }
        }
        max_rows(q, x + plane * qi, y + plane * qo, x + q.planes * qi);
      }
    };
    parallel_for(rt, p, g.planes, 1, rows);
    return 0;
  }
  auto body = [&](i64 lo, i64 hi) {
    for (i64 plane = lo; plane < hi; ++plane) {
      const T *xp = x + plane * isz;
      for (i64 o = 0; o < osz; ++o) {
        const i64 oc[3] = {o / (g.out[1] * g.out[2]), (o / g.out[2]) % g.out[1], o % g.out[2]};
        const i64 at[3] = {oc[0] * g.s[0] - g.pb[0], oc[1] * g.s[1] - g.pb[1],
                           oc[2] * g.s[2] - g.pb[2]};
        if (!indices && inside(g, at)) { /* interior: no per-element checks */
          y[plane * osz + o] = window_inside(g, xp, at);
          continue;
        }
        T best = lowest<T>();
        i64 best_at = -1;
        double sum = 0;
        i64 count = 0, padded = 0;
        for (i64 kd = 0; kd < g.k[0]; ++kd) {
          const i64 id = oc[0] * g.s[0] - g.pb[0] + kd * g.d[0];
          const bool vd = id >= 0 && id < g.in[0], pd = id < g.in[0] + g.pe[0];
          for (i64 kh = 0; kh < g.k[1]; ++kh) {
            const i64 ih = oc[1] * g.s[1] - g.pb[1] + kh * g.d[1];
            const bool vh = ih >= 0 && ih < g.in[1], ph = ih < g.in[1] + g.pe[1];
            for (i64 kw = 0; kw < g.k[2]; ++kw) {
              const i64 iw = oc[2] * g.s[2] - g.pb[2] + kw * g.d[2];
              padded += pd && ph && iw < g.in[2] + g.pe[2];
              if (!(vd && vh && iw >= 0 && iw < g.in[2]))
                continue;
              const i64 at = (id * g.in[1] + ih) * g.in[2] + iw;
              const T v = xp[at];
              ++count;
              sum += (double)v;
              if (best_at < 0 || v > best) {
                best = v;
                best_at = at;
              }
            }
          }
        }
        if (g.mode == 0) {
          y[plane * osz + o] = best;
          if (indices)
            indices[plane * osz + o] = plane * isz + (best_at < 0 ? 0
                                                      : col_major ? flip(g, best_at)
                                                                  : best_at);
        } else {
          const i64 n = g.mode == 2 ? padded : count;
          y[plane * osz + o] = n > 0 ? T(sum / (double)n) : T(0);
        }
      }
    }
  };
  parallel_for(rt, g.planes, 1, body);
  return 0;
}

/// LpPool: y = (sum over the window's positions inside X of |x|^p)^(1/p).
template <typename T> int32_t lp_pool(onnxc_rt *rt, void *const *t, const i64 *params) {
  const LpPoolParams p = params_of<LpPoolParams>(params);
  const WindowGeom &g = p.w;
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  const i64 isz = g.in_size(), osz = g.out_size();
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const T *xp = x + (r / osz) * isz;
      const i64 o = r % osz;
      const i64 oc[3] = {o / (g.out[1] * g.out[2]), (o / g.out[2]) % g.out[1], o % g.out[2]};
      double sum = 0;
      for (i64 kd = 0; kd < g.k[0]; ++kd) {
        const i64 id = oc[0] * g.s[0] - g.p[0] + kd * g.d[0];
        for (i64 kh = 0; kh < g.k[1]; ++kh) {
          const i64 ih = oc[1] * g.s[1] - g.p[1] + kh * g.d[1];
          for (i64 kw = 0; kw < g.k[2]; ++kw) {
            const i64 iw = oc[2] * g.s[2] - g.p[2] + kw * g.d[2];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2])
              continue;
            const double v = __builtin_fabs(double(xp[(id * g.in[1] + ih) * g.in[2] + iw]));
            sum += p.p == 2.0 ? v * v : (p.p == 1.0 ? v : __builtin_pow(v, p.p));
          }
        }
      }
      y[r] =
          T(p.p == 2.0 ? __builtin_sqrt(sum) : (p.p == 1.0 ? sum : __builtin_pow(sum, 1.0 / p.p)));
    }
  };
  parallel_for(rt, p.planes * osz, 1 + 4096 / (g.k_size() + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_POOL_KERNEL(ct, sfx, unused)                                                         \
  extern "C" int32_t onnxc_k_pool_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {          \
    return onnxc_k::pool_kernel<ct>(rt, t, p);                                                     \
  }
ONNXC_FLOAT_TYPES(ONNXC_POOL_KERNEL, 0)
ONNXC_POOL_KERNEL(signed char, i8, 0)
ONNXC_POOL_KERNEL(unsigned char, u8, 0)

#define ONNXC_LP_POOL_KERNEL(ct, sfx, unused)                                                      \
  extern "C" int32_t onnxc_k_lp_pool_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {       \
    return onnxc_k::lp_pool<ct>(rt, t, p);                                                         \
  }
ONNXC_FLOAT_TYPES(ONNXC_LP_POOL_KERNEL, 0)
