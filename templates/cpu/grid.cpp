/* GridSample (nearest / linear / cubic over 1-3 spatial dims, zeros / border / reflection
 * padding) and AffineGrid. Parameters: templates/cpu/grid_params.h. Coordinates are computed in
 * the element type; an output value is the sum over the product of the per-dim taps. */
#include "templates/cpu/grid_params.h"
#include "templates/cpu/kernel_abi.h"

namespace onnxc_k {
namespace {

template <typename T> T floor_(T x) {
  if constexpr (sizeof(T) == 4)
    return __builtin_floorf(x);
  else
    return __builtin_floor(x);
}

/// Round to nearest, ties to even (nearbyint), in every dimension as the backend suite's
/// 3-D cases expect.
template <typename T> T round_even(T x) {
  if constexpr (sizeof(T) == 4)
    return __builtin_rintf(x);
  else
    return __builtin_rint(x);
}

/// Reflects x by the nearer border until it lies in [lo, hi].
template <typename T> T reflect(T x, T lo, T hi) {
  const T range = hi - lo;
  if (range <= T(0))
    return lo;
  if (x < lo || x > hi) {
    const bool below = x < lo;
    const T dx = below ? lo - x : x - hi;
    const i64 k = static_cast<i64>(dx / range);
    const T r = dx - T(k) * range;
    return (k % 2 == 0) == below ? lo + r : hi - r;
  }
  return x;
}

/// The taps of one spatial dim: source indices (-1: a zero from padding) and weights.
template <typename T> struct Taps {
  int n = 1;
  i64 idx[4] = {0, 0, 0, 0};
  T w[4] = {T(1), T(0), T(0), T(0)};
};

template <typename T> void cubic_coeffs(T t, T *c) {
  const T a = T(-0.75);
  const T x0 = t + T(1), x1 = t, x2 = T(1) - t, x3 = T(2) - t;
  c[0] = ((a * x0 - T(5) * a) * x0 + T(8) * a) * x0 - T(4) * a;
  c[1] = ((a + T(2)) * x1 - (a + T(3))) * x1 * x1 + T(1);
  c[2] = ((a + T(2)) * x2 - (a + T(3))) * x2 * x2 + T(1);
  c[3] = ((a * x3 - T(5) * a) * x3 + T(8) * a) * x3 - T(4) * a;
}

/// Taps for normalised coordinate g along a dim of `len` elements.
template <typename T> Taps<T> dim_taps(const GridSampleParams &p, T g, i64 len) {
  const T lo = p.align_corners ? T(0) : T(-0.5),
          hi = p.align_corners ? T(len - 1) : T(len) - T(0.5);
  T x = p.align_corners ? (g + T(1)) / T(2) * T(len - 1) : ((g + T(1)) * T(len) - T(1)) / T(2);
  if (p.mode == kGridNearest)
    x = round_even(x);
  if (x < lo || x > hi) {
    if (p.padding == kGridBorder)
      x = x < T(0) ? T(0) : (x > T(len - 1) ? T(len - 1) : x);
    else if (p.padding == kGridReflection)
      x = reflect(x, lo, hi);
  }
  Taps<T> t;
  const T x0 = p.mode == kGridNearest ? x : floor_(x), f = x - x0;
  const i64 base = static_cast<i64>(x0);
  if (p.mode == kGridNearest) {
    t.n = 1, t.idx[0] = base, t.w[0] = T(1);
  } else if (p.mode == kGridLinear) {
    t.n = 2, t.idx[0] = base, t.idx[1] = base + 1, t.w[0] = T(1) - f, t.w[1] = f;
  } else {
    t.n = 4;
    cubic_coeffs(f, t.w);
    for (int k = 0; k < 4; ++k)
      t.idx[k] = base - 1 + k;
  }
  for (int k = 0; k < t.n; ++k) {
    i64 i = t.idx[k];
    if (p.padding == kGridZeros)
      i = i >= 0 && i < len ? i : -1;
    else if (p.padding == kGridBorder)
      i = i < 0 ? 0 : (i >= len ? len - 1 : i);
    else
      i = static_cast<i64>(reflect(T(i), lo, hi));
    t.idx[k] = i;
  }
  return t;
}

template <typename T> int32_t grid_sample(onnxc_rt *rt, void *const *t, const i64 *params) {
  const GridSampleParams p = params_of<GridSampleParams>(params);
  const T *x = static_cast<const T *>(t[0]);
  const T *grid = static_cast<const T *>(t[1]);
  T *y = static_cast<T *>(t[2]);
  const i64 plane = p.in[0] * p.in[1] * p.in[2];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const i64 n = r / p.out_size, o = r % p.out_size;
      const T *g = grid + r * p.nd;
      Taps<T> tp[3];
      for (i64 d = 3 - p.nd; d < 3; ++d)
        tp[d] = dim_taps(p, g[2 - d], p.in[d]);
      for (i64 c = 0; c < p.C; ++c) {
        const T *xc = x + (n * p.C + c) * plane;
        T acc = 0;
        for (int a = 0; a < tp[0].n; ++a)
          for (int b = 0; b < tp[1].n; ++b)
            for (int e = 0; e < tp[2].n; ++e) {
              const i64 i0 = tp[0].idx[a], i1 = tp[1].idx[b], i2 = tp[2].idx[e];
              if (i0 >= 0 && i1 >= 0 && i2 >= 0)
                acc +=
                    tp[0].w[a] * tp[1].w[b] * tp[2].w[e] * xc[(i0 * p.in[1] + i1) * p.in[2] + i2];
            }
        y[(n * p.C + c) * p.out_size + o] = acc;
      }
    }
  };
  parallel_for(rt, p.N * p.out_size, 1 + 2048 / (p.C + 1), body);
  return 0;
}

/// The normalised base coordinate of index i along a dim of `len` elements.
template <typename T> T base_coord(i64 i, i64 len, bool align_corners) {
  if (align_corners)
    return len > 1 ? T(-1) + T(2 * i) / T(len - 1) : T(-1);
  return T(-1) + T(2 * i + 1) / T(len);
}

template <typename T> int32_t affine_grid(onnxc_rt *rt, void *const *t, const i64 *params) {
  const AffineGridParams p = params_of<AffineGridParams>(params);
  const T *theta = static_cast<const T *>(t[0]);
  T *grid = static_cast<T *>(t[1]);
  const i64 nd = p.nd, plane = p.size[0] * p.size[1] * p.size[2];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const i64 n = r / plane, o = r % plane;
      const i64 idx[3] = {o / (p.size[1] * p.size[2]), o / p.size[2] % p.size[1], o % p.size[2]};
      T base[3]; // x (last dim), y, z
      for (i64 k = 0; k < nd; ++k)
        base[k] = base_coord<T>(idx[2 - k], p.size[2 - k], p.align_corners != 0);
      const T *th = theta + n * nd * (nd + 1);
      for (i64 k = 0; k < nd; ++k) {
        T v = th[k * (nd + 1) + nd];
        for (i64 j = 0; j < nd; ++j)
          v += th[k * (nd + 1) + j] * base[j];
        grid[r * nd + k] = v;
      }
    }
  };
  parallel_for(rt, p.N * plane, 1024, body);
  return 0;
}

/* AffineGrid with size computed at run time (int64 [N, C, spatial...]): onnxc_k_affine_grid
 * into onnxc_rt_output_buffer (no bound). Tensors {theta, SIZE, Y}; p.size is unused. */
template <typename T> int32_t affine_grid_rt(onnxc_rt *rt, void *const *t, const i64 *params) {
  AffineGridParams p = params_of<AffineGridParams>(params);
  const int64_t *size = static_cast<const int64_t *>(t[1]);
  if (size[0] != p.N)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "size[0] differs from theta's batch");
  i64 shape[5] = {p.N, 1, 1, 1, p.nd}, numel = p.N * p.nd;
  for (i64 d = 0; d < 3; ++d) {
    p.size[d] = d < 3 - p.nd ? 1 : size[d - (3 - p.nd) + 2];
    if (p.size[d] < 1 || __builtin_mul_overflow(numel, p.size[d], &numel) ||
        numel > (int64_t(1) << 40))
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "the spatial sizes must be positive (and not too large)");
    if (d >= 3 - p.nd)
      shape[1 + d - (3 - p.nd)] = p.size[d];
  }
  shape[1 + p.nd] = p.nd;
  void *y = onnxc_rt_output_buffer(rt, t[2], static_cast<uint64_t>(numel) * sizeof(T));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  void *io[2] = {t[0], y};
  const int32_t st = affine_grid<T>(rt, io, reinterpret_cast<const i64 *>(&p));
  onnxc_rt_set_shape(rt, t[2], static_cast<int32_t>(p.nd + 2), shape);
  return st;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_GRID_KERNELS(ct, sfx)                                                                \
  extern "C" int32_t onnxc_k_grid_sample_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {   \
    return onnxc_k::grid_sample<ct>(rt, t, p);                                                     \
  }                                                                                                \
  extern "C" int32_t onnxc_k_affine_grid_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {   \
    return onnxc_k::affine_grid<ct>(rt, t, p);                                                     \
  }                                                                                                \
  extern "C" int32_t onnxc_k_affine_grid_rt_##sfx(onnxc_rt *rt, void *const *t,                    \
                                                  const int64_t *p) {                              \
    return onnxc_k::affine_grid_rt<ct>(rt, t, p);                                                  \
  }
ONNXC_GRID_KERNELS(float, f32)
ONNXC_GRID_KERNELS(double, f64)
