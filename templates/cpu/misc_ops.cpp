/* EyeLike, ReverseSequence and Det. Parameters: templates/cpu/misc_params.h. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/misc_params.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

template <typename T> int32_t eye_like(void *const *t, const i64 *params) {
  const EyeLikeParams p = params_of<EyeLikeParams>(params);
  T *y = static_cast<T *>(t[0]);
  for (i64 r = 0; r < p.rows; ++r)
    for (i64 c = 0; c < p.cols; ++c)
      y[r * p.cols + c] = T(c - r == p.k ? 1 : 0);
  return 0;
}

template <typename T> int32_t det(onnxc_rt *rt, void *const *t, const i64 *params) {
  const DetParams p = params_of<DetParams>(params);
  const T *x = static_cast<const T *>(t[0]);
  T *y = static_cast<T *>(t[1]);
  double *lu = static_cast<double *>(t[2]); // scratch: one n x n matrix
  const i64 n = p.n;
  for (i64 m = 0; m < p.count; ++m) {
    for (i64 i = 0; i < n * n; ++i)
      lu[i] = static_cast<double>(x[m * n * n + i]);
    double d = 1;
    for (i64 col = 0; col < n && d != 0; ++col) {
      i64 piv = col;
      for (i64 r = col + 1; r < n; ++r)
        if (__builtin_fabs(lu[r * n + col]) > __builtin_fabs(lu[piv * n + col]))
          piv = r;
      if (lu[piv * n + col] == 0) {
        d = 0;
        break;
      }
      if (piv != col) {
        for (i64 c = 0; c < n; ++c) {
          const double tmp = lu[col * n + c];
          lu[col * n + c] = lu[piv * n + c], lu[piv * n + c] = tmp;
        }
        d = -d;
      }
      d *= lu[col * n + col];
      for (i64 r = col + 1; r < n; ++r) {
        const double f = lu[r * n + col] / lu[col * n + col];
        for (i64 c = col; c < n; ++c)
          lu[r * n + c] -= f * lu[col * n + c];
      }
    }
    y[m] = static_cast<T>(d);
  }
  (void)rt;
  return 0;
}

} // namespace
} // namespace onnxc_k

extern "C" int32_t onnxc_k_reverse_sequence(onnxc_rt *rt, void *const *t, const int64_t *params) {
  using namespace onnxc_k;
  const ReverseSequenceParams p = params_of<ReverseSequenceParams>(params);
  const char *x = static_cast<const char *>(t[0]);
  const i64 *lens = static_cast<const i64 *>(t[1]);
  char *y = static_cast<char *>(t[2]);
  for (i64 b = 0; b < p.batch; ++b)
    if (lens[b] < 0 || lens[b] > p.time)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE,
                           "ReverseSequence: a sequence length is outside [0, time]");
  for (i64 b = 0; b < p.batch; ++b)
    for (i64 s = 0; s < p.time; ++s) {
      const i64 src = s < lens[b] ? lens[b] - 1 - s : s;
      const i64 to = p.time_axis == 0 ? s * p.batch + b : b * p.time + s;
      const i64 from = p.time_axis == 0 ? src * p.batch + b : b * p.time + src;
      __builtin_memcpy(y + to * p.inner_bytes, x + from * p.inner_bytes,
                       static_cast<size_t>(p.inner_bytes));
    }
  return 0;
}

#define ONNXC_EYE_LIKE_KERNEL(ct, sfx, unused)                                                     \
  extern "C" int32_t onnxc_k_eye_like_##sfx(onnxc_rt *, void *const *t, const int64_t *p) {        \
    return onnxc_k::eye_like<ct>(t, p);                                                            \
  }
ONNXC_ALL_TYPES(ONNXC_EYE_LIKE_KERNEL, 0)

#define ONNXC_DET_KERNEL(ct, sfx, unused)                                                          \
  extern "C" int32_t onnxc_k_det_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {           \
    return onnxc_k::det<ct>(rt, t, p);                                                             \
  }
ONNXC_FLOAT_TYPES(ONNXC_DET_KERNEL, 0)
