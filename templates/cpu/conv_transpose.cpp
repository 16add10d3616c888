/* ConvTranspose (1-D to 3-D, grouped). Each work item owns one output plane (n, m): it starts
 * from the bias and, for every input channel of m's group and every kernel tap, adds the scaled
 * input row at output positions i*stride - pad + k*dilation (a strided axpy per input row).
 * params {N, C, M, group, has_bias, in[3], out[3], k[3], stride[3], pad_begin[3], dilation[3]}
 *        (leading spatial dims padded with 1, pads with 0)
 * tensors {X [N,C,in], W [C, M/group, k], B [M] (may be null), Y [N,M,out]}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

struct CtGeom {
  i64 N, C, M, G, has_bias;
  i64 in[3], out[3], k[3], s[3], p[3], d[3];
};

CtGeom read_geom(const i64 *p) {
  CtGeom g;
  g.N = p[0], g.C = p[1], g.M = p[2], g.G = p[3], g.has_bias = p[4];
  for (int i = 0; i < 3; ++i) {
    g.in[i] = p[5 + i], g.out[i] = p[8 + i], g.k[i] = p[11 + i];
    g.s[i] = p[14 + i], g.p[i] = p[17 + i], g.d[i] = p[20 + i];
  }
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

template <typename T>
void conv_transpose(onnxc_rt *rt, const CtGeom &g, const T *x, const T *w, const T *bias, T *y) {
  const i64 Cg = g.C / g.G, Mg = g.M / g.G;
  const i64 ks = g.k[0] * g.k[1] * g.k[2];
  const i64 isz = g.in[0] * g.in[1] * g.in[2], osz = g.out[0] * g.out[1] * g.out[2];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 plane = lo; plane < hi; ++plane) {
      const i64 n = plane / g.M, m = plane % g.M, grp = m / Mg, ml = m % Mg;
      T *yp = y + plane * osz;
      const T b0 = bias ? bias[m] : T(0);
      for (i64 o = 0; o < osz; ++o)
        yp[o] = b0;
      for (i64 cl = 0; cl < Cg; ++cl) {
        const i64 c = grp * Cg + cl;
        const T *xp = x + (n * g.C + c) * isz, *wp = w + (c * Mg + ml) * ks;
        for (i64 kd = 0; kd < g.k[0]; ++kd)
          for (i64 kh = 0; kh < g.k[1]; ++kh)
            for (i64 kw = 0; kw < g.k[2]; ++kw) {
              const T wv = wp[(kd * g.k[1] + kh) * g.k[2] + kw];
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
                  const T *xr = xp + (id * g.in[1] + ih) * g.in[2];
                  T *yr = yp + (od * g.out[1] + oh) * g.out[2] + offw;
                  for (i64 iw = w0; iw < w1; ++iw)
                    yr[iw * g.s[2]] += wv * xr[iw];
                }
              }
            }
      }
    }
  };
  parallel_for(rt, g.N * g.M, 1, body);
}

template <typename T> int32_t conv_transpose_kernel(onnxc_rt *rt, void *const *t, const i64 *p) {
  const CtGeom g = read_geom(p);
  conv_transpose(rt, g, static_cast<const T *>(t[0]), static_cast<const T *>(t[1]),
                 g.has_bias ? static_cast<const T *>(t[2]) : nullptr, static_cast<T *>(t[3]));
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
