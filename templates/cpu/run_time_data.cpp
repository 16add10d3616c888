/* N-D ops of values whose shape the run decides with no bound (run_time_data_params.h). */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/kernel_message.h"
#include "templates/cpu/run_time_data_params.h"
#include "templates/cpu/shaped_params.h"

namespace {
using onnxc_k::i64;
using onnxc_k::RtDataParams;

inline int32_t fail(onnxc_rt *rt, const char *msg) {
  return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, msg);
}

/// Fails the run with `what` and the shapes of the inputs in this run.
int32_t fail_shapes(onnxc_rt *rt, const RtDataParams &p, const char *what) {
  char msg[400];
  i64 len = 0;
  msg[0] = 0;
  onnxc_k::append_str(msg, sizeof msg, &len, what);
  onnxc_k::append_str(msg, sizeof msg, &len, " (the inputs' shapes in this run: ");
  for (i64 i = 0; i < p.inputs; ++i) {
    if (i)
      onnxc_k::append_str(msg, sizeof msg, &len, ", ");
    onnxc_k::append_dims(msg, sizeof msg, &len, p.dims[i], p.rank[i]);
  }
  onnxc_k::append_str(msg, sizeof msg, &len, ")");
  return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, msg);
}

/// numel of dims[0..rank), false on a negative dim (no shape recorded) or an overflow.
bool count(const i64 *dims, i64 rank, i64 &n) {
  n = 1;
  for (i64 d = 0; d < rank; ++d)
    if (dims[d] < 0 || __builtin_mul_overflow(n, dims[d], &n))
      return false;
  return true;
}

/// Row-major strides of dims, aligned to the right of an output of rank `to` (0 where the
/// input has no dim or broadcasts a 1).
void broadcast_strides(const i64 *dims, i64 rank, i64 to, i64 *strides) {
  i64 s = 1;
  for (i64 d = to; d-- > 0;) {
    const i64 k = d - (to - rank);
    if (k < 0 || dims[k] == 1) {
      strides[d] = 0;
    } else {
      strides[d] = s;
    }
    if (k >= 0)
      s *= dims[k];
  }
}

/// a op b; integers wrap (no undefined overflow) and divide as scalar_math.h's dv (x / 0 is 0,
/// MIN / -1 wraps).
template <typename T> T apply(i64 op, T a, T b) {
  constexpr bool integer = T(0.5) == T(0);
  T r;
  switch (op) {
  case onnxc_k::kRtAdd:
    if constexpr (integer) {
      __builtin_add_overflow(a, b, &r);
      return r;
    }
    return a + b;
  case onnxc_k::kRtSub:
    if constexpr (integer) {
      __builtin_sub_overflow(a, b, &r);
      return r;
    }
    return a - b;
  case onnxc_k::kRtMul:
    if constexpr (integer) {
      __builtin_mul_overflow(a, b, &r);
      return r;
    }
    return a * b;
  default:
    if constexpr (integer) {
      if (b == T(0))
        return T(0);
      if (b == T(-1)) {
        __builtin_sub_overflow(T(0), a, &r);
        return r;
      }
    }
    return a / b;
  }
}

/// Steps the index `idx` over `out` (rank r, last dim fastest) and the offsets oa, ob of two
/// operands with strides sa, sb (0 where they broadcast).
inline void next_index(i64 *idx, const i64 *out, i64 r, const i64 *sa, const i64 *sb, i64 &oa,
                       i64 &ob) {
  for (i64 d = r; d-- > 0;) {
    oa += sa[d];
    ob += sb[d];
    if (++idx[d] < out[d])
      return;
    oa -= sa[d] * out[d];
    ob -= sb[d] * out[d];
    idx[d] = 0;
  }
}

/// y[o] = a[..] op b[..] over the broadcast index space `out` of rank r.
template <typename T>
void binary(i64 op, const T *a, const T *b, T *y, const i64 *out, i64 r, const i64 *sa,
            const i64 *sb, i64 total) {
  i64 idx[8] = {}, oa = 0, ob = 0;
  for (i64 o = 0; o < total; ++o) {
    y[o] = apply<T>(op, a[oa], b[ob]);
    next_index(idx, out, r, sa, sb, oa, ob);
  }
}

/// Matrix products over the broadcast batch index space `out` of rank r (strides in matrices).
template <typename T>
void matmul(const T *a, const T *b, T *y, i64 batch, const i64 *out, i64 r, const i64 *sa,
            const i64 *sb, i64 m, i64 k, i64 n) {
  i64 idx[8] = {}, oa = 0, ob = 0;
  for (i64 o = 0; o < batch; ++o) {
    T *c = y + o * m * n;
    for (i64 i = 0; i < m * n; ++i)
      c[i] = T(0);
    for (i64 i = 0; i < m; ++i)
      for (i64 q = 0; q < k; ++q) {
        const T x = a[oa * m * k + i * k + q];
        for (i64 j = 0; j < n; ++j)
          c[i * n + j] += x * b[ob * k * n + q * n + j];
      }
    next_index(idx, out, r, sa, sb, oa, ob);
  }
}

template <typename F> int32_t by_type(i64 dtype, F f) {
  switch (dtype) {
  case onnxc_k::kRtF32:
    return f(float{});
  case onnxc_k::kRtF64:
    return f(double{});
  case onnxc_k::kRtI32:
    return f(int32_t{});
  case onnxc_k::kRtI64:
    return f(int64_t{});
  default:
    return -1;
  }
}
/// Split of X along p.axis into p.outputs values shaped by the run: tensors {X, Y0, ...}.
int32_t split(onnxc_rt *rt, void *const *t, const RtDataParams &p) {
  const i64 *x = p.dims[0], r = p.rank[0], len = x[p.axis], k = p.outputs, eb = p.elem_bytes;
  i64 sizes[8];
  if (p.mode == onnxc_k::kRtSplitGiven) {
    i64 sum = 0;
    for (i64 j = 0; j < k; ++j)
      if (__builtin_add_overflow(sum, sizes[j] = p.axes[j], &sum))
        return fail_shapes(rt, p, "the split sizes add up to too many elements");
    if (sum != len)
      return fail_shapes(rt, p, "the split sizes do not add up to the dim along the axis");
  } else if (p.mode == onnxc_k::kRtSplitEqual) {
    if (len % k != 0)
      return fail_shapes(rt, p, "the dim along the axis does not split evenly into the outputs");
    for (i64 j = 0; j < k; ++j)
      sizes[j] = len / k;
  } else {
    // opset 18's num_outputs: parts of ceil(len / k), the last one smaller (ONNX's reference
    // refuses a last part below 0: 5 into 4 parts)
    const i64 chunk = (len + k - 1) / k;
    if ((k - 1) * chunk > len)
      return fail_shapes(rt, p,
                         "the dim along the axis cannot be split into num_outputs parts "
                         "(parts of ceil(dim / num_outputs) leave the last one below 0)");
    for (i64 j = 0; j < k; ++j) {
      const i64 left = len - j * chunk;
      sizes[j] = left < chunk ? left : chunk;
    }
  }
  i64 outer = 1, inner = eb;
  for (i64 d = 0; d < p.axis; ++d)
    outer *= x[d];
  for (i64 d = p.axis + 1; d < r; ++d)
    inner *= x[d];
  const auto *a = static_cast<const unsigned char *>(t[0]);
  for (i64 j = 0, at = 0; j < k; at += sizes[j++]) {
    i64 dims[8];
    for (i64 d = 0; d < r; ++d)
      dims[d] = d == p.axis ? sizes[j] : x[d];
    auto *y = static_cast<unsigned char *>(
        onnxc_rt_output_buffer(rt, t[1 + j], static_cast<uint64_t>(outer * sizes[j] * inner)));
    if (!y)
      return ONNXC_STATUS_OUT_OF_MEMORY;
    for (i64 o = 0; o < outer; ++o)
      if (sizes[j] > 0)
        __builtin_memcpy(y + o * sizes[j] * inner, a + (o * len + at) * inner,
                         static_cast<uint64_t>(sizes[j] * inner));
    onnxc_rt_set_shape(rt, t[1 + j], static_cast<int32_t>(r), dims);
  }
  return 0;
}
} // namespace

/// Tensors {inputs..., Y} (Reshape {X, SHAPE, Y}); see run_time_data_params.h.
extern "C" int32_t onnxc_k_run_time_data(onnxc_rt *rt, void *const *t, const int64_t *pp) {
  const auto p = onnxc_k::params_of<RtDataParams>(pp);
  const i64 nin = p.inputs, eb = p.elem_bytes;

  i64 in_numel[onnxc_k::kRtDataMaxInputs];
  for (i64 i = 0; i < nin; ++i)
    if (!count(p.dims[i], p.rank[i], in_numel[i]))
      return fail(rt, "an input has a negative dim or too many elements");
  i64 out[8] = {}, r = p.out_rank;
  const i64 *x = p.dims[0];
  if (p.op == onnxc_k::kRtSplit)
    return split(rt, t, p);
  void *const out_slot = t[p.op == onnxc_k::kRtReshape ? nin + 1 : nin];
  switch (p.op) {
  case onnxc_k::kRtTranspose:
    for (i64 d = 0; d < r; ++d)
      out[d] = x[p.axes[d]];
    break;
  case onnxc_k::kRtReshape: {
    const char *why = onnxc_k::reshape_dims(static_cast<const int64_t *>(t[1]), r, x, p.rank[0],
                                            in_numel[0], p.axis != 0, out);
    if (why)
      return fail_shapes(rt, p, why);
    break;
  }
  case onnxc_k::kRtSqueeze: {
    i64 k = 0;
    for (i64 d = 0; d < p.rank[0]; ++d) {
      if (p.axes[d] == onnxc_k::kRtDrop) {
        if (x[d] != 1)
          return fail_shapes(rt, p, "axes name a dim whose size is not 1");
        continue;
      }
      if (p.axes[d] == onnxc_k::kRtKeepNotOne && x[d] == 1)
        return fail_shapes(rt, p,
                           "a Squeeze with no axes meets a dim of 1 that the compiler could not "
                           "know, which would change the output's rank from the one compiled "
                           "(give axes)");
      out[k++] = x[d];
    }
    break;
  }
  case onnxc_k::kRtGatherElements:
    for (i64 d = 0; d < r; ++d) {
      out[d] = p.dims[1][d];
      if (d != p.axis && out[d] > x[d])
        return fail_shapes(rt, p, "the indices' dims exceed the data's off the axis");
    }
    break;
  case onnxc_k::kRtUnsqueeze:
    for (i64 d = 0, next = 0; d < r; ++d)
      out[d] = p.axes[d] ? 1 : x[next++];
    break;
  case onnxc_k::kRtConcat:
    for (i64 d = 0; d < r; ++d)
      out[d] = x[d];
    out[p.axis] = 0;
    for (i64 i = 0; i < nin; ++i) {
      for (i64 d = 0; d < r; ++d)
        if (d != p.axis && p.dims[i][d] != x[d])
          return fail_shapes(rt, p, "the inputs' dims differ off the concatenation axis");
      out[p.axis] += p.dims[i][p.axis];
    }
    break;
  case onnxc_k::kRtMatMul: {
    const i64 *b = p.dims[1], ra = p.rank[0], rb = p.rank[1];
    if (x[ra - 1] != b[rb - 2])
      return fail_shapes(rt, p, "the inner dims of the matrix product differ");
    for (i64 d = 0; d < r - 2; ++d) {
      const i64 ka = d - (r - ra), kb = d - (r - rb);
      const i64 da = ka >= 0 ? x[ka] : 1, db = kb >= 0 ? b[kb] : 1;
      if (da != db && da != 1 && db != 1)
        return fail_shapes(rt, p, "the batch dims of the matrix product do not broadcast");
      out[d] = da == 1 ? db : da;
    }
    out[r - 2] = x[ra - 2];
    out[r - 1] = b[rb - 1];
    break;
  }
  default: /* broadcasting arithmetic */
    for (i64 d = 0; d < r; ++d) {
      i64 o = 1;
      for (i64 i = 0; i < nin; ++i) {
        const i64 k = d - (r - p.rank[i]);
        const i64 v = k >= 0 ? p.dims[i][k] : 1;
        if (v != 1 && o != 1 && v != o)
          return fail_shapes(rt, p, "the inputs' dims do not broadcast");
        if (v != 1)
          o = v;
      }
      out[d] = o;
    }
  }
  i64 total;
  if (!count(out, r, total) || __builtin_mul_overflow(total, eb, &total))
    return fail(rt, "the output would have too many elements");
  auto *y = static_cast<unsigned char *>(
      onnxc_rt_output_buffer(rt, out_slot, static_cast<uint64_t>(total)));
  if (!y)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  total /= eb > 0 ? eb : 1;
  const auto *a = static_cast<const unsigned char *>(t[0]);
  switch (p.op) {
  case onnxc_k::kRtTranspose: {
    i64 stride[8], src_stride[8];
    for (i64 d = r; d-- > 0;)
      stride[d] = d + 1 < r ? stride[d + 1] * x[d + 1] : 1;
    for (i64 d = 0; d < r; ++d)
      src_stride[d] = stride[p.axes[d]];
    for (i64 o = 0; o < total; ++o) {
      i64 rest = o, src = 0;
      for (i64 d = r; d-- > 0;) {
        src += (rest % out[d]) * src_stride[d];
        rest /= out[d];
      }
      __builtin_memcpy(y + o * eb, a + src * eb, static_cast<uint64_t>(eb));
    }
    break;
  }
  case onnxc_k::kRtReshape:
  case onnxc_k::kRtSqueeze:
  case onnxc_k::kRtUnsqueeze:
    if (total > 0)
      __builtin_memcpy(y, a, static_cast<uint64_t>(total * eb));
    break;
  case onnxc_k::kRtConcat: {
    i64 outer = 1, inner = 1;
    for (i64 d = 0; d < p.axis; ++d)
      outer *= out[d];
    for (i64 d = p.axis + 1; d < r; ++d)
      inner *= out[d];
    unsigned char *w = y;
    for (i64 o = 0; o < outer; ++o)
      for (i64 i = 0; i < nin; ++i) {
        const i64 bytes = p.dims[i][p.axis] * inner * eb;
        if (bytes > 0)
          __builtin_memcpy(w, static_cast<const unsigned char *>(t[i]) + o * bytes,
                           static_cast<uint64_t>(bytes));
        w += bytes;
      }
    break;
  }
  case onnxc_k::kRtGatherElements: {
    i64 ostride[8], dstride[8];
    for (i64 d = r; d-- > 0;) {
      ostride[d] = d + 1 < r ? ostride[d + 1] * out[d + 1] : 1;
      dstride[d] = d + 1 < r ? dstride[d + 1] * x[d + 1] : 1;
    }
    for (i64 o = 0; o < total; ++o) {
      i64 k = onnxc_k::index_at(t[1], p.mode, o);
      if (k < -x[p.axis] || k >= x[p.axis])
        return fail_shapes(rt, p, "an index is out of range along the axis");
      k += k < 0 ? x[p.axis] : 0;
      i64 src = 0;
      for (i64 d = 0; d < r; ++d)
        src += (d == p.axis ? k : (o / ostride[d]) % out[d]) * dstride[d];
      __builtin_memcpy(y + o * eb, a + src * eb, static_cast<uint64_t>(eb));
    }
    break;
  }
  case onnxc_k::kRtMatMul: {
    i64 sa[8], sb[8], batch = 1;
    /* strides in matrices of the batch dims (all but the last two) */
    broadcast_strides(p.dims[0], p.rank[0] - 2, r - 2, sa);
    broadcast_strides(p.dims[1], p.rank[1] - 2, r - 2, sb);
    for (i64 d = 0; d < r - 2; ++d)
      batch *= out[d];
    const i64 m = out[r - 2], k = x[p.rank[0] - 1], n = out[r - 1];
    if (by_type(p.dtype, [&](auto z) {
          using T = decltype(z);
          matmul<T>(static_cast<const T *>(t[0]), static_cast<const T *>(t[1]),
                    reinterpret_cast<T *>(y), batch, out, r - 2, sa, sb, m, k, n);
          return 0;
        }) < 0)
      return fail(rt, "internal error: a matrix product of this element type");
    break;
  }
  default: {
    i64 sa[8], sb[8];
    broadcast_strides(p.dims[0], p.rank[0], r, sa);
    broadcast_strides(p.dims[1], p.rank[1], r, sb);
    if (total > 0 && by_type(p.dtype, [&](auto z) {
                       using T = decltype(z);
                       binary<T>(p.op, static_cast<const T *>(t[0]), static_cast<const T *>(t[1]),
                                 reinterpret_cast<T *>(y), out, r, sa, sb, total);
                       return 0;
                     }) < 0)
      return fail(rt, "internal error: arithmetic on this element type");
  }
  }
  onnxc_rt_set_shape(rt, out_slot, static_cast<int32_t>(r), out);
  return 0;
}
