/* The onnxc sample app: runs the sample model through its typed header.
 *
 * Build (after `onnxc compile sample.onnx -o DIR/libsample.so`, which also writes DIR/sample.h):
 *   cc -std=c11 -O2 -I DIR samples/main.c -L DIR -lsample -Wl,-rpath,DIR -o sample_app
 * samples/run_sample.sh does all of it. The input is the deterministic pattern
 * x[i] = ((i * 7) % 13) / 13 - 0.5 that samples/make_sample_model.py uses for its reference.
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

  int best = 0;
  printf("output (%d values):", SAMPLE_OUTPUT_0_SIZE);
  for (int i = 0; i < SAMPLE_OUTPUT_0_SIZE; ++i) {
    printf(" %.6f", output[i]);
    if (output[i] > output[best])
      best = i;
  }
  printf("\nargmax: %d\n", best);
  return 0;
}
