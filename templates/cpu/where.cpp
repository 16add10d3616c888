/* Where (by element size) and Clip (per numeric dtype).
 * Where params {elem_bytes, rank, out_dims[rank], cond_strides[rank], x_strides[rank],
 *       y_strides[rank]} (stride 0 broadcasts); tensors {cond (bool), x, y, out}.
 * Clip  params {count, has_min, min (f64 bits), has_max, max (f64 bits)}; tensors
 *       {x, min?, max?, y}: a bound tensor (one element) wins over the parameter. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"

namespace {
using onnxc_k::i64;

template <typename E> void where(onnxc_rt *rt, void *const *t, const i64 *p) {
  const bool *c = static_cast<const bool *>(t[0]);
  const E *a = static_cast<const E *>(t[1]), *b = static_cast<const E *>(t[2]);
  E *y = static_cast<E *>(t[3]);
  const i64 rank = p[1];
  const i64 *dims = p + 2, *sc = dims + rank, *sa = sc + rank, *sb = sa + rank;
  i64 inner = rank ? dims[rank - 1] : 1, outer = 1;
  for (i64 d = 0; d + 1 < rank; ++d)
    outer *= dims[d];
  const i64 ic = rank ? sc[rank - 1] : 0, ia = rank ? sa[rank - 1] : 0, ib = rank ? sb[rank - 1] : 0;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, oc = 0, oa = 0, ob = 0;
      for (i64 d = rank - 2; d >= 0; --d) {
        i64 k = rem % dims[d];
        rem /= dims[d];
        oc += k * sc[d];
        oa += k * sa[d];
        ob += k * sb[d];
      }
      E *py = y + o * inner;
      for (i64 i = 0; i < inner; ++i)
        py[i] = c[oc + i * ic] ? a[oa + i * ia] : b[ob + i * ib];
    }
  };
  i64 grain = inner >= 16384 ? 1 : 16384 / (inner ? inner : 1);
  onnxc_k::parallel_for(rt, outer, grain, body);
}

template <typename T> int32_t clip(onnxc_rt *rt, void *const *t, const i64 *p) {
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[3]);
  const bool has_lo = t[1] || p[1], has_hi = t[2] || p[3];
  const T lo = t[1] ? *static_cast<const T *>(t[1]) : T(onnxc_k::param_f64(p, 2));
  const T hi = t[2] ? *static_cast<const T *>(t[2]) : T(onnxc_k::param_f64(p, 4));
  auto body = [&](i64 b, i64 e) {
    for (i64 i = b; i < e; ++i) {
      T v = x[i];
      if (has_lo && v < lo)
        v = lo;
      if (has_hi && v > hi)
        v = hi;
      y[i] = v;
    }
  };
  onnxc_k::parallel_for(rt, p[0], 16384, body);
  return 0;
}
} // namespace

extern "C" int32_t onnxc_k_where(onnxc_rt *rt, void *const *t, const int64_t *p) {
  switch (p[0]) {
  case 1: where<unsigned char>(rt, t, p); break;
  case 2: where<unsigned short>(rt, t, p); break;
  case 4: where<unsigned int>(rt, t, p); break;
  case 8: where<unsigned long long>(rt, t, p); break;
  default: return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "where: unsupported element size");
  }
  return 0;
}

#define ONNXC_CLIP_KERNEL(ct, sfx, unused)                                                         \
  extern "C" int32_t onnxc_k_clip_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {         \
    return clip<ct>(rt, t, p);                                                                     \
  }
ONNXC_NUMERIC_TYPES(ONNXC_CLIP_KERNEL, 0)
