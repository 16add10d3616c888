/* Concat and Split: copies of contiguous blocks along one axis, by element size.
 * A tensor of shape [outer, axis, inner] is seen as `outer` rows of axis*inner elements.
 * Concat params {elem_bytes, outer, k, row[k]}; tensors {x0..x(k-1), y}; y's row = sum(row).
 * Split  params {elem_bytes, outer, k, row[k]}; tensors {x, y0..y(k-1)}; x's row = sum(row). */
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;

/// Bytes per work item at least: a joined row of one image (Concat along channels at batch 1:
/// one row of every channel) is split into segments of this many bytes or more, so that the
/// copy runs on every thread (it was one work item: U-Net's 96-channel 128x128 concat, 6 MB,
/// ran on one thread while the other waited).
constexpr i64 kSegmentBytes = 65536;
/// Segments per joined row at most.
constexpr i64 kMaxSegments = 64;

/* Copies row blocks between one joined tensor and k parts; `join` true: parts → whole. Work
   item w is segment w % segs of joined row w / segs: the bytes [begin, end) of that row, 64-byte
   aligned, from whichever parts they fall in. */
int32_t blocks(onnxc_rt *rt, void *const *t, const i64 *p, bool join) {
  const i64 esize = p[0], outer = p[1], k = p[2];
  const i64 *rows = p + 3;
  i64 total = 0;
  for (i64 j = 0; j < k; ++j)
    total += rows[j] * esize;
  unsigned char *whole = static_cast<unsigned char *>(join ? t[k] : t[0]);
  void *const *parts = join ? t : t + 1;
  i64 segs = total / kSegmentBytes;
  segs = segs < 1 ? 1 : segs > kMaxSegments ? kMaxSegments : segs;
  auto seg_begin = [&](i64 s) { return s == segs ? total : (total * s / segs) / 64 * 64; };
  auto body = [&](i64 lo, i64 hi) {
    for (i64 w = lo; w < hi; ++w) {
      const i64 o = w / segs, b0 = seg_begin(w % segs), b1 = seg_begin(w % segs + 1);
      unsigned char *row = whole + o * total;
      i64 at = 0; /* where part j starts in the joined row */
      for (i64 j = 0; j < k && at < b1; ++j) {
        const i64 nb = rows[j] * esize, c0 = at > b0 ? at : b0, c1 = at + nb < b1 ? at + nb : b1;
        if (c1 > c0 && parts[j]) { /* an unused Split output may be omitted */
          unsigned char *part = static_cast<unsigned char *>(parts[j]) + o * nb + (c0 - at);
          __builtin_memcpy(join ? row + c0 : part, join ? part : row + c0,
                           static_cast<size_t>(c1 - c0));
        }
        at += nb;
      }
    }
  };
  const i64 per_item = total / segs;
  const i64 grain = per_item >= kSegmentBytes ? 1 : kSegmentBytes / (per_item ? per_item : 1);
  onnxc_k::parallel_for(rt, outer * segs, grain, body);
  return 0;
}
} // namespace

extern "C" int32_t onnxc_k_concat(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return blocks(rt, t, p, true);
}

extern "C" int32_t onnxc_k_split(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return blocks(rt, t, p, false);
}
