/* Softmax / LogSoftmax along one axis of a tensor viewed as [outer, len, inner].
 * params {outer, len, inner, log, causal_rows, causal_off}; tensors {X, Y}. Numerically stable
 * (subtracts the max). causal_rows L > 0 (fuse-causal-mask, inner 1, Softmax only): row r is
 * query row r % L of its plane and is normalised over its first r % L + causal_off + 1
 * positions, the rest written 0 (Softmax of the -inf the mask gave them).
 * float rows along the last axis run 16 lanes at a time (vec_math.h).
 */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"
#include "templates/cpu/vec_math.h"

namespace onnxc_k {
namespace {

constexpr i64 kChunk = 64; /* inner positions processed together when inner > 1 */

/// Sum of the lanes of v.
inline float hsum(vf32 v) {
  float s = 0;
  for (int i = 0; i < kVecF32; ++i)
    s += v[i];
  return s;
}

/// A float row, 16 lanes at a time: max, then exp (vec_math.h) and its sum, then the output.
/// The tail is padded with -inf, whose exp is 0.
inline void softmax_row_f32(const float *x, float *y, i64 len, bool log) {
  const i64 full = len - len % kVecF32;
  const vf32 ninf = vm::cst<vf32>(-__builtin_inff());
  vf32 tail = ninf;
  for (i64 j = full; j < len; ++j)
    tail[j - full] = x[j];
  vf32 m = tail;
  for (i64 l = 0; l < full; l += kVecF32) {
    const vf32 v = load_f32(x + l);
    m = v > m ? v : m;
  }
  float mx = m[0];
  for (int i = 1; i < kVecF32; ++i)
    mx = m[i] > mx ? m[i] : mx;
  vf32 sum = {};
  for (i64 l = 0; l < full; l += kVecF32) {
    const vf32 e = vm::exp(load_f32(x + l) - mx);
    store_f32(y + l, e);
    sum += e;
  }
  const vf32 et = vm::exp(tail - mx);
  sum += et;
  const float s = hsum(sum);
  if (log) {
    const float ls = vm::log(s);
    map_f32(x, y, len, [mx, ls](vf32 v) { return v - mx - ls; });
  } else {
    for (i64 j = full; j < len; ++j)
      y[j] = et[j - full];
    const float inv = 1.0f / s;
    map_f32(y, y, len, [inv](vf32 v) { return v * inv; });
  }
}

template <typename T> void softmax_row(const T *x, T *y, i64 len, bool log) {
  if constexpr (is_f32<T>)
    return softmax_row_f32(x, y, len, log);
  T mx = x[0];
  for (i64 l = 1; l < len; ++l)
    mx = x[l] > mx ? x[l] : mx;
  T sum = 0;
  for (i64 l = 0; l < len; ++l) {
    const T e = ex(x[l] - mx);
    y[l] = e;
    sum += e;
  }
  if (log) {
    const T ls = lg(sum);
    for (i64 l = 0; l < len; ++l)
      y[l] = x[l] - mx - ls;
  } else {
    const T inv = T(1) / sum;
    for (i64 l = 0; l < len; ++l)
      y[l] *= inv;
  }
}

/// Columns [i0, i0+w) of one outer slice, stride `inner` between axis positions.
template <typename T> void softmax_cols(const T *x, T *y, i64 len, i64 inner, i64 w, bool log) {
  T mx[kChunk], sum[kChunk];
  for (i64 i = 0; i < w; ++i)
    mx[i] = x[i], sum[i] = 0;
  for (i64 l = 1; l < len; ++l)
    for (i64 i = 0; i < w; ++i)
      mx[i] = x[l * inner + i] > mx[i] ? x[l * inner + i] : mx[i];
  for (i64 l = 0; l < len; ++l)
    for (i64 i = 0; i < w; ++i) {
      const T e = ex(x[l * inner + i] - mx[i]);
      y[l * inner + i] = e;
      sum[i] += e;
    }
  for (i64 i = 0; i < w; ++i)
    sum[i] = log ? lg(sum[i]) : T(1) / sum[i];
  for (i64 l = 0; l < len; ++l)
    for (i64 i = 0; i < w; ++i)
      y[l * inner + i] = log ? x[l * inner + i] - mx[i] - sum[i] : y[l * inner + i] * sum[i];
}

template <typename T> int32_t softmax(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 outer = p[0], len = p[1], inner = p[2];
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  if (len <= 0)
    return 0;
  const i64 chunks = (inner + kChunk - 1) / kChunk;
  // The shape is read from the body's params: node-specialised also on the thread pool.
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const i64 len = pp[1], inner = pp[2], chunks = (inner + kChunk - 1) / kChunk;
    const bool log = pp[3] != 0;
    const i64 causal_rows = pp[4], causal_off = pp[5];
    for (i64 w = lo; w < hi; ++w) {
      if (inner == 1 && causal_rows > 0) { /* row i keeps its first i + off + 1 positions */
        const i64 keep = w % causal_rows + causal_off + 1, n = keep < len ? keep : len;
        softmax_row(x + w * len, y + w * len, n, log);
        for (i64 j = n; j < len; ++j)
          y[w * len + j] = T(0);
      } else if (inner == 1) {
        softmax_row(x + w * len, y + w * len, len, log);
      } else {
        const i64 o = w / chunks, i0 = (w % chunks) * kChunk;
        const i64 off = o * len * inner + i0, n = inner - i0 < kChunk ? inner - i0 : kChunk;
        softmax_cols(x + off, y + off, len, inner, n, log);
      }
    }
  };
  parallel_for(rt, p, inner == 1 ? outer : outer * chunks, 1 + 4096 / (len + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_SOFTMAX_KERNEL(ct, sfx, unused)                                                      \
  extern "C" int32_t onnxc_k_softmax_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {       \
    return onnxc_k::softmax<ct>(rt, t, p);                                                         \
  }
ONNXC_FLOAT_TYPES(ONNXC_SOFTMAX_KERNEL, 0)
