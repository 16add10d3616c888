/* Batched GEMM for MatMul and Gemm (and anything else lowered through gemm_call()).
 *
 * params: gemm::GemmParams (templates/cpu/gemm_params.h).
 * tensors {A, B, C (may be null), Y, scratch}: Y[b] = alpha * A[b] B[b] + beta * C, where the
 * B matrices are dense K x N blocks (read through rsb/csb) and each output matrix is M*N elements.
 * The scratch holds the b_count packed B matrices (templates/cpu/nn_gemm.h), unless `direct`
 * (small M, B with unit stride along N or K: B is read as it is) or `b_packed` (B is a constant
 * the lowering packed at compile time): then there is no scratch.
 * A fused activation (templates/cpu/activation.h) is applied as each element of Y is stored.
 */
#include "templates/cpu/activation.h"
#include "templates/cpu/gemm_params.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/nn_gemm.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

/// Batch b's Problem of the node's params pp (tensors t): every field a constant or a pointer.
template <typename T> gemm::Problem<T> batch_problem(const i64 *pp, void *const *t, i64 b) {
  using namespace gemm;
  const GemmParams q = params_of<GemmParams>(pp);
  const T *A = static_cast<const T *>(t[0]), *B = static_cast<const T *>(t[1]);
  const T *packed = q.direct ? nullptr : q.b_packed ? B : static_cast<const T *>(t[4]);
  i64 rem = b, a_off = 0, b_idx = 0;
  for (i64 d = q.rank - 1; d >= 0; --d) {
    const i64 c = rem % q.batch[d];
    rem /= q.batch[d];
    a_off += c * q.a_bs[d];
    b_idx += c * q.b_bs[d];
  }
  Problem<T> pr{q.M,
                q.N,
                q.K,
                A + a_off,
                q.rsa,
                q.csa,
                packed ? packed + b_idx * packed_elems<T>(q.K, q.N) : nullptr,
                B + b_idx * q.K * q.N,
                q.rsb,
                q.csb,
                static_cast<T *>(t[3]) + b * q.M * q.N,
                q.rsy,
                q.csy,
                (T)q.alpha,
                (T)q.beta,
                q.has_c ? static_cast<const T *>(t[2]) : nullptr,
                q.rsc,
                q.csc,
                make_act<T>(q.act)};
  pr.mr = q.mr;
  pr.bsub = b_slice_width(q.mr, sizeof(T));
  pr.b_stream = q.b_packed;
  return pr;
}

/// Packs the b_count B matrices into the scratch (panels in parallel, node-specialised body).
template <typename T> void pack_bs(onnxc_rt *rt, void *const *t, const i64 *params) {
  using namespace gemm;
  constexpr i64 NR = nr<T>();
  const GemmParams gp = params_of<GemmParams>(params);
  const i64 kk = gp.K > 0 ? gp.K : 1;
  auto pack = [&](const i64 *pp, i64 lo, i64 hi) {
    const GemmParams q = params_of<GemmParams>(pp);
    const i64 panels = ceil_div(q.N, NR), k1 = q.K > 0 ? q.K : 1, pe = packed_elems<T>(q.K, q.N);
    const T *B = static_cast<const T *>(t[1]);
    T *dst = static_cast<T *>(t[4]);
    for (i64 w = lo; w < hi; ++w) {
      const i64 b = w / panels, pn = w % panels;
      pack_panel(dst + b * pe + pn * k1 * NR, B + b * q.K * q.N, q.K, q.N, q.rsb, q.csb, pn,
                 b_slice_width(q.mr, sizeof(T)));
    }
  };
  parallel_for(rt, params, gp.b_count * ceil_div(gp.N, NR), 1 + 8192 / (kk * NR), pack);
}

template <typename T>
ONNXC_GEMM_INLINE int32_t gemm_kernel(onnxc_rt *rt, void *const *t, const i64 *params) {
  const gemm::GemmParams gp = params_of<gemm::GemmParams>(params);
  if (!gp.direct && !gp.b_packed)
    pack_bs<T>(rt, t, params);
  i64 batches = 1;
  for (i64 d = 0; d < gp.rank; ++d)
    batches *= gp.batch[d];
  auto problem = [&](const i64 *pp, i64 b) { return batch_problem<T>(pp, t, b); };
  gemm::run<T>(rt, params, batches, gp.M, gp.N, !gp.direct, problem);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_GEMM_KERNEL(ct, sfx, unused)                                                         \
  extern "C" int32_t onnxc_k_gemm_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {          \
    return onnxc_k::gemm_kernel<ct>(rt, t, p);                                                     \
  }
ONNXC_FLOAT_TYPES(ONNXC_GEMM_KERNEL, 0)
