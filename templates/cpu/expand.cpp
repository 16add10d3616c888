/* Broadcasting copy (Expand, Tile): each output coordinate c reads input coordinate
 * c[d] % in_dims[d] — a size-1 input dim broadcasts (Expand), a smaller one repeats (Tile).
 * params {elem_bytes, rank, out_dims[rank], in_dims[rank]}; tensors {x, y}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/shaped_params.h"

namespace {
using onnxc_k::i64;

template <typename E>
void broadcast(onnxc_rt *rt, const E *x, E *y, i64 rank, const i64 *od, const i64 *id) {
  i64 inner = rank ? od[rank - 1] : 1, in_inner = rank ? id[rank - 1] : 1, outer = 1;
  for (i64 d = 0; d + 1 < rank; ++d)
    outer *= od[d];
  if (inner == 0 || in_inner == 0)
    return;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, off = 0, stride = in_inner;
      for (i64 d = rank - 2; d >= 0; --d) {
        off += (rem % od[d]) % id[d] * stride;
        rem /= od[d];
        stride *= id[d];
      }
      const E *px = x + off;
      E *py = y + o * inner;
      if (in_inner == inner) {
        for (i64 i = 0; i < inner; ++i)
          py[i] = px[i];
      } else if (in_inner == 1) {
        for (i64 i = 0; i < inner; ++i)
          py[i] = px[0];
      } else {
        for (i64 i = 0; i < inner; ++i)
          py[i] = px[i % in_inner];
      }
    }
  };
  i64 grain = inner >= 16384 ? 1 : 16384 / inner;
  onnxc_k::parallel_for(rt, outer, grain, body);
}
} // namespace

extern "C" int32_t onnxc_k_broadcast(onnxc_rt *rt, void *const *t, const int64_t *p) {
  const i64 esize = p[0], rank = p[1];
  const i64 *od = p + 2, *id = p + 2 + rank;
  switch (esize) {
  case 1:
    broadcast(rt, (const unsigned char *)t[0], (unsigned char *)t[1], rank, od, id);
    break;
  case 2:
    broadcast(rt, (const unsigned short *)t[0], (unsigned short *)t[1], rank, od, id);
    break;
  case 4:
    broadcast(rt, (const unsigned int *)t[0], (unsigned int *)t[1], rank, od, id);
    break;
  case 8:
    broadcast(rt, (const unsigned long long *)t[0], (unsigned long long *)t[1], rank, od, id);
    break;
  default:
    return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "expand: unsupported element size");
  }
  return 0;
}

extern "C" int32_t onnxc_k_broadcast_rt(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<onnxc_k::BroadcastRtParams>(pp);
  const int64_t *v = static_cast<const int64_t *>(t[1]);
  const i64 rank = p.tile || p.rank > p.n ? p.rank : p.n;
  i64 q[2 + 16], numel = 1; /* onnxc_k_broadcast's params: elem, rank, out dims, in dims */
  q[0] = p.elem_bytes;
  q[1] = rank;
  for (i64 d = 0; d < rank; ++d) {
    const i64 di = d - (rank - p.rank), dv = d - (rank - p.n); /* right-aligned */
    const i64 in = di >= 0 ? p.dims[di] : 1, want = dv >= 0 ? v[dv] : 1;
    i64 out;
    if (p.tile) {
      if (want < 0)
        return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "a value of repeats is negative");
      if (__builtin_mul_overflow(in, want, &out))
        return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "the output is too large");
    } else {
      if (want < 0)
        return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "the shape has a negative dim");
      if (in != want && in != 1 && want != 1)
        return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                             "the shape does not broadcast with the input's");
      out = in == 1 ? want : in;
    }
    q[2 + d] = out;
    q[2 + rank + d] = in;
    if (__builtin_mul_overflow(numel, out, &numel) || numel > (int64_t(1) << 50))
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "the output is too large");
  }
  void *y = onnxc_rt_output_buffer(rt, t[2], static_cast<uint64_t>(numel * p.elem_bytes));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  void *io[2] = {t[0], y};
  const int32_t st = numel > 0 ? onnxc_k_broadcast(rt, io, q) : 0;
  onnxc_rt_set_shape(rt, t[2], static_cast<int32_t>(rank), q + 2);
  return st;
}
