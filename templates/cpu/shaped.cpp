/* Kernels of ops whose output shape input values computed at run time decide (shaped_params.h):
 * each checks the values, writes its output and reports the shape (onnxc_rt_set_shape). */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/shaped_params.h"

namespace {
using onnxc_k::i64;

inline int32_t fail(onnxc_rt *rt, const char *msg) {
  return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, msg);
}

/// Normalises axis a of a tensor of rank r into out; false if it is outside [-r, r).
inline bool axis_in(i64 a, i64 r, i64 &out) {
  if (a < -r || a >= r)
    return false;
  out = a < 0 ? a + r : a;
  return true;
}

inline i64 index_at(const void *p, i64 bytes, i64 k) {
  return bytes == 4 ? static_cast<const int32_t *>(p)[k] : static_cast<const int64_t *>(p)[k];
}
} // namespace

extern "C" int32_t onnxc_k_shape_copy(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::ShapeCopyParams>(pp);
  const int64_t *v = static_cast<const int64_t *>(t[1]);
  i64 out[8], rank = 0, numel = 1;
  for (i64 d = 0; d < p.rank; ++d)
    numel *= p.dims[d];
  if (p.mode == onnxc_k::kShapeReshape) {
    i64 infer_at = -1, known = 1;
    rank = p.n;
    for (i64 k = 0; k < p.n; ++k) {
      i64 d = v[k];
      if (d == 0 && !p.allowzero) {
        if (k >= p.rank)
          return fail(rt, "a 0 in shape copies an input dim the input does not have");
        d = p.dims[k];
      }
      if (d == -1) {
        if (infer_at >= 0)
          return fail(rt, "shape has more than one -1");
        infer_at = k;
      } else if (d < -1) {
        return fail(rt, "shape has a negative dim");
      } else if (__builtin_mul_overflow(known, d, &known)) {
        return fail(rt, "shape has too many elements");
      }
      out[k] = d;
    }
    if (infer_at >= 0) {
      if (known == 0 || numel % known != 0)
        return fail(rt, "the -1 of shape cannot be inferred from the input's element count");
      out[infer_at] = numel / known;
    } else if (known != numel) {
      return fail(rt, "shape has a different element count than the input");
    }
  } else if (p.mode == onnxc_k::kShapeSqueeze) {
    bool drop[8] = {};
    for (i64 k = 0; k < p.n; ++k) {
      i64 a;
      if (!axis_in(v[k], p.rank, a))
        return fail(rt, "a value of axes is outside [-rank, rank) of the input");
      if (drop[a])
        return fail(rt, "axes contain a repeated axis");
      if (p.dims[a] != 1)
        return fail(rt, "axes name a dim whose size is not 1");
      drop[a] = true;
    }
    for (i64 d = 0; d < p.rank; ++d)
      if (!(p.n == 0 ? p.dims[d] == 1 : drop[d]))
        out[rank++] = p.dims[d];
  } else {
    bool ins[8] = {};
    rank = p.rank + p.n;
    if (rank > 8)
      return fail(rt, "the output would have more than 8 dims");
    for (i64 k = 0; k < p.n; ++k) {
      i64 a;
      if (!axis_in(v[k], rank, a))
        return fail(rt, "a value of axes is outside [-rank, rank) of the output");
      if (ins[a])
        return fail(rt, "axes contain a repeated axis");
      ins[a] = true;
    }
    for (i64 d = 0, next = 0; d < rank; ++d)
      out[d] = ins[d] ? 1 : p.dims[next++];
  }
  if (p.bytes > 0)
    __builtin_memcpy(t[2], t[0], p.bytes);
  onnxc_rt_set_shape(rt, t[2], static_cast<int32_t>(rank), out);
  return 0;
}

extern "C" int32_t onnxc_k_slice_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::SliceRtParams>(pp);
  i64 start[8], step[8], count[8];
  bool seen[8] = {};
  for (i64 d = 0; d < p.rank; ++d) {
    start[d] = 0;
    step[d] = 1;
    count[d] = p.dims[d];
  }
  for (i64 k = 0; k < p.n; ++k) {
    i64 a = k;
    if (t[3] && !axis_in(index_at(t[3], p.index_bytes, k), p.rank, a))
      return fail(rt, "a value of axes is outside [-rank, rank) of the input");
    if (seen[a])
      return fail(rt, "axes contain a repeated axis");
    seen[a] = true;
    const i64 len = p.dims[a], s = t[4] ? index_at(t[4], p.index_bytes, k) : 1;
    if (s == 0)
      return fail(rt, "a step is 0");
    i64 b = index_at(t[1], p.index_bytes, k), e = index_at(t[2], p.index_bytes, k);
    b += b < 0 ? len : 0;
    e += e < 0 ? len : 0;
    if (s > 0) { /* clamp to [0, len] */
      b = b < 0 ? 0 : b > len ? len : b;
      e = e < 0 ? 0 : e > len ? len : e;
      count[a] = e > b ? (e - b + s - 1) / s : 0;
    } else { /* clamp to [-1, len - 1] */
      b = b < -1 ? -1 : b > len - 1 ? len - 1 : b;
      e = e < -1 ? -1 : e > len - 1 ? len - 1 : e;
      count[a] = b > e ? (b - e - s - 1) / -s : 0;
    }
    start[a] = b;
    step[a] = s;
  }
  i64 total = 1, stride[8];
  for (i64 d = 0; d < p.rank; ++d)
    total *= count[d];
  for (i64 d = p.rank; d-- > 0;)
    stride[d] = d + 1 < p.rank ? stride[d + 1] * p.dims[d + 1] : 1;
  const auto *x = static_cast<const unsigned char *>(t[0]);
  auto *y = static_cast<unsigned char *>(t[5]);
  for (i64 o = 0; o < total; ++o) { /* row-major over the output, one element at a time */
    i64 rest = o, src = 0;
    for (i64 d = p.rank; d-- > 0;) {
      const i64 c = rest % count[d];
      rest /= count[d];
      src += (start[d] + c * step[d]) * stride[d];
    }
    __builtin_memcpy(y + o * p.elem_bytes, x + src * p.elem_bytes, p.elem_bytes);
  }
  onnxc_rt_set_shape(rt, t[5], static_cast<int32_t>(p.rank), count);
  return 0;
}

extern "C" int32_t onnxc_k_split_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::SplitRtParams>(pp);
  const int64_t *split = static_cast<const int64_t *>(t[1]);
  i64 outer = 1, inner = 1, sum = 0;
  for (i64 d = 0; d < p.rank; ++d) {
    if (d < p.axis)
      outer *= p.dims[d];
    else if (d > p.axis)
      inner *= p.dims[d];
  }
  for (i64 k = 0; k < p.outputs; ++k) {
    if (split[k] < 0)
      return fail(rt, "a value of split is negative");
    sum += split[k];
  }
  if (sum != p.dims[p.axis])
    return fail(rt, "the values of split do not add up to the dim along the axis");
  const auto *x = static_cast<const unsigned char *>(t[0]);
  const i64 row = p.dims[p.axis] * inner * p.elem_bytes;
  for (i64 k = 0, at = 0; k < p.outputs; ++k) {
    auto *y = static_cast<unsigned char *>(t[2 + k]);
    const i64 part = split[k] * inner * p.elem_bytes;
    if (!y) { /* an output the model does not use */
      at += part;
      continue;
    }
    for (i64 o = 0; o < outer && part > 0; ++o)
      __builtin_memcpy(y + o * part, x + o * row + at, part);
    at += part;
    i64 shape[8];
    for (i64 d = 0; d < p.rank; ++d)
      shape[d] = d == p.axis ? split[k] : p.dims[d];
    onnxc_rt_set_shape(rt, y, static_cast<int32_t>(p.rank), shape);
  }
  return 0;
}
