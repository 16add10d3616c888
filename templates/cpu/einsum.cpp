/* Einsum as one loop nest: every output element is the sum, over the summed indices, of the
 * product of the operands' elements. Parameters: templates/cpu/misc_params.h (EinsumParams). */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/misc_params.h"
#include "templates/cpu/scalar_math.h"
#include "templates/cpu/types.h"

namespace onnxc_k {
namespace {

template <typename T> int32_t einsum(onnxc_rt *rt, void *const *t, const i64 *params) {
  const EinsumParams p = params_of<EinsumParams>(params);
  T *y = static_cast<T *>(t[p.n_inputs]);
  i64 out_count = 1, sum_count = 1;
  for (i64 l = 0; l < p.n_out; ++l)
    out_count *= p.out_dims[l];
  for (i64 l = 0; l < p.n_sum; ++l)
    sum_count *= p.sum_dims[l];
  auto body = [&](i64 lo, i64 hi) {
    for (i64 o = lo; o < hi; ++o) {
      i64 base[kEinsumMaxInputs] = {};
      for (i64 l = p.n_out - 1, rem = o; l >= 0; --l) {
        const i64 idx = rem % p.out_dims[l];
        rem /= p.out_dims[l];
        for (i64 i = 0; i < p.n_inputs; ++i)
          base[i] += idx * p.out_strides[i][l];
      }
      i64 sidx[kEinsumMaxLetters] = {};
      i64 off[kEinsumMaxInputs];
      for (i64 i = 0; i < kEinsumMaxInputs; ++i)
        off[i] = base[i];
      T acc = 0;
      for (i64 s = 0; s < sum_count; ++s) {
        T prod = static_cast<const T *>(t[0])[off[0]];
        for (i64 i = 1; i < p.n_inputs; ++i)
          prod = onnxc_k::wmul(prod, static_cast<const T *>(t[i])[off[i]]);
        acc = onnxc_k::wadd(acc, prod);
        for (i64 l = p.n_sum - 1; l >= 0; --l) { // odometer step over the summed indices
          for (i64 i = 0; i < p.n_inputs; ++i)
            off[i] += p.sum_strides[i][l];
          if (++sidx[l] < p.sum_dims[l])
            break;
          for (i64 i = 0; i < p.n_inputs; ++i)
            off[i] -= p.sum_strides[i][l] * p.sum_dims[l];
          sidx[l] = 0;
        }
      }
      y[o] = acc;
    }
  };
  parallel_for(rt, out_count, 1 + 16384 / (sum_count * p.n_inputs + 1), body);
  return 0;
}

} // namespace
} // namespace onnxc_k

#define ONNXC_EINSUM_KERNEL(ct, sfx, unused)                                                       \
  extern "C" int32_t onnxc_k_einsum_##sfx(onnxc_rt *rt, void *const *t, const int64_t *p) {        \
    return onnxc_k::einsum<ct>(rt, t, p);                                                          \
  }
ONNXC_FLOAT_TYPES(ONNXC_EINSUM_KERNEL, 0)
ONNXC_EINSUM_KERNEL(int, i32, 0)
ONNXC_EINSUM_KERNEL(long long, i64, 0)
