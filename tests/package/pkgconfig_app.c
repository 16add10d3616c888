/* Built by the package.pkgconfig test with plain cc and `pkg-config --cflags onnxc` only: uses the
 * installed onnxc_runtime.h (the generic ABI every compiled model exports) on the sample model,
 * linked directly (-lsample), and prints each output value on its own line. The input is the
 * pattern x[i] = ((i * 7) % 13) / 13 - 0.5 of samples/make_sample_model.py --reference.
 */
#include "onnxc_runtime.h"

#include <stdio.h>
#include <string.h>

enum { MAX_VALUES = 4096 };

/* Elements of the float tensor `info` describes; -1 if not float, not static or too large. */
static int64_t float_elements(const onnxc_tensor_info *info) {
  int64_t n = 1;
  for (int32_t d = 0; d < info->rank; ++d) {
    if (info->shape[d] < 0 || info->shape[d] > MAX_VALUES)
      return -1;
    n *= info->shape[d];
    if (n > MAX_VALUES)
      return -1;
  }
  return info->dtype == ONNXC_DTYPE_FLOAT ? n : -1;
}

int main(void) {
  static float input[MAX_VALUES], output[MAX_VALUES];
  onnxc_tensor_info in, out;
  if (onnxc_abi_version() != ONNXC_ABI_VERSION || strcmp(onnxc_model_name(), "sample") != 0 ||
      onnxc_num_inputs() != 1 || onnxc_num_outputs() != 1 || onnxc_input_info(0, &in) != ONNXC_OK ||
      onnxc_output_info(0, &out) != ONNXC_OK) {
    fprintf(stderr, "unexpected model: ABI %u, name %s\n", (unsigned)onnxc_abi_version(),
            onnxc_model_name());
    return 1;
  }
  int64_t n_in = float_elements(&in), n_out = float_elements(&out);
  if (n_in < 0 || n_out < 0) {
    fprintf(stderr, "input and output must be float tensors of at most %d values\n", MAX_VALUES);
    return 1;
  }
  for (int64_t i = 0; i < n_in; ++i)
    input[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;

  onnxc_context *ctx = NULL;
  const void *inputs[1] = {input};
  void *outputs[1] = {output};
  if (onnxc_create(&ctx) != ONNXC_OK || onnxc_run_buffers(ctx, inputs, outputs) != ONNXC_OK) {
    fprintf(stderr, "run failed: %s\n", onnxc_last_error(ctx));
    onnxc_destroy(ctx);
    return 1;
  }
  onnxc_destroy(ctx);
  for (int64_t i = 0; i < n_out; ++i)
    printf("%.9g\n", output[i]);
  return 0;
}
