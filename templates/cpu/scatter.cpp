/* ScatterND and ScatterElements: Y = data, then each update is stored at (or combined with, by
 * reduction 1 add, 2 mul, 3 max, 4 min) its indexed position, in order. All indices are checked
 * first (in [-len, len)): an out-of-range one fails with INDEX_OUT_OF_RANGE and nothing is
 * written out of bounds.
 * scatter_nd       params {reduction, idx_bytes, count, nidx, q, inner, dims[q], strides[q]}
 * scatter_elements params {reduction, idx_bytes, count, rank, axis, axis_len, idx_dims[rank],
 *                          data_strides[rank]}
 * tensors {data, indices, updates, Y}; count = elements of data. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

using onnxc_k::index_at;

template <typename T> inline void combine(T &dst, T v, i64 reduction) {
  switch (reduction) {
  case 1: dst = T(dst + v); break;
  case 2: dst = T(dst * v); break;
  case 3: dst = v > dst ? v : dst; break;
  case 4: dst = v < dst ? v : dst; break;
  default: dst = v; break;
  }
}

template <typename T> void copy_data(const T *x, T *y, i64 count) {
  if (x != y)
    for (i64 i = 0; i < count; ++i)
      y[i] = x[i];
}

template <typename T> int32_t scatter_nd(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 red = p[0], ib = p[1], count = p[2], nidx = p[3], q = p[4], inner = p[5];
  const i64 *dims = p + 6, *strides = p + 6 + q;
  for (i64 i = 0; i < nidx * q; ++i) {
    const i64 v = index_at(t[1], ib, i), len = dims[i % q];
    if (v < -len || v >= len)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE, "ScatterND: index out of range");
  }
  const T *upd = static_cast<const T *>(t[2]);
  T *y = static_cast<T *>(t[3]);
  copy_data(static_cast<const T *>(t[0]), y, count);
  for (i64 r = 0; r < nidx; ++r) {
    i64 off = 0;
    for (i64 k = 0; k < q; ++k) {
      const i64 v = index_at(t[1], ib, r * q + k);
      off += (v < 0 ? v + dims[k] : v) * strides[k];
    }
    for (i64 i = 0; i < inner; ++i)
      combine(y[off + i], upd[r * inner + i], red);
  }
  return 0;
}

template <typename T> int32_t scatter_elements(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 red = p[0], ib = p[1], count = p[2], rank = p[3], axis = p[4], len = p[5];
  const i64 *dims = p + 6, *strides = p + 6 + rank;
  i64 n = 1;
  for (i64 d = 0; d < rank; ++d)
    n *= dims[d];
  for (i64 i = 0; i < n; ++i) {
    const i64 v = index_at(t[1], ib, i);
    if (v < -len || v >= len)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE,
                           "ScatterElements: index out of range");
  }
  const T *upd = static_cast<const T *>(t[2]);
  T *y = static_cast<T *>(t[3]);
  copy_data(static_cast<const T *>(t[0]), y, count);
  for (i64 e = 0; e < n; ++e) {
    i64 rem = e, off = 0;
    for (i64 d = rank - 1; d >= 0; --d) {
      const i64 c = rem % dims[d];
      rem /= dims[d];
      if (d == axis) {
        const i64 v = index_at(t[1], ib, e);
        off += (v < 0 ? v + len : v) * strides[d];
      } else {
        off += c * strides[d];
      }
    }
    combine(y[off], upd[e], red);
  }
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_SCATTER_KERNELS(ct, sfx, unused)                                                     \
  extern "C" int32_t onnxc_k_scatter_nd_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {    \
    return onnxc_k::scatter_nd<ct>(rt, t, p);                                                      \
  }                                                                                                \
  extern "C" int32_t onnxc_k_scatter_elements_##sfx(onnxc_rt *rt, void *const *t,                  \
                                                    const int64_t *p) {                            \
    return onnxc_k::scatter_elements<ct>(rt, t, p);                                                \
  }
ONNXC_NUMERIC_TYPES(ONNXC_SCATTER_KERNELS, 0)
