/* Concat and Split: copies of contiguous blocks along one axis, by element size.
 * A tensor of shape [outer, axis, inner] is seen as `outer` rows of axis*inner elements.
 * Concat params {elem_bytes, outer, k, row[k]}; tensors {x0..x(k-1), y}; y's row = sum(row).
 * Split  params {elem_bytes, outer, k, row[k]}; tensors {x, y0..y(k-1)}; x's row = sum(row). */
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;

/* Copies row blocks between one joined tensor and k parts; `join` true: parts → whole. */
int32_t blocks(onnxc_rt *rt, void *const *t, const i64 *p, bool join) {
  const i64 esize = p[0], outer = p[1], k = p[2];
  const i64 *rows = p + 3;
  i64 total = 0;
  for (i64 j = 0; j < k; ++j)
    total += rows[j] * esize;
  unsigned char *whole = static_cast<unsigned char *>(join ? t[k] : t[0]);
  void *const *parts = join ? t : t + 1;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      unsigned char *w = whole + o * total;
      for (i64 j = 0; j < k; ++j) {
        i64 nb = rows[j] * esize;
        if (nb > 0 && parts[j]) { /* an unused Split output may be omitted */
          unsigned char *part = static_cast<unsigned char *>(parts[j]) + o * nb;
          __builtin_memcpy(join ? w : part, join ? part : w, static_cast<size_t>(nb));
        }
        w += nb;
      }
    }
  };
  i64 grain = total >= 65536 ? 1 : 65536 / (total ? total : 1);
  onnxc_k::parallel_for(rt, outer, grain, body);
  return 0;
}
} // namespace

extern "C" int32_t onnxc_k_concat(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return blocks(rt, t, p, true);
}

extern "C" int32_t onnxc_k_split(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return blocks(rt, t, p, false);
}
