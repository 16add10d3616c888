/* Variadic element-wise ops (Sum, Mean, Max, Min) and Pad.
 *
 * Variadic params {op (0 sum, 1 mean, 2 max, 3 min), k, rank, out_dims[rank],
 *   strides[k][rank]} (stride 0 broadcasts); tensors {x0..x(k-1), y}. y must not alias an input.
 * Pad params {elem_bytes, mode (0 constant, 1 reflect, 2 edge, 3 wrap), rank, out_dims[rank],
 *   in_dims[rank], pad_begin[rank] (negative crops), value bits}; tensors {x, value?, y}: the
 *   one-element value tensor, when given, replaces the value bits. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/shaped_params.h"
#include "templates/cpu/types.h"

namespace {
using onnxc_k::i64;

/* One pass y (op)= x over the output; `first` copies instead. */
template <typename T>
void accumulate(onnxc_rt *rt, const T *x, T *y, i64 op, bool first, i64 rank, const i64 *dims,
                const i64 *st) {
  i64 inner = rank ? dims[rank - 1] : 1, is = rank ? st[rank - 1] : 0, outer = 1;
  for (i64 d = 0; d + 1 < rank; ++d)
    outer *= dims[d];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, off = 0;
      for (i64 d = rank - 2; d >= 0; --d) {
        off += (rem % dims[d]) * st[d];
        rem /= dims[d];
      }
      const T *px = x + off;
      T *py = y + o * inner;
      for (i64 i = 0; i < inner; ++i) {
        T v = px[i * is];
        if (first)
          py[i] = v;
        else if (op <= 1)
          py[i] = onnxc_k::wadd(py[i], v);
        else if (op == 2)
          py[i] = onnxc_k::mx(py[i], v);
        else
          py[i] = onnxc_k::mn(py[i], v);
      }
    }
  };
  i64 grain = inner >= 16384 ? 1 : 16384 / (inner ? inner : 1);
  onnxc_k::parallel_for(rt, outer, grain, body);
}

template <typename T> int32_t variadic(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 op = p[0], k = p[1], rank = p[2];
  const i64 *dims = p + 3;
  T *y = static_cast<T *>(t[k]);
  for (i64 j = 0; j < k; ++j)
    accumulate(rt, static_cast<const T *>(t[j]), y, op, j == 0, rank, dims, dims + rank * (j + 1));
  if (op == 1) {
    i64 count = 1;
    for (i64 d = 0; d < rank; ++d)
      count *= dims[d];
    auto body = [&](i64 lo, i64 hi) {
      for (i64 i = lo; i < hi; ++i)
        y[i] = T(y[i] / T(k));
    };
    onnxc_k::parallel_for(rt, count, 16384, body);
  }
  return 0;
}

/* Source coordinate of output coordinate c along one axis, or -1 for the pad value. */
inline i64 pad_source(i64 mode, i64 c, i64 begin, i64 len) {
  i64 s = c - begin;
  if (s >= 0 && s < len)
    return s;
  switch (mode) {
  case 0:
    return -1;
  case 2:
    return s < 0 ? 0 : len - 1;
  case 3:
    return ((s % len) + len) % len;
  default: {
    if (len == 1)
      return 0;
    i64 period = 2 * (len - 1), m = ((s % period) + period) % period;
    return m >= len ? period - m : m;
  }
  }
}

template <typename E> void pad(onnxc_rt *rt, void *const *t, const i64 *p) {
  const E *x = static_cast<const E *>(t[0]);
  E *y = static_cast<E *>(t[2]);
  const i64 mode = p[1], rank = p[2];
  const i64 *od = p + 3, *id = od + rank, *pb = id + rank;
  E value;
  if (t[1])
    __builtin_memcpy(&value, t[1], sizeof value);
  else
    __builtin_memcpy(&value, &pb[rank], sizeof value);
  i64 inner = rank ? od[rank - 1] : 1, outer = 1;
  for (i64 d = 0; d + 1 < rank; ++d)
    outer *= od[d];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, off = 0, stride = rank ? id[rank - 1] : 1;
      bool outside = false;
      for (i64 d = rank - 2; d >= 0; --d) {
        i64 s = pad_source(mode, rem % od[d], pb[d], id[d]);
        rem /= od[d];
        outside |= s < 0;
        off += s * stride;
        stride *= id[d];
      }
      E *py = y + o * inner;
      for (i64 i = 0; i < inner; ++i) {
        i64 s = outside ? -1 : (rank ? pad_source(mode, i, pb[rank - 1], id[rank - 1]) : 0);
        py[i] = s < 0 ? value : x[off + s];
      }
    }
  };
  i64 grain = inner >= 16384 ? 1 : 16384 / (inner ? inner : 1);
  onnxc_k::parallel_for(rt, outer, grain, body);
}
} // namespace

extern "C" int32_t onnxc_k_pad(onnxc_rt *rt, void *const *t, const int64_t *p) {
  switch (p[0]) {
  case 1:
    pad<unsigned char>(rt, t, p);
    break;
  case 2:
    pad<unsigned short>(rt, t, p);
    break;
  case 4:
    pad<unsigned int>(rt, t, p);
    break;
  case 8:
    pad<unsigned long long>(rt, t, p);
    break;
  default:
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "pad: unsupported element size");
  }
  return 0;
}

extern "C" int32_t onnxc_k_pad_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::PadRtParams>(pp);
  const int64_t *pads = static_cast<const int64_t *>(t[1]);
  i64 q[3 + 3 * 8 + 1], *od = q + 3, *id = od + p.rank, *pb = id + p.rank, end[8], numel = 1;
  q[0] = p.elem_bytes, q[1] = p.mode, q[2] = p.rank;
  for (i64 d = 0; d < p.rank; ++d)
    id[d] = p.dims[d], pb[d] = 0, end[d] = 0;
  const i64 naxes = t[3] || p.center ? p.naxes : p.rank;
  for (i64 k = 0; p.center && k < naxes; ++k) {
    if (pads[k] < 0)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "a value of shape is negative");
    const i64 a = p.center_axes[k], diff = pads[k] - id[a];
    pb[a] = diff >= 0 ? diff / 2 : -((-diff) / 2);
    end[a] = diff - pb[a];
  }
  for (i64 k = 0; !p.center && k < naxes; ++k) {
    i64 a = k;
    if (t[3]) {
      a = p.axes_bytes == 4 ? static_cast<const int32_t *>(t[3])[k]
                            : static_cast<const int64_t *>(t[3])[k];
      if (a < -p.rank || a >= p.rank)
        return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                             "a value of axes is outside [-rank, rank) of the input");
      a += a < 0 ? p.rank : 0;
    }
    pb[a] = pads[k];
    end[a] = pads[k + naxes];
  }
  for (i64 d = 0; d < p.rank; ++d) {
    i64 o;
    if (pb[d] < -id[d] || end[d] < -id[d] || __builtin_add_overflow(id[d], pb[d], &o) ||
        __builtin_add_overflow(o, end[d], &o) || o < 0)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "the pads crop an axis below zero or are too large");
    if (p.mode != 0 && id[d] == 0 && o > 0)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "cannot pad an empty axis in a non-constant mode");
    od[d] = o;
    if (__builtin_mul_overflow(numel, o, &numel) || numel > (int64_t(1) << 50))
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "the output is too large");
  }
  q[3 + 3 * p.rank] = p.value_bits;
  void *y = onnxc_rt_output_buffer(rt, t[4], static_cast<uint64_t>(numel * p.elem_bytes));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  void *io[3] = {t[0], t[2], y};
  const int32_t st = numel > 0 ? onnxc_k_pad(rt, io, q) : 0;
  onnxc_rt_set_shape(rt, t[4], static_cast<int32_t>(p.rank), od);
  return st;
}

#define ONNXC_VARIADIC_KERNEL(ct, sfx, unused)                                                     \
  extern "C" int32_t onnxc_k_variadic_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {      \
    return variadic<ct>(rt, t, p);                                                                 \
  }
ONNXC_NUMERIC_TYPES(ONNXC_VARIADIC_KERNEL, 0)
