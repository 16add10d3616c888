/* RoiAlign, MaxUnpool, Col2Im and DeformConv. Parameters: templates/cpu/misc_params.h. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/misc_params.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

/// One bilinear sample of RoiAlign: four positions in the plane and their weights.
struct RoiSample {
  i64 pos[4];
  double w[4];
};

RoiSample roi_sample(const RoiAlignParams &p, double y, double x) {
  RoiSample s = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  if (y < -1.0 || y > double(p.H) || x < -1.0 || x > double(p.W))
    return s; // outside the feature map: contributes zero
  y = y < 0 ? 0 : y, x = x < 0 ? 0 : x;
  i64 y0 = static_cast<i64>(y), x0 = static_cast<i64>(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= p.H - 1)
    y0 = y1 = p.H - 1, y = double(y0);
  if (x0 >= p.W - 1)
    x0 = x1 = p.W - 1, x = double(x0);
  const double ly = y - double(y0), lx = x - double(x0), hy = 1 - ly, hx = 1 - lx;
  s.pos[0] = y0 * p.W + x0, s.pos[1] = y0 * p.W + x1;
  s.pos[2] = y1 * p.W + x0, s.pos[3] = y1 * p.W + x1;
  s.w[0] = hy * hx, s.w[1] = hy * lx, s.w[2] = ly * hx, s.w[3] = ly * lx;
  return s;
}

template <typename T> i64 ceil_pos(T v) {
  const i64 i = static_cast<i64>(v);
  return T(i) < v ? i + 1 : i;
}

/// A region of interest in input coordinates: its start, bin size and samples per bin.
struct RoiBins {
  double y0, x0, bh, bw;
  i64 gh, gw;
};

template <typename T> RoiBins roi_bins(const RoiAlignParams &p, const T *roi) {
  const double off = p.half_pixel ? 0.5 : 0.0;
  RoiBins b;
  b.x0 = double(roi[0]) * p.spatial_scale - off, b.y0 = double(roi[1]) * p.spatial_scale - off;
  double rw = double(roi[2]) * p.spatial_scale - off - b.x0;
  double rh = double(roi[3]) * p.spatial_scale - off - b.y0;
  if (!p.half_pixel) // output_half_pixel: malformed regions become at least 1 x 1
    rw = rw > 1 ? rw : 1, rh = rh > 1 ? rh : 1;
  b.bh = rh / double(p.out_h), b.bw = rw / double(p.out_w);
  b.gh = p.sampling_ratio > 0 ? p.sampling_ratio : ceil_pos(b.bh);
  b.gw = p.sampling_ratio > 0 ? p.sampling_ratio : ceil_pos(b.bw);
  return b;
}

/// One output bin (ph, pw) of plane xc: the average of its samples, or in max mode the largest
/// weighted corner value of any sample (ONNX Runtime's definition, which the spec follows).
template <typename T>
T roi_bin(const RoiAlignParams &p, const RoiBins &b, const T *xc, i64 ph, i64 pw) {
  double acc = 0;
  for (i64 iy = 0; iy < b.gh; ++iy)
    for (i64 ix = 0; ix < b.gw; ++ix) {
      const RoiSample s =
          roi_sample(p, b.y0 + double(ph) * b.bh + (double(iy) + 0.5) * b.bh / double(b.gh),
                     b.x0 + double(pw) * b.bw + (double(ix) + 0.5) * b.bw / double(b.gw));
      double v[4];
      for (int k = 0; k < 4; ++k)
        v[k] = s.w[k] * double(xc[s.pos[k]]);
      if (p.max_mode) {
        for (int k = 0; k < 4; ++k)
          acc = (k == 0 && iy == 0 && ix == 0) || v[k] > acc ? v[k] : acc;
      } else {
        acc += v[0] + v[1] + v[2] + v[3];
      }
    }
  const i64 count = b.gh * b.gw > 1 ? b.gh * b.gw : 1;
  return T(p.max_mode ? acc : acc / double(count));
}

template <typename T> int32_t roi_align(onnxc_rt *rt, void *const *t, const i64 *params) {
  const RoiAlignParams p = params_of<RoiAlignParams>(params);
  const T *x = static_cast<const T *>(t[0]), *rois = static_cast<const T *>(t[1]);
  const i64 *batch = static_cast<const i64 *>(t[2]);
  T *y = static_cast<T *>(t[3]);
  for (i64 r = 0; r < p.R; ++r)
    if (batch[r] < 0 || batch[r] >= p.N)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE,
                           "RoiAlign: a batch index is outside [0, N)");
  auto body = [&](i64 lo, i64 hi) {
    for (i64 rc = lo; rc < hi; ++rc) {
      const i64 r = rc / p.C, c = rc % p.C;
      const RoiBins b = roi_bins(p, rois + r * 4);
      const T *xc = x + (batch[r] * p.C + c) * p.H * p.W;
      for (i64 ph = 0; ph < p.out_h; ++ph)
        for (i64 pw = 0; pw < p.out_w; ++pw)
          y[(rc * p.out_h + ph) * p.out_w + pw] = roi_bin(p, b, xc, ph, pw);
    }
  };
  parallel_for(rt, p.R * p.C, 1, body);
  return 0;
}

template <typename T> int32_t max_unpool(onnxc_rt *rt, void *const *t, const i64 *params) {
  const MaxUnpoolParams p = params_of<MaxUnpoolParams>(params);
  const T *x = static_cast<const T *>(t[0]);
  const i64 *idx = static_cast<const i64 *>(t[1]);
  T *y = static_cast<T *>(t[2]);
  const i64 dplane = p.def[0] * p.def[1] * p.def[2], oplane = p.out[0] * p.out[1] * p.out[2];
  for (i64 i = 0; i < p.in_count; ++i)
    if (idx[i] < 0 || idx[i] >= p.planes * dplane)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE,
                           "MaxUnpool: an index is outside the unpooled tensor");
  for (i64 i = 0; i < p.planes * oplane; ++i)
    y[i] = T(0);
  for (i64 i = 0; i < p.in_count; ++i) {
    const i64 at = idx[i] % dplane, w = at % p.def[2], h = at / p.def[2] % p.def[1];
    const i64 d = at / (p.def[1] * p.def[2]);
    y[idx[i] / dplane * oplane + (d * p.out[1] + h) * p.out[2] + w] = x[i];
  }
  return 0;
}

template <typename T> int32_t col2im(onnxc_rt *rt, void *const *t, const i64 *params) {
  const Col2ImParams p = params_of<Col2ImParams>(params);
  const WindowGeom &g = p.w;
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  const i64 K = g.k_size(), L = g.out_size(), plane = g.in_size();
  auto body = [&](i64 lo, i64 hi) {
    for (i64 nc = lo; nc < hi; ++nc) {
      T *yp = y + nc * plane;
      for (i64 i = 0; i < plane; ++i)
        yp[i] = T(0);
      for (i64 kk = 0; kk < K; ++kk) {
        const i64 k[3] = {kk / (g.k[1] * g.k[2]), kk / g.k[2] % g.k[1], kk % g.k[2]};
        const T *xr = x + (nc * K + kk) * L;
        for (i64 l = 0; l < L; ++l) {
          const i64 o[3] = {l / (g.out[1] * g.out[2]), l / g.out[2] % g.out[1], l % g.out[2]};
          i64 at = 0;
          bool inside = true;
          for (int d = 0; d < 3; ++d) {
            const i64 c = o[d] * g.s[d] - g.p[d] + k[d] * g.d[d];
            inside = inside && c >= 0 && c < g.in[d];
            at = at * g.in[d] + c;
          }
          if (inside)
            yp[at] = T(yp[at] + xr[l]);
        }
      }
    }
  };
  parallel_for(rt, p.N * p.C, 1, body);
  return 0;
}

template <typename T> int32_t max_unpool_rt(onnxc_rt *rt, void *const *t, const i64 *params) {
  MaxUnpoolRtParams q = params_of<MaxUnpoolRtParams>(params);
  const int64_t *shape = static_cast<const int64_t *>(t[2]);
  if (shape[0] != q.n || shape[1] != q.c)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                         "MaxUnpool: output_shape must start with X's N and C");
  const i64 lead = 5 - q.rank;
  i64 bytes = q.p.planes * i64(sizeof(T));
  for (i64 d = 0; d < 3; ++d) {
    if (d >= lead) {
      q.p.out[d] = shape[d - lead + 2];
      if (q.p.out[d] < q.p.def[d] || q.p.out[d] > (i64(1) << 40))
        return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                             "MaxUnpool: output_shape is smaller than the default output shape "
                             "(or too large)");
    }
    if (__builtin_mul_overflow(bytes, q.p.out[d], &bytes))
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "MaxUnpool: output_shape is too large");
  }
  void *y = onnxc_rt_output_buffer(rt, t[3], uint64_t(bytes));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  void *io[3] = {t[0], t[1], y};
  i64 raw[sizeof(MaxUnpoolParams) / sizeof(i64)];
  __builtin_memcpy(raw, &q.p, sizeof q.p);
  const int32_t st = max_unpool<T>(rt, io, raw);
  onnxc_rt_set_shape(rt, t[3], static_cast<int32_t>(q.rank), shape);
  return st;
}

template <typename T> int32_t col2im_rt(onnxc_rt *rt, void *const *t, const i64 *params) {
  Col2ImRtParams q = params_of<Col2ImRtParams>(params);
  const int64_t *image = static_cast<const int64_t *>(t[1]);
  const int64_t *block = static_cast<const int64_t *>(t[2]);
  WindowGeom &g = q.w;
  const i64 lead = 3 - q.spatial;
  for (i64 d = lead; d < 3; ++d) {
    g.in[d] = image[d - lead];
    g.k[d] = block[d - lead];
    const i64 span = (g.k[d] - 1) * g.d[d] + 1;
    if (g.in[d] < 1 || g.k[d] < 1 || g.in[d] > (i64(1) << 31) || g.k[d] > (i64(1) << 31) ||
        g.in[d] + g.p[d] + g.p_end[d] < span)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "Col2Im: image_shape and block_shape must be positive, with each "
                           "block within the padded image");
    g.out[d] = (g.in[d] + g.p[d] + g.p_end[d] - span) / g.s[d] + 1;
  }
  const i64 K = g.k_size();
  if (q.CK % K != 0 || g.out_size() != q.L)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                         "Col2Im: the input's shape [N, C * prod(block_shape), L] does not match "
                         "block_shape and the number of blocks image_shape gives");
  Col2ImParams p{q.N, q.CK / K, g};
  i64 bytes = i64(sizeof(T)) * p.N * p.C;
  if (__builtin_mul_overflow(bytes, g.in_size(), &bytes))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "Col2Im: image_shape is too large");
  void *y = onnxc_rt_output_buffer(rt, t[3], uint64_t(bytes));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  void *io[2] = {t[0], y};
  i64 raw[sizeof(Col2ImParams) / sizeof(i64)];
  __builtin_memcpy(raw, &p, sizeof p);
  const int32_t st = col2im<T>(rt, io, raw);
  i64 shape[5] = {p.N, p.C, 0, 0, 0};
  for (i64 d = 0; d < q.spatial; ++d)
    shape[2 + d] = image[d];
  onnxc_rt_set_shape(rt, t[3], static_cast<int32_t>(2 + q.spatial), shape);
  return st;
}

/// Bilinear sample of plane x (h x w) at (y, xx); positions outside contribute zeros.
template <typename T> double bilinear_zero(const T *x, i64 h, i64 w, double y, double xx) {
  const double fy = __builtin_floor(y), fx = __builtin_floor(xx);
  const i64 y0 = static_cast<i64>(fy), x0 = static_cast<i64>(fx);
  const double ly = y - fy, lx = xx - fx;
  double v = 0;
  for (i64 dy = 0; dy < 2; ++dy)
    for (i64 dx = 0; dx < 2; ++dx) {
      const i64 yy = y0 + dy, xq = x0 + dx;
      if (yy >= 0 && yy < h && xq >= 0 && xq < w)
        v += (dy ? ly : 1 - ly) * (dx ? lx : 1 - lx) * double(x[yy * w + xq]);
    }
  return v;
}

template <typename T> int32_t deform_conv(onnxc_rt *rt, void *const *t, const i64 *params) {
  const DeformConvParams p = params_of<DeformConvParams>(params);
  const T *x = static_cast<const T *>(t[0]), *w = static_cast<const T *>(t[1]);
  const T *offset = static_cast<const T *>(t[2]), *bias = static_cast<const T *>(t[3]);
  const T *mask = static_cast<const T *>(t[4]);
  T *y = static_cast<T *>(t[5]);
  const i64 K = p.kh * p.kw, P = p.oh * p.ow, cg = p.C / p.G, mg = p.M / p.G, cog = p.C / p.OG;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const i64 n = r / (p.M * P), m = r / P % p.M, at = r % P, i = at / p.ow, j = at % p.ow;
      double acc = bias ? double(bias[m]) : 0.0;
      for (i64 cc = 0; cc < cg; ++cc) {
        const i64 c = (m / mg) * cg + cc, og = c / cog;
        const T *xc = x + (n * p.C + c) * p.H * p.W;
        for (i64 k = 0; k < K; ++k) {
          const T *off = offset + ((n * p.OG + og) * K + k) * 2 * P + at;
          const double yy = double(i * p.sh - p.ph + (k / p.kw) * p.dh) + double(off[0]);
          const double xx = double(j * p.sw - p.pw + (k % p.kw) * p.dw) + double(off[P]);
          double v = bilinear_zero(xc, p.H, p.W, yy, xx);
          if (mask)
            v *= double(mask[((n * p.OG + og) * K + k) * P + at]);
          acc += double(w[(m * cg + cc) * K + k]) * v;
        }
      }
      y[r] = T(acc);
    }
  };
  parallel_for(rt, p.N * p.M * P, 1 + 4096 / (cg * K + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_SPATIAL_FLOAT_KERNELS(ct, sfx, unused)                                               \
  extern "C" int32_t onnxc_k_roi_align_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {     \
    return onnxc_k::roi_align<ct>(rt, t, p);                                                       \
  }                                                                                                \
  extern "C" int32_t onnxc_k_deform_conv_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {   \
    return onnxc_k::deform_conv<ct>(rt, t, p);                                                     \
  }
ONNXC_FLOAT_TYPES(ONNXC_SPATIAL_FLOAT_KERNELS, 0)

#define ONNXC_SPATIAL_NUMERIC_KERNELS(ct, sfx, unused)                                             \
  extern "C" int32_t onnxc_k_max_unpool_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {    \
    return onnxc_k::max_unpool<ct>(rt, t, p);                                                      \
  }                                                                                                \
  extern "C" int32_t onnxc_k_col2im_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return onnxc_k::col2im<ct>(rt, t, p);                                                          \
  }                                                                                                \
  extern "C" int32_t onnxc_k_col2im_rt_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {     \
    return onnxc_k::col2im_rt<ct>(rt, t, p);                                                       \
  }                                                                                                \
  extern "C" int32_t onnxc_k_max_unpool_rt_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) { \
    return onnxc_k::max_unpool_rt<ct>(rt, t, p);                                                   \
  }
ONNXC_NUMERIC_TYPES(ONNXC_SPATIAL_NUMERIC_KERNELS, 0)
