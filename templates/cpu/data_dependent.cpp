/* Kernels of the ops that count at run time (count_params.h): NonZero, Compress, Unique and
 * NonMaxSuppression. Each writes its result for the count it finds and reports the count with
 * onnxc_rt_set_count; the code after it reads the count as the model's run-time extent. */
#include "templates/cpu/count_params.h"
#include "templates/cpu/kernel_abi.h"

namespace {
using onnxc_k::i64;

/// True if element i of x is not zero (NonZeroKind).
inline bool nonzero_at(const unsigned char *x, const onnxc_k::NonZeroParams &p, i64 i) {
  switch (p.kind) {
  case onnxc_k::kNonZeroF32: {
    float v;
    __builtin_memcpy(&v, x + i * 4, 4);
    return v != 0.0f;
  }
  case onnxc_k::kNonZeroF64: {
    double v;
    __builtin_memcpy(&v, x + i * 8, 8);
    return v != 0.0;
  }
  case onnxc_k::kNonZeroHalf: { /* float16 and bfloat16: zero iff every bit but the sign is 0 */
    unsigned short v;
    __builtin_memcpy(&v, x + i * 2, 2);
    return (v & 0x7fff) != 0;
  }
  default:
    for (i64 b = 0; b < p.elem_bytes; ++b)
      if (x[i * p.elem_bytes + b] != 0)
        return true;
    return false;
  }
}

/// Sorts the candidate indices a[0..n) by descending score, ties in their given order (merge
/// sort through tmp). Returns the buffer holding the result.
int32_t *sort_by_score(int32_t *a, int32_t *tmp, i64 n, const float *score) {
  for (i64 w = 1; w < n; w *= 2) {
    for (i64 lo = 0; lo < n; lo += 2 * w) {
      const i64 mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      i64 i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = score[a[j]] > score[a[i]] ? a[j++] : a[i++];
      while (i < mid)
        tmp[k++] = a[i++];
      while (j < hi)
        tmp[k++] = a[j++];
    }
    int32_t *swap = a;
    a = tmp;
    tmp = swap;
  }
  return a;
}

/// -1, 0 or 1 as a is less than, equal to or greater than b; NaNs equal each other and sort last.
template <typename T> inline int compare(T a, T b) {
  const bool na = a != a, nb = b != b;
  if (na || nb)
    return static_cast<int>(na) - static_cast<int>(nb);
  return a < b ? -1 : b < a ? 1 : 0;
}

/// Unique's slices (UniqueParams): compares slices a and b lexicographically.
template <typename T> struct UniqueSlices {
  const T *x;
  i64 outer, len, inner;
  int cmp(i64 a, i64 b) const {
    for (i64 o = 0; o < outer; ++o)
      for (i64 i = 0; i < inner; ++i)
        if (int c = compare(x[(o * len + a) * inner + i], x[(o * len + b) * inner + i]))
          return c;
    return 0;
  }
};

template <typename T> void unique(onnxc_rt *rt, void *const *t, const onnxc_k::UniqueParams &p) {
  const UniqueSlices<T> s{static_cast<const T *>(t[0]), p.outer, p.len, p.inner};
  i64 *order = static_cast<i64 *>(t[5]), *tmp = order + p.len, *group = order + 2 * p.len,
      *firsts = order + 3 * p.len, *pos = order + 4 * p.len;
  for (i64 i = 0; i < p.len; ++i)
    order[i] = i;
  for (i64 w = 1; w < p.len; w *= 2) { /* stable merge sort of the slices */
    for (i64 lo = 0; lo < p.len; lo += 2 * w) {
      const i64 mid = lo + w < p.len ? lo + w : p.len, hi = lo + 2 * w < p.len ? lo + 2 * w : p.len;
      i64 i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = s.cmp(order[j], order[i]) < 0 ? order[j++] : order[i++];
      while (i < mid)
        tmp[k++] = order[i++];
      while (j < hi)
        tmp[k++] = order[j++];
    }
    i64 *swap = order;
    order = tmp;
    tmp = swap;
  }
  i64 m = 0; /* groups of equal slices in sorted order; firsts[g]: the group's first index */
  for (i64 k = 0; k < p.len; ++k) {
    if (k == 0 || s.cmp(order[k - 1], order[k]) != 0)
      firsts[m++] = order[k];
    group[order[k]] = m - 1;
  }
  /* pos[g]: the group's output position (sorted, or by first occurrence) */
  if (p.sorted) {
    for (i64 g = 0; g < m; ++g)
      pos[g] = g;
  } else {
    for (i64 g = 0; g < m; ++g)
      pos[g] = -1;
    for (i64 i = 0, next = 0; i < p.len; ++i)
      if (pos[group[i]] < 0)
        pos[group[i]] = next++;
  }
  auto *y = static_cast<unsigned char *>(t[1]);
  auto *indices = static_cast<int64_t *>(t[2]), *inverse = static_cast<int64_t *>(t[3]),
       *counts = static_cast<int64_t *>(t[4]);
  const auto *x = static_cast<const unsigned char *>(t[0]);
  const i64 slice = p.inner * p.elem_bytes;
  for (i64 g = 0; g < m; ++g) {
    const i64 k = pos[g];
    if (indices)
      indices[k] = firsts[g];
    if (counts)
      counts[k] = 0;
    for (i64 o = 0; o < p.outer; ++o)
      __builtin_memcpy(y + (o * m + k) * slice, x + (o * p.len + firsts[g]) * slice, slice);
  }
  for (i64 i = 0; i < p.len; ++i) {
    if (inverse)
      inverse[i] = pos[group[i]];
    if (counts)
      ++counts[pos[group[i]]];
  }
  onnxc_rt_set_count(rt, p.symbol, m);
}

/// A box's corners (x0 <= x1, y0 <= y1) from NonMaxSuppression's two box formats.
struct Box {
  double x0, y0, x1, y1;
};

inline double dmin(double a, double b) { return a < b ? a : b; }
inline double dmax(double a, double b) { return a > b ? a : b; }

inline Box box_at(const float *boxes, i64 i, bool center) {
  const double v0 = boxes[i * 4], v1 = boxes[i * 4 + 1], v2 = boxes[i * 4 + 2],
               v3 = boxes[i * 4 + 3];
  if (center) /* [x_center, y_center, width, height] */
    return {v0 - v2 / 2, v1 - v3 / 2, v0 + v2 / 2, v1 + v3 / 2};
  return {dmin(v1, v3), dmin(v0, v2), dmax(v1, v3), dmax(v0, v2)}; /* [y1, x1, y2, x2] */
}

/// True if a and b overlap by more than iou (intersection over union).
inline bool suppresses(const Box &a, const Box &b, double iou) {
  const double iw = dmin(a.x1, b.x1) - dmax(a.x0, b.x0);
  const double ih = dmin(a.y1, b.y1) - dmax(a.y0, b.y0);
  if (iw <= 0 || ih <= 0)
    return false;
  const double inter = iw * ih, area_a = (a.x1 - a.x0) * (a.y1 - a.y0),
               area_b = (b.x1 - b.x0) * (b.y1 - b.y0), uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0)
    return false;
  return inter / uni > iou;
}
} // namespace

extern "C" int32_t onnxc_k_nonzero(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::NonZeroParams>(pp);
  const auto *x = static_cast<const unsigned char *>(t[0]);
  auto *y = static_cast<int64_t *>(t[1]);
  i64 count = 0;
  for (i64 i = 0; i < p.numel; ++i)
    count += nonzero_at(x, p, i);
  for (i64 i = 0, k = 0; i < p.numel; ++i) {
    if (!nonzero_at(x, p, i))
      continue;
    for (i64 d = p.rank - 1, rest = i; d >= 0; --d) {
      y[d * count + k] = rest % p.dims[d];
      rest /= p.dims[d];
    }
    ++k;
  }
  onnxc_rt_set_count(rt, p.symbol, count);
  return 0;
}

extern "C" int32_t onnxc_k_compress(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::CompressParams>(pp);
  const auto *x = static_cast<const unsigned char *>(t[0]);
  const auto *cond = static_cast<const unsigned char *>(t[1]);
  auto *y = static_cast<unsigned char *>(t[2]);
  i64 count = 0;
  for (i64 i = 0; i < p.cond_len; ++i)
    count += cond[i] != 0;
  const i64 slice = p.inner * p.elem_bytes;
  for (i64 o = 0; o < p.outer; ++o)
    for (i64 i = 0; i < p.cond_len; ++i)
      if (cond[i]) {
        __builtin_memcpy(y, x + (o * p.len + i) * slice, slice);
        y += slice;
      }
  onnxc_rt_set_count(rt, p.symbol, count);
  return 0;
}

extern "C" int32_t onnxc_k_nms(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::NmsParams>(pp);
  const auto *boxes = static_cast<const float *>(t[0]);
  const auto *scores = static_cast<const float *>(t[1]);
  const auto *max_t = static_cast<const int64_t *>(t[2]);
  const auto *iou_t = static_cast<const float *>(t[3]);
  const auto *score_t = static_cast<const float *>(t[4]);
  auto *y = static_cast<int64_t *>(t[5]);
  auto *cand = static_cast<int32_t *>(t[6]);
  int32_t *tmp = cand + p.boxes, *kept = cand + 2 * p.boxes;
  const i64 max_out = max_t && max_t[0] > 0 ? max_t[0] : 0;
  const double iou = iou_t ? iou_t[0] : 0.0;
  const bool center = p.center_point_box != 0;
  i64 count = 0;
  for (i64 b = 0; b < p.batches; ++b)
    for (i64 c = 0; c < p.classes; ++c) {
      const float *s = scores + (b * p.classes + c) * p.boxes;
      i64 n = 0;
      for (i64 i = 0; i < p.boxes; ++i)
        if (!score_t || s[i] > score_t[0])
          cand[n++] = static_cast<int32_t>(i);
      const int32_t *order = sort_by_score(cand, tmp, n, s);
      i64 nkept = 0;
      for (i64 k = 0; k < n && nkept < max_out; ++k) {
        const Box bx = box_at(boxes, b * p.boxes + order[k], center);
        bool keep = true;
        for (i64 j = 0; j < nkept && keep; ++j)
          keep = !suppresses(bx, box_at(boxes, b * p.boxes + kept[j], center), iou);
        if (!keep)
          continue;
        kept[nkept++] = order[k];
        y[count * 3] = b;
        y[count * 3 + 1] = c;
        y[count * 3 + 2] = order[k];
        ++count;
      }
    }
  onnxc_rt_set_count(rt, p.symbol, count);
  return 0;
}

extern "C" int32_t onnxc_k_unique(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::UniqueParams>(pp);
  switch (p.kind) {
  case onnxc_k::kUniqueF32:
    unique<float>(rt, t, p);
    break;
  case onnxc_k::kUniqueF64:
    unique<double>(rt, t, p);
    break;
  case onnxc_k::kUniqueI8:
    unique<int8_t>(rt, t, p);
    break;
  case onnxc_k::kUniqueI16:
    unique<int16_t>(rt, t, p);
    break;
  case onnxc_k::kUniqueI32:
    unique<int32_t>(rt, t, p);
    break;
  case onnxc_k::kUniqueI64:
    unique<int64_t>(rt, t, p);
    break;
  case onnxc_k::kUniqueU8:
    unique<uint8_t>(rt, t, p);
    break;
  case onnxc_k::kUniqueU16:
    unique<uint16_t>(rt, t, p);
    break;
  case onnxc_k::kUniqueU32:
    unique<uint32_t>(rt, t, p);
    break;
  case onnxc_k::kUniqueU64:
    unique<uint64_t>(rt, t, p);
    break;
  default:
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "unique: unsupported type");
  }
  return 0;
}
