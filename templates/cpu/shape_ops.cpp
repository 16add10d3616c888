/* Kernels for ops whose output is known at compile time or is a plain copy plus a constant:
 * Shape, Size, Constant, Range (write_bytes), ConstantOfShape (fill) and Dropout (copy + mask). */
#include "templates/cpu/kernel_abi.h"

using onnxc_k::i64;

/* params {nbytes, words[(nbytes + 7) / 8]} (the bytes packed little-endian); tensors {y}. */
extern "C" int32_t onnxc_k_write_bytes(onnxc_rt *, void *const *t, const int64_t *p) {
  if (p[0] > 0)
    __builtin_memcpy(t[0], p + 1, static_cast<size_t>(p[0]));
  return 0;
}

namespace {
template <typename E> void fill(onnxc_rt *rt, E *y, i64 count, i64 bits) {
  E v;
  __builtin_memcpy(&v, &bits, sizeof v); /* little-endian: the low bytes hold the element */
  auto body = [&](i64 lo, i64 hi) {
    for (i64 i = lo; i < hi; ++i)
      y[i] = v;
  };
  onnxc_k::parallel_for(rt, count, 65536, body);
}

int32_t fill_any(onnxc_rt *rt, void *y, i64 count, i64 esize, i64 bits) {
  switch (esize) {
  case 1: fill(rt, static_cast<unsigned char *>(y), count, bits); break;
  case 2: fill(rt, static_cast<unsigned short *>(y), count, bits); break;
  case 4: fill(rt, static_cast<unsigned int *>(y), count, bits); break;
  case 8: fill(rt, static_cast<unsigned long long *>(y), count, bits); break;
  default: return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "fill: unsupported element size");
  }
  return 0;
}
} // namespace

/* params {count, elem_bytes, value bits}; tensors {y}. */
extern "C" int32_t onnxc_k_fill(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return fill_any(rt, t[0], p[0], p[1], p[2]);
}

/* Dropout at inference: y = x, mask (if present) all "true".
 * params {nbytes of x, mask count, mask elem_bytes, mask value bits}; tensors {x, y, mask?}. */
extern "C" int32_t onnxc_k_dropout(onnxc_rt *rt, void *const *t, const int64_t *p) {
  if (t[0] != t[1] && p[0] > 0)
    __builtin_memmove(t[1], t[0], static_cast<size_t>(p[0]));
  return t[2] ? fill_any(rt, t[2], p[1], p[2], p[3]) : 0;
}
