/* Strided copy (Slice): y[c] = x[base + sum_d c[d] * stride[d]] for every output coordinate c.
 * Strides are in elements and may be negative (negative Slice steps).
 * params {elem_bytes, rank, base, out_dims[rank], in_strides[rank]}; tensors {x, y}. */
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;

template <typename E>
void strided(onnxc_rt *rt, const E *x, E *y, i64 rank, i64 base, const i64 *dims,
             const i64 *strides) {
  i64 inner = rank ? dims[rank - 1] : 1, is = rank ? strides[rank - 1] : 1, outer = 1;
  for (i64 d = 0; d + 1 < rank; ++d)
    outer *= dims[d];
  if (inner == 0)
    return;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, off = base;
      for (i64 d = rank - 2; d >= 0; --d) {
        off += (rem % dims[d]) * strides[d];
        rem /= dims[d];
      }
      E *py = y + o * inner;
      for (i64 i = 0; i < inner; ++i)
        py[i] = x[off + i * is];
    }
  };
  i64 grain = inner >= 16384 ? 1 : 16384 / inner;
  onnxc_k::parallel_for(rt, outer, grain, body);
}
} // namespace

extern "C" int32_t onnxc_k_strided_copy(onnxc_rt *rt, void *const *t, const int64_t *p) {
  const i64 esize = p[0], rank = p[1], base = p[2];
  const i64 *dims = p + 3, *strides = p + 3 + rank;
  switch (esize) {
  case 1: strided(rt, (const unsigned char *)t[0], (unsigned char *)t[1], rank, base, dims, strides); break;
  case 2: strided(rt, (const unsigned short *)t[0], (unsigned short *)t[1], rank, base, dims, strides); break;
  case 4: strided(rt, (const unsigned int *)t[0], (unsigned int *)t[1], rank, base, dims, strides); break;
  case 8: strided(rt, (const unsigned long long *)t[0], (unsigned long long *)t[1], rank, base, dims, strides); break;
  default: return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "slice: unsupported element size");
  }
  return 0;
}
