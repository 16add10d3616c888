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

template <typename T> int32_t gemm_kernel(onnxc_rt *rt, void *const *t, const i64 *params) {
  using namespace gemm;
  constexpr i64 NR = nr<T>();
  const GemmParams gp = params_of<GemmParams>(params);
  const i64 M = gp.M, N = gp.N, K = gp.K, rank = gp.rank;
  const T alpha = (T)gp.alpha, beta = (T)gp.beta;
  const Act<T> act = make_act<T>(gp.act);
  const i64 *dims = gp.batch, *a_bs = gp.a_bs, *b_bs = gp.b_bs;
  const T *A = static_cast<const T *>(t[0]), *B = static_cast<const T *>(t[1]);
  const T *C = gp.has_c ? static_cast<const T *>(t[2]) : nullptr;
  T *Y = static_cast<T *>(t[3]);
  const T *packed = gp.direct ? nullptr : gp.b_packed ? B : static_cast<T *>(t[4]);
  const i64 panels = ceil_div(N, NR), kk = K > 0 ? K : 1, pe = packed_elems<T>(K, N);

  auto pack = [&](i64 lo, i64 hi) {
    T *dst = static_cast<T *>(t[4]);
    for (i64 w = lo; w < hi; ++w) {
      const i64 b = w / panels, pn = w % panels;
      pack_panel(dst + b * pe + pn * kk * NR, B + b * K * N, K, N, gp.rsb, gp.csb, pn);
    }
  };
  if (!gp.direct && !gp.b_packed)
    parallel_for(rt, gp.b_count * panels, 1 + 8192 / (kk * NR), pack);

  i64 batches = 1;
  for (i64 d = 0; d < rank; ++d)
    batches *= dims[d];
  auto problem = [&](i64 b) {
    i64 rem = b, a_off = 0, b_idx = 0;
    for (i64 d = rank - 1; d >= 0; --d) {
      const i64 c = rem % dims[d];
      rem /= dims[d];
      a_off += c * a_bs[d];
      b_idx += c * b_bs[d];
    }
    Problem<T> pr{M,
                  N,
                  K,
                  A + a_off,
                  gp.rsa,
                  gp.csa,
                  packed ? packed + b_idx * pe : nullptr,
                  B + b_idx * K * N,
                  gp.rsb,
                  gp.csb,
                  Y + b * M * N,
                  gp.rsy,
                  gp.csy,
                  alpha,
                  beta,
                  C,
                  gp.rsc,
                  gp.csc,
                  act};
    pr.mr = gp.mr;
    return pr;
  };
  run<T>(rt, batches, M, N, problem);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_GEMM_KERNEL(ct, sfx, unused)                                                         \
  extern "C" int32_t onnxc_k_gemm_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {          \
    return onnxc_k::gemm_kernel<ct>(rt, t, p);                                                     \
  }
ONNXC_FLOAT_TYPES(ONNXC_GEMM_KERNEL, 0)
