/* Batched GEMM for MatMul and Gemm (and anything else lowered through gemm_call()).
 *
 * params {M, N, K, rsa, csa, rsb, csb, rsy, csy, alpha (f64), beta (f64), has_c, rsc, csc,
 *         b_count, direct, rank, act_kind, act_a (f64), act_b (f64), batch[rank], a_bs[rank] (elements), b_bs[rank] (matrices)}
 * tensors {A, B, C (may be null), Y, scratch}: Y[b] = alpha * A[b] B[b] + beta * C, where the
 * B matrices are dense K x N blocks (read through rsb/csb) and each output matrix is M*N elements.
 * The scratch holds the b_count packed B matrices (templates/cpu/nn_gemm.h), unless `direct`
 * (small M, B with unit stride along N or K): then B is read as it is and there is no scratch.
 * A fused activation (templates/cpu/activation.h) is applied as each element of Y is stored.
 */
#include "templates/cpu/activation.h"
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/nn_gemm.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

template <typename T> int32_t gemm_kernel(onnxc_rt *rt, void *const *t, const i64 *p) {
  using namespace gemm;
  constexpr i64 NR = nr<T>();
  const i64 M = p[0], N = p[1], K = p[2], rsa = p[3], csa = p[4], rsb = p[5], csb = p[6];
  const i64 rsy = p[7], csy = p[8], rsc = p[12], csc = p[13], b_count = p[14], direct = p[15],
            rank = p[16];
  const T alpha = (T)param_f64(p, 9), beta = (T)param_f64(p, 10);
  const Act<T> act = read_act<T>(p, 17);
  const i64 *dims = p + 20, *a_bs = dims + rank, *b_bs = a_bs + rank;
  const T *A = static_cast<const T *>(t[0]), *B = static_cast<const T *>(t[1]);
  const T *C = p[11] ? static_cast<const T *>(t[2]) : nullptr;
  T *Y = static_cast<T *>(t[3]);
  T *packed = direct ? nullptr : static_cast<T *>(t[4]);
  const i64 panels = ceil_div(N, NR), kk = K > 0 ? K : 1, pe = packed_elems<T>(K, N);

  auto pack = [&](i64 lo, i64 hi) {
    for (i64 w = lo; w < hi; ++w) {
      const i64 b = w / panels, pn = w % panels;
      pack_panel(packed + b * pe + pn * kk * NR, B + b * K * N, K, N, rsb, csb, pn);
    }
  };
  if (!direct)
    parallel_for(rt, b_count * panels, 1 + 8192 / (kk * NR), pack);

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
    return Problem<T>{M,
                      N,
                      K,
                      A + a_off,
                      rsa,
                      csa,
                      direct ? nullptr : packed + b_idx * pe,
                      B + b_idx * K * N,
                      rsb,
                      csb,
                      Y + b * M * N,
                      rsy,
                      csy,
                      alpha,
                      beta,
                      C,
                      rsc,
                      csc,
                      act};
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
