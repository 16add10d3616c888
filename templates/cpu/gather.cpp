/* Gather and GatherElements, by element size, with int32 or int64 indices. Negative indices count
 * from the end; any index outside [-len, len) fails with ONNXC_STATUS_INDEX_OUT_OF_RANGE before
 * anything is read.
 * Gather         params {elem_bytes, idx_bytes, outer, axis_len, inner, nidx};
 *                tensors {data, indices, y}; y is [outer, nidx, inner].
 * GatherElements params {elem_bytes, idx_bytes, rank, axis, axis_len, idx_dims[rank],
 *                data_strides[rank]}; tensors {data, indices, y}; y has the indices' shape. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"

namespace {
using onnxc_k::i64;

using onnxc_k::index_at;

/* True if every index is in [-len, len). */
bool indices_valid(const void *idx, i64 idx_bytes, i64 count, i64 len) {
  for (i64 i = 0; i < count; ++i) {
    i64 v = index_at(idx, idx_bytes, i);
    if (v < -len || v >= len)
      return false;
  }
  return true;
}

inline i64 wrap(i64 v, i64 len) { return v < 0 ? v + len : v; }

template <typename E>
void gather(onnxc_rt *rt, const E *x, const void *idx, E *y, const i64 *p) {
  const i64 ib = p[1], outer = p[2], len = p[3], inner = p[4], nidx = p[5];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      i64 o = r / nidx, j = r % nidx;
      const E *src = x + (o * len + wrap(index_at(idx, ib, j), len)) * inner;
      E *dst = y + r * inner;
      for (i64 i = 0; i < inner; ++i)
        dst[i] = src[i];
    }
  };
  i64 grain = inner >= 16384 ? 1 : 16384 / (inner ? inner : 1);
  onnxc_k::parallel_for(rt, outer * nidx, grain, body);
}

template <typename E>
void gather_elements(onnxc_rt *rt, const E *x, const void *idx, E *y, const i64 *p) {
  const i64 ib = p[1], rank = p[2], axis = p[3], len = p[4];
  const i64 *dims = p + 5, *strides = p + 5 + rank;
  i64 count = 1;
  for (i64 d = 0; d < rank; ++d)
    count *= dims[d];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 e = lo; e < hi; ++e) {
      i64 rem = e, off = 0;
      for (i64 d = rank - 1; d >= 0; --d) {
        i64 c = rem % dims[d];
        rem /= dims[d];
        off += (d == axis ? wrap(index_at(idx, ib, e), len) : c) * strides[d];
      }
      y[e] = x[off];
    }
  };
  onnxc_k::parallel_for(rt, count, 16384, body);
}

#define ONNXC_GATHER_DISPATCH(fn)                                                                  \
  switch (p[0]) {                                                                                  \
  case 1: fn(rt, (const unsigned char *)t[0], t[1], (unsigned char *)t[2], p); break;              \
  case 2: fn(rt, (const unsigned short *)t[0], t[1], (unsigned short *)t[2], p); break;            \
  case 4: fn(rt, (const unsigned int *)t[0], t[1], (unsigned int *)t[2], p); break;                \
  case 8: fn(rt, (const unsigned long long *)t[0], t[1], (unsigned long long *)t[2], p); break;    \
  default: return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "gather: unsupported element size"); \
  }
} // namespace

extern "C" int32_t onnxc_k_gather(onnxc_rt *rt, void *const *t, const int64_t *p) {
  if (!indices_valid(t[1], p[1], p[5], p[3]))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE, "Gather: index out of range");
  ONNXC_GATHER_DISPATCH(gather)
  return 0;
}

extern "C" int32_t onnxc_k_gather_elements(onnxc_rt *rt, void *const *t, const int64_t *p) {
  i64 count = 1;
  for (i64 d = 0; d < p[2]; ++d)
    count *= p[5 + d];
  if (!indices_valid(t[1], p[1], count, p[4]))
    return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE, "GatherElements: index out of range");
  ONNXC_GATHER_DISPATCH(gather_elements)
  return 0;
}
