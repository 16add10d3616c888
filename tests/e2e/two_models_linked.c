/* e2e.two_models_linked: one program linked directly against two model libraries, including
 * both typed headers (their shared ABI types block must not clash) and calling each model
 * through its NAME_* functions.   two_models_linked EXPECTED_SAMPLE.txt EXPECTED_MLP.txt */
#include "sample.h"
#include "sample_mlp.h"
#include "e2e_common.h"

int main(int argc, char **argv) {
  if (argc != 3)
    e2e_fail("usage: two_models_linked EXPECTED_SAMPLE.txt EXPECTED_MLP.txt");
  static float want_a[E2E_MAX_VALUES], want_b[E2E_MAX_VALUES];
  static float in[SAMPLE_INPUT_0_SIZE], out_a[SAMPLE_OUTPUT_0_SIZE], out_b[SAMPLE_MLP_OUTPUT_0_SIZE];
  if (e2e_read_floats(argv[1], want_a, E2E_MAX_VALUES) != SAMPLE_OUTPUT_0_SIZE ||
      e2e_read_floats(argv[2], want_b, E2E_MAX_VALUES) != SAMPLE_MLP_OUTPUT_0_SIZE)
    e2e_fail("expected files do not match the headers' output sizes");
  e2e_sample_input(in, SAMPLE_INPUT_0_SIZE);
  onnxc_context *a = NULL, *b = NULL;
  if (sample_create(&a) != ONNXC_OK || sample_mlp_create(&b) != ONNXC_OK)
    e2e_fail("create failed");
  for (int round = 0; round < 5; ++round) {
    if (sample_infer(a, in, out_a) != ONNXC_OK)
      e2e_fail("sample_infer: %s", sample_last_error(a));
    if (sample_mlp_infer(b, in, out_b) != ONNXC_OK)
      e2e_fail("sample_mlp_infer: %s", sample_mlp_last_error(b));
    e2e_expect_close("sample", out_a, want_a, SAMPLE_OUTPUT_0_SIZE);
    e2e_expect_close("sample_mlp", out_b, want_b, SAMPLE_MLP_OUTPUT_0_SIZE);
  }
  sample_destroy(a);
  sample_mlp_destroy(b);
  printf("PASS: sample and sample_mlp linked into one program\n");
  return 0;
}
