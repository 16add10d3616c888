/* TensorScatter kernel (any element type, by bytes); parameters:
 * templates/cpu/tensor_scatter_params.h. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/tensor_scatter_params.h"

extern "C" int32_t onnxc_k_tensor_scatter(onnxc_rt *, void *const *t, const int64_t *params) {
  using namespace onnxc_k;
  const TensorScatterParams p = params_of<TensorScatterParams>(params);
  const char *past = static_cast<const char *>(t[0]), *upd = static_cast<const char *>(t[1]);
  const int64_t *idx = static_cast<const int64_t *>(t[2]);
  char *out = static_cast<char *>(t[3]);
  const int64_t cache_rows = p.batch * p.pre * p.max_seq;
  if (out != past)
    __builtin_memmove(out, past, static_cast<__SIZE_TYPE__>(cache_rows * p.row_bytes));
  for (int64_t b = 0; b < p.batch; ++b) {
    int64_t start = idx ? idx[b] : 0;
    for (int64_t q = 0; q < p.pre; ++q)
      for (int64_t s = 0; s < p.seq; ++s) {
        int64_t pos = start + s;
        if (p.circular)
          pos = ((pos % p.max_seq) + p.max_seq) % p.max_seq;
        if (pos < 0 || pos >= p.max_seq)
          continue;
        __builtin_memcpy(out + ((b * p.pre + q) * p.max_seq + pos) * p.row_bytes,
                         upd + ((b * p.pre + q) * p.seq + s) * p.row_bytes,
                         static_cast<__SIZE_TYPE__>(p.row_bytes));
      }
  }
  return 0;
}
