/* OneHot. params {value_bytes, index_kind (0 i32, 1 i64, 2 f32, 3 f64), outer, depth, inner};
 * tensors {indices [outer, inner], values [off, on], Y [outer, depth, inner]}.
 * Indices outside [-depth, depth) produce all-off vectors (ONNX semantics). */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/shaped_params.h"

namespace {
using onnxc_k::i64;

/// Index i as an integer; false if it is not representable (NaN, huge).
inline bool index_at(const void *idx, i64 kind, i64 i, i64 &v) {
  double d;
  switch (kind) {
  case 0:
    v = static_cast<const int32_t *>(idx)[i];
    return true;
  case 1:
    v = static_cast<const int64_t *>(idx)[i];
    return true;
  case 2:
    d = static_cast<const float *>(idx)[i];
    break;
  default:
    d = static_cast<const double *>(idx)[i];
    break;
  }
  if (!(d > -9e18 && d < 9e18))
    return false;
  v = static_cast<i64>(d); /* truncation, as a cast to int64 */
  return true;
}

template <typename E>
void one_hot(onnxc_rt *rt, const void *idx, const E *values, E *y, const i64 *p) {
  const i64 kind = p[1], outer = p[2], depth = p[3], inner = p[4];
  const E off = values[0], on = values[1];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      E *yo = y + o * depth * inner;
      for (i64 k = 0; k < depth * inner; ++k)
        yo[k] = off;
      for (i64 in = 0; in < inner; ++in) {
        i64 v;
        if (!index_at(idx, kind, o * inner + in, v) || v < -depth || v >= depth)
          continue;
        yo[(v < 0 ? v + depth : v) * inner + in] = on;
      }
    }
  };
  onnxc_k::parallel_for(rt, outer, 1 + 16384 / (depth * inner > 0 ? depth * inner : 1), body);
}
} // namespace

extern "C" int32_t onnxc_k_one_hot(onnxc_rt *rt, void *const *t, const int64_t *p) {
  switch (p[0]) {
  case 1:
    one_hot(rt, t[0], (const unsigned char *)t[1], (unsigned char *)t[2], p);
    break;
  case 2:
    one_hot(rt, t[0], (const unsigned short *)t[1], (unsigned short *)t[2], p);
    break;
  case 4:
    one_hot(rt, t[0], (const unsigned int *)t[1], (unsigned int *)t[2], p);
    break;
  case 8:
    one_hot(rt, t[0], (const unsigned long long *)t[1], (unsigned long long *)t[2], p);
    break;
  default:
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "one_hot: unsupported element size");
  }
  return 0;
}

extern "C" int32_t onnxc_k_one_hot_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::OneHotRtParams>(pp);
  i64 depth;
  if (!index_at(t[1], p.depth_kind, 0, depth) || depth < 1 || depth > (int64_t(1) << 40))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "depth must be a positive integer");
  i64 outer = 1, inner = 1, shape[9];
  for (i64 d = 0; d < p.rank; ++d) {
    (d < p.axis ? outer : inner) *= p.dims[d];
    shape[d < p.axis ? d : d + 1] = p.dims[d];
  }
  shape[p.axis] = depth;
  i64 numel;
  if (__builtin_mul_overflow(outer, depth, &numel) ||
      __builtin_mul_overflow(numel, inner, &numel) || numel > (int64_t(1) << 50))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "the output is too large");
  const uint64_t bytes = static_cast<uint64_t>(numel * p.value_bytes);
  void *y = onnxc_rt_output_buffer(rt, t[3], bytes);
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  const i64 q[5] = {p.value_bytes, p.index_kind, outer, depth, inner};
  void *io[3] = {t[0], t[2], y};
  const int32_t st = onnxc_k_one_hot(rt, io, q);
  onnxc_rt_set_shape(rt, t[3], static_cast<int32_t>(p.rank + 1), shape);
  return st;
}
