/* ConvTranspose (1-D to 3-D, grouped) as a GEMM and a col2im, per image and group:
 *   cols = W_g^T X_g        (Mg * kernel-size rows x in-size columns: every input pixel's
 *                            contribution to every output channel and tap; the GEMM of
 *                            nn_gemm.h on X_g packed as its B, W read with strides)
 *   Y[m] = bias[m] + sum over taps of cols rows (m, tap), added at the output positions
 *          i*stride - pad + k*dilation of their input pixels (col2im; one work item per
 *          output plane, so no two threads add into one element)
 * The packed B and cols live in the scratch (conv_transpose_params.h).
 * params {N, C, M, group, has_bias, in[3], out[3], k[3], stride[3], pad_begin[3], dilation[3],
 *         gemm tile rows (0: kMR)}  (leading spatial dims padded with 1, pads with 0)
 * tensors {X [N,C,in], W [C, M/group, k], B [M] (may be null), Y [N,M,out], scratch}. */
#include "templates/cpu/conv_transpose_params.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/nn_gemm.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

struct CtGeom {
  i64 N, C, M, G, has_bias;
  i64 in[3], out[3], k[3], s[3], p[3], d[3];
  i64 mr;
  i64 Cg() const { return C / G; }
  i64 Mg() const { return M / G; }
  i64 ks() const { return k[0] * k[1] * k[2]; }
  i64 isz() const { return in[0] * in[1] * in[2]; }
  i64 osz() const { return out[0] * out[1] * out[2]; }
};

inline CtGeom read_geom(const i64 *p) {
  CtGeom g;
  g.N = p[0], g.C = p[1], g.M = p[2], g.G = p[3], g.has_bias = p[4];
  for (int i = 0; i < 3; ++i) {
    g.in[i] = p[5 + i], g.out[i] = p[8 + i], g.k[i] = p[11 + i];
    g.s[i] = p[14 + i], g.p[i] = p[17 + i], g.d[i] = p[20 + i];
  }
  g.mr = p[23];
  return g;
}

/// Input index range [lo, hi) whose output coordinate i*s + off lies in [0, out).
inline void valid_inputs(i64 in, i64 out, i64 s, i64 off, i64 &lo, i64 &hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  const i64 b = out - 1 - off; /* need i*s <= b */
  hi = b < 0 ? 0 : b / s + 1;
  if (hi > in)
    hi = in;
  if (hi < lo)
    hi = lo;
}

/// Output plane ml of group grp of image n: the bias, then every tap's row of cols added at
/// its output positions.
template <typename T>
__attribute__((always_inline)) inline void col2im_plane(const CtGeom &g, const T *cols, i64 ml,
                                                        T b0, T *yp) {
  const i64 ks = g.ks(), isz = g.isz(), osz = g.osz();
  for (i64 o = 0; o < osz; ++o)
    yp[o] = b0;
  for (i64 kd = 0; kd < g.k[0]; ++kd)
    for (i64 kh = 0; kh < g.k[1]; ++kh)
      for (i64 kw = 0; kw < g.k[2]; ++kw) {
        const T *cr = cols + (ml * ks + (kd * g.k[1] + kh) * g.k[2] + kw) * isz;
        const i64 offw = kw * g.d[2] - g.p[2];
        i64 w0, w1;
        valid_inputs(g.in[2], g.out[2], g.s[2], offw, w0, w1);
        for (i64 id = 0; id < g.in[0]; ++id) {
          const i64 od = id * g.s[0] - g.p[0] + kd * g.d[0];
          if (od < 0 || od >= g.out[0])
            continue;
          for (i64 ih = 0; ih < g.in[1]; ++ih) {
            const i64 oh = ih * g.s[1] - g.p[1] + kh * g.d[1];
            if (oh < 0 || oh >= g.out[1])
              continue;
            const T *xr = cr + (id * g.in[1] + ih) * g.in[2];
            T *yr = yp + (od * g.out[1] + oh) * g.out[2] + offw;
            for (i64 iw = w0; iw < w1; ++iw)
              yr[iw * g.s[2]] += xr[iw];
          }
        }
      }
}

template <typename T>
__attribute__((always_inline)) inline void conv_transpose(onnxc_rt *rt, const i64 *params,
                                                          const T *x, const T *w, const T *bias,
                                                          T *y, T *scratch) {
  using namespace gemm;
  constexpr i64 NR = nr<T>();
  const CtGeom g = read_geom(params);
  T *packed = scratch, *cols = scratch + ct_cols_offset(g.Cg(), g.isz(), sizeof(T));
  for (i64 n = 0; n < g.N; ++n)
    for (i64 grp = 0; grp < g.G; ++grp) {
      const T *xg = x + (n * g.C + grp * g.Cg()) * g.isz();
      auto pack = [&](const i64 *pp, i64 lo, i64 hi) {
        const CtGeom q = read_geom(pp);
        const i64 K = q.Cg() > 0 ? q.Cg() : 1;
        for (i64 pn = lo; pn < hi; ++pn)
          pack_panel(packed + pn * K * NR, xg, q.Cg(), q.isz(), q.isz(), 1, pn);
      };
      parallel_for(rt, params, ceil_div(g.isz(), NR), 1 + 8192 / ((g.Cg() + 1) * NR), pack);
      auto problem = [&](const i64 *pp, i64) {
        const CtGeom q = read_geom(pp);
        const i64 rows = q.Mg() * q.ks();
        Problem<T> pr{rows, q.isz(), q.Cg(),  w + grp * q.Cg() * rows,
                      1,    rows,    packed,  nullptr,
                      0,    0,       cols,    q.isz(),
                      1,    T(1),    T(0),    nullptr,
                      0,    0,       Act<T>{}};
        pr.mr = q.mr > 0 ? q.mr : kMR;
        return pr;
      };
      run<T>(rt, params, 1, g.Mg() * g.ks(), g.isz(), true, problem);
      auto planes = [&](const i64 *pp, i64 lo, i64 hi) {
        const CtGeom q = read_geom(pp);
        for (i64 ml = lo; ml < hi; ++ml) {
          const i64 m = grp * q.Mg() + ml;
          col2im_plane(q, cols, ml, bias ? bias[m] : T(0), y + (n * q.M + m) * q.osz());
        }
      };
      parallel_for(rt, params, g.Mg(), 1 + 4096 / (g.osz() + 1), planes);
    }
}

template <typename T>
__attribute__((always_inline)) inline int32_t conv_transpose_kernel(onnxc_rt *rt, void *const *t,
                                                                    const i64 *p) {
  const CtGeom g = read_geom(p);
  conv_transpose(rt, p, static_cast<const T *>(t[0]), static_cast<const T *>(t[1]),
                 g.has_bias ? static_cast<const T *>(t[2]) : nullptr, static_cast<T *>(t[3]),
                 static_cast<T *>(t[4]));
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_CONV_TRANSPOSE_KERNEL(ct, sfx, unused)                                               \
  extern "C" int32_t onnxc_k_conv_transpose_##sfx(onnxc_rt *rt, void *const *t,                    \
                                                  const int64_t *p) {                              \
    return onnxc_k::conv_transpose_kernel<ct>(rt, t, p);                                           \
  }
ONNXC_FLOAT_TYPES(ONNXC_CONV_TRANSPOSE_KERNEL, 0)
