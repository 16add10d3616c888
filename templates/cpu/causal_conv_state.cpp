/* CausalConvWithState (opset 27): per channel, a causal 1-D convolution of [past_state (zeros
 * when omitted), input] with the channel's K taps (+ bias), optionally followed by SiLU
 * (computed in float on the output rounded to the element type, as the ONNX reference does);
 * present_state is the last K-1 positions of that concatenation. Parallel over batch x
 * channels. Params: templates/cpu/attention_params.h. */
#include "templates/cpu/attention_common.h"
#include "templates/cpu/attention_params.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_k {
namespace {

template <typename S> int32_t causal_conv(onnxc_rt *rt, void *const *t, const i64 *params) {
  using E = Elem<S>;
  using A = typename E::A;
  const CausalConvStateParams p = params_of<CausalConvStateParams>(params);
  const S *x = static_cast<const S *>(t[0]), *w = static_cast<const S *>(t[1]),
          *bias = static_cast<const S *>(t[2]), *past = static_cast<const S *>(t[3]);
  S *y = static_cast<S *>(t[4]), *present = static_cast<S *>(t[5]);
  const i64 k1 = p.K - 1;
  auto body = [&](i64 lo, i64 hi) {
    for (i64 bc = lo; bc < hi; ++bc) {
      const S *xr = x + bc * p.L, *wr = w + (bc % p.C) * p.K, *pr = past ? past + bc * k1 : 0;
      /* position u of [past, input], u in [0, k1 + L) */
      auto at = [&](i64 u) { return u >= k1 ? E::load(xr[u - k1]) : pr ? E::load(pr[u]) : A(0); };
      for (i64 l = 0; l < p.L; ++l) {
        A acc = bias ? E::load(bias[bc % p.C]) : A(0);
        for (i64 k = 0; k < p.K; ++k)
          acc += E::load(wr[k]) * at(l + k);
        if (p.silu) {
          const A c = E::load(E::store(acc));
          acc = c / (A(1) + ex(-c));
        }
        y[bc * p.L + l] = E::store(acc);
      }
      if (present)
        for (i64 u = 0; u < k1; ++u)
          present[bc * k1 + u] = E::store(at(p.L + u));
    }
  };
  parallel_for(rt, p.B * p.C, 1 + 4096 / (p.L * p.K + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

ONNXC_ATTN_KERNELS(causal_conv_with_state, causal_conv)
