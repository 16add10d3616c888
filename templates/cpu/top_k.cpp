/* TopK along one axis: a bounded heap per row, kept in the row's Indices output (so no scratch),
 * then sorted best first. Ties keep the lower index first. Parameters: misc_params.h. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/misc_params.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

/// A row of the [outer, len, inner] view: element j is at x[j * inner].
template <typename T> struct TopKRow {
  const T *x;
  i64 *h; ///< heap slot j is h[j * inner]
  i64 inner;
  bool largest;
  /// True if element a ranks before element b.
  bool better(i64 a, i64 b) const {
    const T va = x[a * inner], vb = x[b * inner];
    if (va != vb)
      return largest ? va > vb : va < vb;
    return a < b;
  }
  i64 &slot(i64 j) const { return h[j * inner]; }
  /// Restores the heap (worst element at the root) below slot j, for the first n slots.
  void sift_down(i64 j, i64 n) const {
    for (;;) {
      i64 w = j;
      const i64 l = 2 * j + 1, r = l + 1;
      if (l < n && better(slot(w), slot(l)))
        w = l;
      if (r < n && better(slot(w), slot(r)))
        w = r;
      if (w == j)
        return;
      const i64 tmp = slot(j);
      slot(j) = slot(w), slot(w) = tmp;
      j = w;
    }
  }
};

template <typename T> int32_t top_k(onnxc_rt *rt, void *const *t, const i64 *params) {
  TopKParams p = params_of<TopKParams>(params);
  const T *x = static_cast<const T *>(t[0]);
  T *values = static_cast<T *>(t[1]);
  if (p.k_symbol >= 0) { /* K computed at run time: the run-time count */
    const i64 k = *static_cast<const int64_t *>(t[3]);
    if (k < 0 || k > p.len)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "K is outside [0, the size of the axis]");
    p.k = k;
    onnxc_rt_set_count(rt, p.k_symbol, k);
  }
  if (p.k == 0) // empty outputs (and no scratch when Indices is unused)
    return 0;
  i64 *indices = static_cast<i64 *>(t[2] ? t[2] : t[4]); // unused Indices: scratch
  auto body = [&](i64 lo, i64 hi) {
    for (i64 r = lo; r < hi; ++r) {
      const i64 o = r / p.inner, in = r % p.inner;
      const TopKRow<T> row{x + o * p.len * p.inner + in, indices + o * p.k * p.inner + in, p.inner,
                           p.largest != 0};
      for (i64 j = 0; j < p.len; ++j) {
        if (j < p.k) {
          row.slot(j) = j;
          for (i64 c = j; c > 0 && row.better((row.slot((c - 1) / 2)), row.slot(c));
               c = (c - 1) / 2) {
            const i64 tmp = row.slot(c);
            row.slot(c) = row.slot((c - 1) / 2), row.slot((c - 1) / 2) = tmp;
          }
        } else if (row.better(j, row.slot(0))) {
          row.slot(0) = j;
          row.sift_down(0, p.k);
        }
      }
      for (i64 end = p.k - 1; end > 0; --end) { // worst to the back: best first
        const i64 tmp = row.slot(0);
        row.slot(0) = row.slot(end), row.slot(end) = tmp;
        row.sift_down(0, end);
      }
      for (i64 j = 0; j < p.k; ++j)
        values[(o * p.k + j) * p.inner + in] = row.x[row.slot(j) * p.inner];
    }
  };
  parallel_for(rt, p.outer * p.inner, 1 + 4096 / (p.len + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_TOP_K_KERNEL(ct, sfx, unused)                                                        \
  extern "C" int32_t onnxc_k_top_k_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {         \
    return onnxc_k::top_k<ct>(rt, t, p);                                                           \
  }
ONNXC_NUMERIC_TYPES(ONNXC_TOP_K_KERNEL, 0)
