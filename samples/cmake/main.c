/* The CMake sample app (samples/cmake): runs the model compiled by onnxc_add_model() through
 * its typed header sample.h and prints each output value on its own line.
 *
 * The input is the deterministic pattern x[i] = ((i * 7) % 13) / 13 - 0.5, the one
 * samples/make_sample_model.py --reference uses for its numpy reference (expected.txt). Works for
 * any model with one float input and one float output compiled with NAME sample.
 */
#include "sample.h"

#include <stdio.h>

int main(void) {
  static float input[SAMPLE_INPUT_0_SIZE];
  static float output[SAMPLE_OUTPUT_0_SIZE];
  for (int i = 0; i < SAMPLE_INPUT_0_SIZE; ++i)
    input[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;

  onnxc_context *ctx = NULL;
  if (sample_create(&ctx) != ONNXC_OK) {
    fprintf(stderr, "sample_create failed: %s\n", sample_last_error(NULL));
    return 1;
  }
  if (sample_infer(ctx, input, output) != ONNXC_OK) {
    fprintf(stderr, "sample_infer failed: %s\n", sample_last_error(ctx));
    sample_destroy(ctx);
    return 1;
  }
  sample_destroy(ctx);
  for (int i = 0; i < SAMPLE_OUTPUT_0_SIZE; ++i)
    printf("%.9g\n", output[i]);
  return 0;
}
