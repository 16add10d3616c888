/* GatherND. params {elem_bytes, idx_bytes, batch, nidx, q, inner, batch_elems, dims[q],
 * strides[q]}; tensors {data [batch, ...], indices [batch, nidx, q], Y [batch, nidx, inner]}.
 * Every index is checked (in [-dim, dim)) before anything is read or written. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"

namespace {
using onnxc_k::i64;

using onnxc_k::index_at;

template <typename E> void gather_nd(onnxc_rt *rt, const E *x, const void *idx, E *y, const i64 *p) {
  const i64 ib = p[1], nidx = p[3], q = p[4], inner = p[5], bsz = p[6];
  const i64 *dims = p + 7, *strides = p + 7 + q;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const i64 b = r / nidx;
      i64 off = b * bsz;
      for (i64 k = 0; k < q; ++k) {
        i64 v = index_at(idx, ib, r * q + k);
        off += (v < 0 ? v + dims[k] : v) * strides[k];
      }
      const E *src = x + off;
      E *dst = y + r * inner;
      for (i64 i = 0; i < inner; ++i)
        dst[i] = src[i];
    }
  };
  onnxc_k::parallel_for(rt, p[2] * nidx, 1 + 16384 / (inner ? inner : 1), body);
}
} // namespace

extern "C" int32_t onnxc_k_gather_nd(onnxc_rt *rt, void *const *t, const int64_t *p) {
  const i64 count = p[2] * p[3], q = p[4];
  for (i64 i = 0; i < count * q; ++i) {
    const i64 v = index_at(t[1], p[1], i), len = p[7 + i % q];
    if (v < -len || v >= len)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE, "GatherND: index out of range");
  }
  switch (p[0]) {
  case 1: gather_nd(rt, (const unsigned char *)t[0], t[1], (unsigned char *)t[2], p); break;
  case 2: gather_nd(rt, (const unsigned short *)t[0], t[1], (unsigned short *)t[2], p); break;
  case 4: gather_nd(rt, (const unsigned int *)t[0], t[1], (unsigned int *)t[2], p); break;
  case 8: gather_nd(rt, (const unsigned long long *)t[0], t[1], (unsigned long long *)t[2], p); break;
  default: return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "gather_nd: unsupported element size");
  }
  return 0;
}
