/* Strided copy (Slice, Transpose, DepthToSpace, SpaceToDepth), by element size: params and
 * semantics in templates/cpu/strided_copy.h; tensors {x, y}. The copy runs as rows of the last
 * dim; the parallel body reads the shape from its params argument, so it is specialised for the
 * node also on the thread pool. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/strided_copy.h"

namespace {
using onnxc_k::i64;
using onnxc_k::StridedCopyParams;

template <typename E> void strided(onnxc_rt *rt, const E *x, E *y, const i64 *params) {
  const StridedCopyParams p = onnxc_k::params_of<StridedCopyParams>(params);
  const i64 inner = p.rank ? p.dims[p.rank - 1] : 1;
  i64 outer = 1;
  for (i64 d = 0; d + 1 < p.rank; ++d)
    outer *= p.dims[d];
  if (inner == 0)
    return;
  auto body = [&](const i64 *pp, i64 lo, i64 hi) {
    const StridedCopyParams q = onnxc_k::params_of<StridedCopyParams>(pp);
    const i64 n = q.rank ? q.dims[q.rank - 1] : 1, is = q.rank ? q.strides[q.rank - 1] : 1;
    for (i64 o = lo; o < hi; ++o) {
      i64 rem = o, off = q.base;
      for (i64 d = q.rank - 2; d >= 0; --d) {
        off += (rem % q.dims[d]) * q.strides[d];
        rem /= q.dims[d];
      }
      E *py = y + o * n;
      const E *px = x + off;
      if (is == 1) {
        for (i64 i = 0; i < n; ++i)
          py[i] = px[i];
      } else {
        for (i64 i = 0; i < n; ++i)
          py[i] = px[i * is];
      }
    }
  };
  const i64 grain = inner >= 16384 ? 1 : 16384 / inner;
  onnxc_k::parallel_for(rt, params, outer, grain, body);
}
} // namespace

extern "C" int32_t onnxc_k_strided_copy(onnxc_rt *rt, void *const *t, const int64_t *p) {
  switch (onnxc_k::params_of<StridedCopyParams>(p).elem_bytes) {
  case 1: strided(rt, (const unsigned char *)t[0], (unsigned char *)t[1], p); break;
  case 2: strided(rt, (const unsigned short *)t[0], (unsigned short *)t[1], p); break;
  case 4: strided(rt, (const unsigned int *)t[0], (unsigned int *)t[1], p); break;
  case 8: strided(rt, (const unsigned long long *)t[0], (unsigned long long *)t[1], p); break;
  default: return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT, "strided copy: unsupported element size");
  }
  return 0;
}
