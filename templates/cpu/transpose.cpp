/* Transpose of any dtype, by element size.
 * params {elem_bytes, rank, out_dims[rank], in_strides_permuted[rank]} where
 * in_strides_permuted[k] is the input stride (in elements) of the input axis perm[k].
 * tensors {x, y}. */
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;

template <typename E> void transpose(onnxc_rt *rt, const E *x, E *y, i64 rank, const i64 *dims,
                                     const i64 *strides) {
  i64 inner = rank ? dims[rank - 1] : 1, is = rank ? strides[rank - 1] : 1, outer = 1;
  for (i64 d = 0; d + 1 < rank; ++d)
    outer *= dims[d];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, off = 0;
      for (i64 d = rank - 2; d >= 0; --d) {
        off += (rem % dims[d]) * strides[d];
        rem /= dims[d];
      }
      E *py = y + o * inner;
      for (i64 i = 0; i < inner; ++i)
        py[i] = x[off + i * is];
    }
  };
  onnxc_k::parallel_for(rt, outer, 64, body);
}
} // namespace

extern "C" int32_t onnxc_k_transpose(onnxc_rt *rt, void *const *t, const int64_t *p) {
  const i64 esize = p[0], rank = p[1];
  const i64 *dims = p + 2, *strides = p + 2 + rank;
  switch (esize) {
  case 1: transpose(rt, (const unsigned char *)t[0], (unsigned char *)t[1], rank, dims, strides); break;
  case 2: transpose(rt, (const unsigned short *)t[0], (unsigned short *)t[1], rank, dims, strides); break;
  case 4: transpose(rt, (const unsigned int *)t[0], (unsigned int *)t[1], rank, dims, strides); break;
  case 8: transpose(rt, (const unsigned long long *)t[0], (unsigned long long *)t[1], rank, dims, strides); break;
  default: return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "transpose: unsupported element size");
  }
  return 0;
}
