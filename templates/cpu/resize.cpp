/* Resize / Upsample. The lowering (compiler/ops/tensor/resize.cpp) computes every coordinate
 * mapping at compile time; the kernels only gather (nearest) or blend (linear, cubic).
 * params {elem_bytes, R, outer, extrap, in[R], out[R], ntaps[R], then per axis d:
 *         offsets[out[d] * ntaps[d]]   input offset of each tap within one outer slice, or -1:
 *                                      the output coordinate is outside (extrapolation value);
 *         weights[out[d] * ntaps[d]]   f64 bit patterns (resize_<dtype> only)}
 * extrap is an f64 bit pattern for resize_<dtype>, the element's own bits for resize_nearest.
 * The R axes are the trailing axes of X; `outer` counts the leading axes' (unresized) slices.
 * tensors {X, Y}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {
namespace {

constexpr i64 kMaxRank = 8;

struct ResizeGeom {
  i64 R, outer, in_slice, out_slice, rows_per_slice, L;
  const i64 *out, *nt;
  const i64 *off[kMaxRank], *wt[kMaxRank];
};

ResizeGeom read_geom(const i64 *p, bool weighted) {
  ResizeGeom g;
  g.R = p[1], g.outer = p[2];
  const i64 *in = p + 4;
  g.out = p + 4 + g.R, g.nt = p + 4 + 2 * g.R;
  const i64 *cur = p + 4 + 3 * g.R;
  g.in_slice = 1, g.out_slice = 1;
  for (i64 d = 0; d < g.R; ++d) {
    g.in_slice *= in[d], g.out_slice *= g.out[d];
    g.off[d] = cur;
    cur += g.out[d] * g.nt[d];
    g.wt[d] = cur;
    if (weighted)
      cur += g.out[d] * g.nt[d];
  }
  g.L = g.out[g.R - 1];
  g.rows_per_slice = g.L ? g.out_slice / g.L : 0;
  return g;
}

/// Output coordinates of the leading R-1 axes of row rr of a slice.
inline void row_coords(const ResizeGeom &g, i64 rr, i64 *c) {
  for (i64 d = g.R - 2; d >= 0; --d) {
    c[d] = rr % g.out[d];
    rr /= g.out[d];
  }
}

template <typename E> void resize_nearest(onnxc_rt *rt, const E *x, E *y, const i64 *p) {
  const ResizeGeom geom = read_geom(p, false);
  /* the geometry read from the body's params (kernel_abi.h): specialised for the node at any
     thread count */
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ResizeGeom g = read_geom(pp, false);
    E ext;
    __builtin_memcpy(&ext, &pp[3], sizeof ext); /* little-endian: the low bytes */
    const i64 *offl = g.off[g.R - 1];
    i64 c[kMaxRank];
    for (i64 r = lo; r < hi; ++r) {
      const i64 o = r / g.rows_per_slice;
      row_coords(g, r % g.rows_per_slice, c);
      E *yr = y + r * g.L;
      i64 base = 0;
      bool outside = false;
      for (i64 d = 0; d + 1 < g.R; ++d) {
        const i64 v = g.off[d][c[d]];
        outside |= v < 0;
        base += v;
      }
      const E *xs = x + o * g.in_slice + base;
      for (i64 j = 0; j < g.L; ++j)
        yr[j] = outside || offl[j] < 0 ? ext : xs[offl[j]];
    }
  };
  parallel_for(rt, p, geom.outer * geom.rows_per_slice, 1 + 4096 / (geom.L ? geom.L : 1), body);
}

inline double weight(const i64 *w, i64 i) {
  double v;
  __builtin_memcpy(&v, &w[i], sizeof v);
  return v;
}

/// Combination k of one tap on each leading axis (all but the last) for output coordinates c:
/// the product of their weights, and (in base) the sum of their input offsets.
inline double leading_tap(const ResizeGeom &g, const i64 *c, i64 k, i64 &base) {
  double w = 1;
  i64 rem = k;
  base = 0;
  for (i64 d = g.R - 2; d >= 0; --d) {
    const i64 t = c[d] * g.nt[d] + rem % g.nt[d];
    rem /= g.nt[d];
    w *= weight(g.wt[d], t);
    base += g.off[d][t];
  }
  return w;
}

/// Rows of the last axis resized once and kept for the output rows that blend them; taps of the
/// last axis at most kMaxLastTaps.
constexpr i64 kRowCache = 4, kRowCacheLen = 1024, kMaxLastTaps = 4;

/// resize_weighted when the taps of the leading axes combine at most kRowCache input rows, the
/// last axis has at most kMaxLastTaps taps and an output row fits kRowCacheLen: separable, so
/// each input row is resized along the last axis once per work item (kept in a small cache
/// keyed by its offset) and each output row is a vector blend of those rows. Returns false when
/// it does not apply.
/// Taps combined on the leading axes (all but the last).
inline i64 leading_combos(const ResizeGeom &g) {
  i64 combos = 1;
  for (i64 d = 0; d < g.R - 1; ++d)
    combos *= g.nt[d];
  return combos;
}

template <typename T> bool resize_separable(onnxc_rt *rt, const T *x, T *y, const i64 *p) {
  const ResizeGeom geom = read_geom(p, true);
  if (leading_combos(geom) > kRowCache || geom.L > kRowCacheLen ||
      geom.nt[geom.R - 1] > kMaxLastTaps)
    return false;
  /* the geometry read from the body's params (kernel_abi.h): the body is specialised for the
     node at any thread count (a generic one, 4-lane code with run-time sizes, had made a
     128-channel 32x32 -> 64x64 bilinear Resize no faster at 2 threads than at 1) */
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ResizeGeom g = read_geom(pp, true);
    const T ext = T(param_f64(pp, 3));
    const i64 combos = leading_combos(g), last = g.R - 1, ntl = g.nt[last], L = g.L;
    const i64 *offl = g.off[last], *wl = g.wt[last];
    /* the last axis' taps, tap-major, as T weights and 32-bit offsets (0 and weight 0 where the
       coordinate is outside: such columns get `ext` at the end) */
    T hw[kMaxLastTaps][kRowCacheLen];
    int32_t ho[kMaxLastTaps][kRowCacheLen];
    bool cols_outside = false; /* some column's coordinate is outside: it gets `ext` */
    for (i64 j = 0; j < L; ++j) {
      const bool in = offl[j * ntl] >= 0;
      cols_outside |= !in;
      for (i64 t = 0; t < ntl; ++t) {
        hw[t][j] = in ? T(weight(wl, j * ntl + t)) : T(0);
        ho[t][j] = in ? int32_t(offl[j * ntl + t]) : 0;
      }
    }
    T rows[kRowCache][kRowCacheLen];
    i64 keys[kRowCache], stamp[kRowCache], clock = 0;
    for (i64 s = 0; s < kRowCache; ++s)
      keys[s] = -1, stamp[s] = -1;
    i64 cached_slice = -1;
    i64 c[kMaxRank];
    for (i64 r = lo; r < hi; ++r) {
      const i64 o = r / g.rows_per_slice;
      row_coords(g, r % g.rows_per_slice, c);
      T *yr = y + r * L;
      if (o != cached_slice) { /* cached rows belong to one slice */
        for (i64 s = 0; s < kRowCache; ++s)
          keys[s] = -1;
        cached_slice = o;
      }
      bool outside = false;
      for (i64 d = 0; d < last; ++d)
        outside |= g.off[d][c[d] * g.nt[d]] < 0;
      if (outside) {
        for (i64 j = 0; j < L; ++j)
          yr[j] = ext;
        continue;
      }
      const T *xs = x + o * g.in_slice;
      const T *src[kRowCache];
      T wk[kRowCache];
      i64 n = 0;
      for (i64 k = 0; k < combos; ++k) { /* one tap on each leading axis */
        i64 base;
        const double w = leading_tap(g, c, k, base);
        if (w == 0)
          continue;
        i64 slot = -1, oldest = 0;
        for (i64 s = 0; s < kRowCache; ++s) {
          if (keys[s] == base)
            slot = s;
          if (stamp[s] < stamp[oldest])
            oldest = s;
        }
        if (slot < 0) { /* resize input row `base` along the last axis */
          slot = oldest;
          keys[slot] = base;
          const T *xb = xs + base;
          T *row = rows[slot];
          i64 j0 = 0;
          if constexpr (is_f32<T>) { /* explicit vectors of gathered taps (the scalar loop
                                        was most of a 2x bilinear upsample) */
            for (; j0 + kVecF32 <= L; j0 += kVecF32) {
              vf32 acc;
              for (i64 t = 0; t < ntl; ++t) {
                vf32 v;
                for (int l = 0; l < kVecF32; ++l)
                  v[l] = xb[ho[t][j0 + l]];
                acc = t == 0 ? load_f32(&hw[0][j0]) * v : acc + load_f32(&hw[t][j0]) * v;
              }
              store_f32(row + j0, acc);
            }
          }
          for (i64 j = j0; j < L; ++j)
            row[j] = hw[0][j] * xb[ho[0][j]];
          for (i64 t = 1; t < ntl; ++t)
            for (i64 j = j0; j < L; ++j)
              row[j] += hw[t][j] * xb[ho[t][j]];
        }
        stamp[slot] = clock++;
        src[n] = rows[slot], wk[n] = T(w), ++n;
      }
      i64 j0 = 0;
      if constexpr (is_f32<T>) { /* explicit vectors: one pass over the row for all n rows */
        for (; n > 0 && j0 + kVecF32 <= L; j0 += kVecF32) {
          vf32 acc = wk[0] * load_f32(src[0] + j0);
          for (i64 k = 1; k < n; ++k)
            acc += wk[k] * load_f32(src[k] + j0);
          store_f32(yr + j0, acc);
        }
      }
      if (n == 0)
        for (i64 j = j0; j < L; ++j)
          yr[j] = T(0);
      else {
        const T w0 = wk[0], *s0 = src[0];
        for (i64 j = j0; j < L; ++j)
          yr[j] = w0 * s0[j];
      }
      for (i64 k = 1; k < n; ++k) {
        const T wv = wk[k], *sv = src[k];
        for (i64 j = j0; j < L; ++j)
          yr[j] += wv * sv[j];
      }
      for (i64 j = 0; cols_outside && j < L; ++j)
        if (offl[j * ntl] < 0)
          yr[j] = ext;
    }
  };
  parallel_for(rt, p, geom.outer * geom.rows_per_slice, 1 + 4096 / (geom.L ? geom.L : 1), body);
  return true;
}

template <typename T> void resize_weighted(onnxc_rt *rt, const T *x, T *y, const i64 *p) {
  if (resize_separable(rt, x, y, p))
    return;
  const ResizeGeom geom = read_geom(p, true);
  const i64 work = (geom.L ? geom.L : 1) * leading_combos(geom) * geom.nt[geom.R - 1];
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const ResizeGeom g = read_geom(pp, true);
    const T ext = T(param_f64(pp, 3));
    const i64 combos = leading_combos(g), last = g.R - 1, ntl = g.nt[last];
    const i64 *offl = g.off[last], *wl = g.wt[last];
    i64 c[kMaxRank];
    for (i64 r = lo; r < hi; ++r) {
      const i64 o = r / g.rows_per_slice;
      row_coords(g, r % g.rows_per_slice, c);
      T *yr = y + r * g.L;
      const T *xs = x + o * g.in_slice;
      bool outside = false;
      for (i64 d = 0; d < last; ++d)
        outside |= g.off[d][c[d] * g.nt[d]] < 0;
      for (i64 j = 0; j < g.L; ++j)
        yr[j] = outside ? ext : T(0);
      if (outside)
        continue;
      for (i64 k = 0; k < combos; ++k) { /* one tap on each leading axis */
        i64 base;
        const double w = leading_tap(g, c, k, base);
        if (w == 0)
          continue;
        const T *xb = xs + base;
        for (i64 j = 0; j < g.L; ++j) {
          if (offl[j * ntl] < 0)
            continue;
          double s = 0;
          for (i64 t = 0; t < ntl; ++t)
            s += weight(wl, j * ntl + t) * double(xb[offl[j * ntl + t]]);
          yr[j] += T(w * s);
        }
      }
      for (i64 j = 0; j < g.L; ++j)
        if (offl[j * ntl] < 0)
          yr[j] = ext;
    }
  };
  parallel_for(rt, p, geom.outer * geom.rows_per_slice, 1 + 4096 / work, body);
}

} // namespace
} // namespace onnxc_k

extern "C" int32_t onnxc_k_resize_nearest(onnxc_rt *rt, void *const *t, const int64_t *p) {
  using namespace onnxc_k;
  if (p[1] < 1 || p[1] > kMaxRank)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "resize: unsupported rank");
  switch (p[0]) {
  case 1:
    resize_nearest(rt, (const unsigned char *)t[0], (unsigned char *)t[1], p);
    break;
  case 2:
    resize_nearest(rt, (const unsigned short *)t[0], (unsigned short *)t[1], p);
    break;
  case 4:
    resize_nearest(rt, (const unsigned int *)t[0], (unsigned int *)t[1], p);
    break;
  case 8:
    resize_nearest(rt, (const unsigned long long *)t[0], (unsigned long long *)t[1], p);
    break;
  default:
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "resize: unsupported element size");
  }
  return 0;
}

#define ONNXC_RESIZE_KERNEL(ct, sfx, unused)                                                       \
  extern "C" int32_t onnxc_k_resize_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    if (p[1] < 1 || p[1] > onnxc_k::kMaxRank)                                                      \
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "resize: unsupported rank");         \
    onnxc_k::resize_weighted(rt, (const ct *)t[0], (ct *)t[1], p);                                 \
    return 0;                                                                                      \
  }
ONNXC_FLOAT_TYPES(ONNXC_RESIZE_KERNEL, 0)
