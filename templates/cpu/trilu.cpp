/* Trilu. params {elem_bytes, batch, rows, cols, k, upper, k_at_run_time}; tensors {X, Y, K}:
 * element (i, j) of each rows x cols matrix is kept if j - i >= k (upper) or j - i <= k
 * (lower), else zero. With k_at_run_time, k is K's int64 value (K is null otherwise). */
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;

template <typename E>
void trilu(onnxc_rt *rt, const E *x, E *y, const int64_t *k_tensor, const i64 *p) {
  const i64 rows = p[2], cols = p[3];
  i64 k = p[4];
  if (p[6]) { /* k given at run time, clamped so that j - i arithmetic cannot overflow */
    k = *k_tensor;
    k = k < -rows - 1 ? -rows - 1 : k > cols + 1 ? cols + 1 : k;
  }
  const bool upper = p[5] != 0;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const i64 i = r % rows;
      const E *xr = x + r * cols;
      E *yr = y + r * cols;
      for (i64 j = 0; j < cols; ++j)
        yr[j] = (upper ? j - i >= k : j - i <= k) ? xr[j] : E(0);
    }
  };
  onnxc_k::parallel_for(rt, p[1] * rows, 1 + 16384 / (cols ? cols : 1), body);
}
} // namespace

extern "C" int32_t onnxc_k_trilu(onnxc_rt *rt, void *const *t, const int64_t *p) {
  const int64_t *k = static_cast<const int64_t *>(t[2]);
  switch (p[0]) {
  case 1:
    trilu(rt, (const unsigned char *)t[0], (unsigned char *)t[1], k, p);
    break;
  case 2:
    trilu(rt, (const unsigned short *)t[0], (unsigned short *)t[1], k, p);
    break;
  case 4:
    trilu(rt, (const unsigned int *)t[0], (unsigned int *)t[1], k, p);
    break;
  case 8:
    trilu(rt, (const unsigned long long *)t[0], (unsigned long long *)t[1], k, p);
    break;
  default:
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "trilu: unsupported element size");
  }
  return 0;
}
