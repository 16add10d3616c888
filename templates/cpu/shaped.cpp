/* Kernels of ops whose output shape input values computed at run time decide (shaped_params.h):
 * each checks the values, writes its output and reports the shape (onnxc_rt_set_shape). */
#include "templates/cpu/half.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/kernel_message.h"
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

using onnxc_k::index_at;
} // namespace

extern "C" int32_t onnxc_k_shape_copy(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::ShapeCopyParams>(pp);
  const int64_t *v = static_cast<const int64_t *>(t[1]);
  i64 out[8], rank = 0, numel = 1;
  for (i64 d = 0; d < p.rank; ++d)
    numel *= p.dims[d];
  if (p.mode == onnxc_k::kShapeReshape) {
    rank = p.n;
    if (const char *why =
            onnxc_k::reshape_dims(v, p.n, p.dims, p.rank, numel, p.allowzero != 0, out))
      return fail(rt, why);
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
    if (p.dims[d] < 0) /* dims from the run (ShapeWord): none recorded */
      return fail(rt, "internal error: no shape was recorded for a value shaped at run time");
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
      count[a] = e > b ? (e - b - 1) / s + 1 : 0;
    } else { /* clamp to [-1, len - 1] */
      b = b < -1 ? -1 : b > len - 1 ? len - 1 : b;
      e = e < -1 ? -1 : e > len - 1 ? len - 1 : e;
      const i64 ns = s == INT64_MIN ? INT64_MAX : -s; /* |s| (the count is 1 either way) */
      count[a] = b > e ? (b - e - 1) / ns + 1 : 0;
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
  /* t[5] itself, but run-scoped memory for a slice of a value with no bound (its dims from the
     run, Value::run_time_data) */
  auto *y = static_cast<unsigned char *>(
      onnxc_rt_output_buffer(rt, t[5], static_cast<uint64_t>(total * p.elem_bytes)));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
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

/// onnxc.SelectShaped: tensors {index (int64), choice 0, ..., choice count-1, out}, params
/// {count, elem_bytes, rank, dims of each choice}: copies choice `index` and records its shape.
extern "C" int32_t onnxc_k_select_shaped(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const i64 count = pp[0], elem_bytes = pp[1], rank = pp[2];
  const i64 at = *static_cast<const int64_t *>(t[0]);
  if (at < 0 || at >= count)
    return fail(rt, "internal error: the position is outside the choices");
  const int64_t *dims = pp + 3 + at * rank;
  i64 numel = 1;
  for (i64 d = 0; d < rank; ++d)
    numel *= dims[d];
  if (numel > 0)
    __builtin_memcpy(t[1 + count], t[1 + at], static_cast<uint64_t>(numel * elem_bytes));
  onnxc_rt_set_shape(rt, t[1 + count], static_cast<int32_t>(rank), dims);
  return 0;
}

using onnxc_k::append_dims;
using onnxc_k::append_str;

/// onnxc.CheckShape: tensors {X (shaped at run time, bounded), Y}, params {elem_bytes, rank,
/// declared dims[rank], X's dims in this run[rank]}: fails the run when the two differ, else
/// copies X's elements to Y.
extern "C" int32_t onnxc_k_check_shape(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const i64 elem_bytes = pp[0], rank = pp[1];
  const int64_t *want = pp + 2, *got = pp + 2 + rank;
  i64 numel = 1;
  bool same = true;
  for (i64 k = 0; k < rank; ++k) {
    if (got[k] < 0)
      return fail(rt, "internal error: no shape was recorded for a value shaped at run time");
    same = same && got[k] == want[k];
    numel *= want[k];
  }
  if (!same) {
    char msg[256];
    i64 len = 0;
    msg[0] = 0;
    append_str(msg, sizeof msg, &len, "the shape computed in this run, ");
    append_dims(msg, sizeof msg, &len, got, rank);
    append_str(msg, sizeof msg, &len, ", differs from the shape the model declares, ");
    append_dims(msg, sizeof msg, &len, want, rank);
    append_str(msg, sizeof msg, &len,
               ", which the compiled If/Loop/Scan that uses it was built for");
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR, msg);
  }
  if (numel > 0 && t[0] != t[1])
    __builtin_memcpy(t[1], t[0], static_cast<uint64_t>(numel * elem_bytes));
  return 0;
}

/// Writes params words 1..p[0] to t[1] (int64): the run's dims or element count of t[0]
/// (Shape, Size of a value shaped at run time; the backend computes the words, ShapeWord).
extern "C" int32_t onnxc_k_write_words(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  auto *y = static_cast<int64_t *>(t[1]);
  for (i64 k = 0; k < pp[0]; ++k) {
    if (pp[1 + k] < 0)
      return fail(rt, "internal error: no shape was recorded for a value shaped at run time");
    y[k] = pp[1 + k];
  }
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
    if (split[k] < 0 || split[k] > p.dims[p.axis] - sum)
      return fail(rt, "the values of split are negative or add up to more than the axis");
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

namespace {
inline double scalar_at(const void *p, i64 kind) {
  switch (kind) {
  case onnxc_k::kRangeF32:
    return *static_cast<const float *>(p);
  case onnxc_k::kRangeF64:
    return *static_cast<const double *>(p);
  case onnxc_k::kRangeF16:
    return onnxc_k::half::half_to_float(*static_cast<const uint16_t *>(p));
  case onnxc_k::kRangeBF16:
    return onnxc_k::half::bf16_to_float(*static_cast<const uint16_t *>(p));
  default:
    return 0;
  }
}
inline i64 int_at(const void *p, i64 kind) {
  return kind == onnxc_k::kRangeI16   ? *static_cast<const int16_t *>(p)
         : kind == onnxc_k::kRangeI32 ? *static_cast<const int32_t *>(p)
                                      : *static_cast<const int64_t *>(p);
}
} // namespace

extern "C" int32_t onnxc_k_range_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::RangeRtParams>(pp);
  const bool is_float = p.kind <= onnxc_k::kRangeBF16;
  const i64 bytes = p.kind == onnxc_k::kRangeF64 || p.kind == onnxc_k::kRangeI64   ? 8
                    : p.kind == onnxc_k::kRangeF32 || p.kind == onnxc_k::kRangeI32 ? 4
                                                                                   : 2;
  double count_d;
  i64 start_i = 0, delta_i = 0;
  double start = 0, delta = 0;
  if (is_float) {
    start = scalar_at(t[0], p.kind), delta = scalar_at(t[2], p.kind);
    if (delta == 0)
      return fail(rt, "delta is 0");
    count_d = __builtin_ceil((scalar_at(t[1], p.kind) - start) / delta);
  } else {
    start_i = int_at(t[0], p.kind), delta_i = int_at(t[2], p.kind);
    if (delta_i == 0)
      return fail(rt, "delta is 0");
    i64 diff;
    if (__builtin_sub_overflow(int_at(t[1], p.kind), start_i, &diff))
      return fail(rt, "Range: limit - start overflows");
    if (delta_i == -1 && diff == INT64_MIN)
      return fail(rt, "Range: the output would have too many elements");
    const i64 q = diff / delta_i, r = diff % delta_i; /* ceil(diff / delta) */
    count_d = static_cast<double>(q + (r != 0 && (r > 0) == (delta_i > 0)));
  }
  if (!(count_d < 9.0e15)) /* NaN or beyond any buffer */
    return fail(rt, "Range: the output would have too many elements");
  const i64 count = count_d > 0 ? static_cast<i64>(count_d) : 0;
  unsigned char *y = static_cast<unsigned char *>(
      onnxc_rt_output_buffer(rt, t[3], static_cast<uint64_t>(count * bytes)));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  for (i64 i = 0; i < count; ++i) {
    /* start + i * delta: floats in double, rounded once (numpy's arange); integers wrap */
    const double f = start + static_cast<double>(i) * delta;
    const i64 v = static_cast<i64>(static_cast<uint64_t>(start_i) +
                                   static_cast<uint64_t>(i) * static_cast<uint64_t>(delta_i));
    switch (p.kind) {
    case onnxc_k::kRangeF32:
      reinterpret_cast<float *>(y)[i] = static_cast<float>(f);
      break;
    case onnxc_k::kRangeF64:
      reinterpret_cast<double *>(y)[i] = f;
      break;
    case onnxc_k::kRangeF16:
      reinterpret_cast<uint16_t *>(y)[i] = onnxc_k::half::float_to_half(static_cast<float>(f));
      break;
    case onnxc_k::kRangeBF16:
      reinterpret_cast<uint16_t *>(y)[i] = onnxc_k::half::float_to_bf16(static_cast<float>(f));
      break;
    case onnxc_k::kRangeI16:
      reinterpret_cast<int16_t *>(y)[i] = static_cast<int16_t>(v);
      break;
    case onnxc_k::kRangeI32:
      reinterpret_cast<int32_t *>(y)[i] = static_cast<int32_t>(v);
      break;
    default:
      reinterpret_cast<int64_t *>(y)[i] = v;
      break;
    }
  }
  onnxc_rt_set_shape(rt, t[3], 1, &count);
  return 0;
}

extern "C" int32_t onnxc_k_fill_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::FillRtParams>(pp);
  const int64_t *shape = static_cast<const int64_t *>(t[0]);
  i64 numel = 1;
  for (i64 d = 0; d < p.rank; ++d) {
    if (shape[d] < 0)
      return fail(rt, "the shape has a negative dim");
    if (__builtin_mul_overflow(numel, shape[d], &numel) || numel > (int64_t(1) << 50))
      return fail(rt, "the shape has too many elements");
  }
  unsigned char *y = static_cast<unsigned char *>(
      onnxc_rt_output_buffer(rt, t[1], static_cast<uint64_t>(numel * p.elem_bytes)));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  for (i64 i = 0; i < numel; ++i)
    __builtin_memcpy(y + i * p.elem_bytes, &p.value, p.elem_bytes);
  onnxc_rt_set_shape(rt, t[1], static_cast<int32_t>(p.rank), shape);
  return 0;
}

namespace {
/// Element 0 of a float tensor of kind 0 float, 1 double, 2 float16, 3 bfloat16.
double float_at(const void *p, i64 kind) {
  switch (kind) {
  case 0:
    return *static_cast<const float *>(p);
  case 1:
    return *static_cast<const double *>(p);
  case 2:
    return onnxc_k::half::half_to_float(*static_cast<const uint16_t *>(p));
  default:
    return onnxc_k::half::bf16_to_float(*static_cast<const uint16_t *>(p));
  }
}

/// Stores w at element k of y, of kind 0 float, 1 double, 2 float16, 3 bfloat16.
void store_kind(unsigned char *y, i64 kind, i64 k, double w) {
  switch (kind) {
  case 0:
    reinterpret_cast<float *>(y)[k] = static_cast<float>(w);
    break;
  case 1:
    reinterpret_cast<double *>(y)[k] = w;
    break;
  case 2:
    reinterpret_cast<uint16_t *>(y)[k] = onnxc_k::half::float_to_half(static_cast<float>(w));
    break;
  default:
    reinterpret_cast<uint16_t *>(y)[k] = onnxc_k::half::float_to_bf16(static_cast<float>(w));
    break;
  }
}
} // namespace

extern "C" int32_t onnxc_k_mel_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::MelRtParams>(pp);
  const i64 bins = index_at(t[0], p.int_bytes, 0), dft = index_at(t[1], p.int_bytes, 0);
  const i64 rate = index_at(t[2], p.int_bytes, 0);
  const double lo_hz = float_at(t[3], p.float_kind), hi_hz = float_at(t[4], p.float_kind);
  if (bins <= 0 || dft <= 0 || rate <= 0 || bins > 65536 || dft > (i64(1) << 24))
    return fail(rt, "num_mel_bins, dft_length and sample_rate must be positive (and "
                    "num_mel_bins at most 65536, dft_length at most 2^24)");
  const i64 rows = dft / 2 + 1, bytes = p.out_kind == 1 ? 8 : p.out_kind == 0 ? 4 : 2;
  unsigned char *y = static_cast<unsigned char *>(
      onnxc_rt_output_buffer(rt, t[5], static_cast<uint64_t>(rows * bins * bytes)));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  for (i64 k = 0; k < rows * bins; ++k)
    store_kind(y, p.out_kind, k, 0.0);
  const double lo = 2595.0 * __builtin_log10(1.0 + lo_hz / 700.0);
  const double hi = 2595.0 * __builtin_log10(1.0 + hi_hz / 700.0);
  const double step = (hi - lo) / static_cast<double>(bins + 2);
  auto edge = [&](i64 i) { // the DFT bin of filter edge i (as mel_weight_matrix.cpp)
    const double hz = 700.0 * (__builtin_pow(10.0, (double(i) * step + lo) / 2595.0) - 1.0);
    return static_cast<i64>(__builtin_floor(double(dft + 1) * hz / double(rate)));
  };
  for (i64 i = 0; i < bins; ++i) {
    const i64 l = edge(i), c = edge(i + 1), h = edge(i + 2);
    if (l < 0 || h > rows || (c == l && c >= rows) || c < l || h < c)
      return fail(rt, "a mel filter edge falls outside the DFT bins (check the edge "
                      "frequencies against sample_rate)");
    if (c == l)
      store_kind(y, p.out_kind, c * bins + i, 1.0);
    for (i64 j = l; c != l && j <= c; ++j) {
      if (j >= rows)
        return fail(rt, "a mel filter edge falls outside the DFT bins (check the edge "
                        "frequencies against sample_rate)");
      store_kind(y, p.out_kind, j * bins + i, double(j - l) / double(c - l));
    }
    for (i64 j = c; j < h; ++j)
      store_kind(y, p.out_kind, j * bins + i, double(h - j) / double(h - c));
  }
  const i64 shape[2] = {rows, bins};
  onnxc_rt_set_shape(rt, t[5], 2, shape);
  return 0;
}

extern "C" int32_t onnxc_k_window_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::WindowRtParams>(pp);
  const i64 size = index_at(t[0], p.size_bytes, 0);
  if (size < 0 || size > (int64_t(1) << 26))
    return fail(rt, "the window size is out of range (0..2^26)");
  const i64 bytes = p.out_kind == 1 ? 8 : p.out_kind == 0 ? 4 : 2;
  unsigned char *y = static_cast<unsigned char *>(
      onnxc_rt_output_buffer(rt, t[1], static_cast<uint64_t>(size * bytes)));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  const double len = static_cast<double>(p.periodic ? size : size - 1);
  const double pi = 3.14159265358979323846;
  for (i64 k = 0; k < size; ++k) {
    const double x = 2.0 * pi * static_cast<double>(k) / len;
    store_kind(y, p.out_kind, k, p.a0 - p.a1 * __builtin_cos(x) + p.a2 * __builtin_cos(2.0 * x));
  }
  onnxc_rt_set_shape(rt, t[1], 1, &size);
  return 0;
}

/// Region::Kind::ShapeCopy: tensors {SRC, DST}; DST was computed element for element over SRC's
/// bound (Value::run_time_bounded) and has SRC's shape.
extern "C" int32_t onnxc_k_copy_run_time_shape(onnxc_rt *rt, void *const *t, const int64_t *) {
  return onnxc_rt_copy_shape(rt, t[0], t[1]);
}

/// onnxc.Assert: tensors {OK (bool scalar), X, Y}, params {bytes of X, message length, the
/// message's bytes}: fails the run with the message when OK is false, else copies X to Y.
extern "C" int32_t onnxc_k_assert(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const i64 bytes = pp[0], len = pp[1];
  if (!*static_cast<const unsigned char *>(t[0])) {
    char msg[512];
    const i64 n = len < i64(sizeof msg) - 1 ? len : i64(sizeof msg) - 1;
    __builtin_memcpy(msg, pp + 2, static_cast<uint64_t>(n));
    msg[n] = 0;
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR, msg);
  }
  if (bytes > 0 && t[1] != t[2])
    __builtin_memcpy(t[2], t[1], static_cast<uint64_t>(bytes));
  return 0;
}
