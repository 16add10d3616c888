/* e2e.c_program_header: a C program linked directly against libsample.so through its typed
 * header sample.h; checks the header's constants and the results of NAME_infer, NAME_run and a
 * caller-supplied arena against the numpy reference (argv[1]: expected.txt). */
#include "sample.h"
#include "e2e_common.h"

int main(int argc, char **argv) {
  if (argc != 2)
    e2e_fail("usage: header_check EXPECTED.txt");
  static float want[E2E_MAX_VALUES], in[SAMPLE_INPUT_0_SIZE], out[SAMPLE_OUTPUT_0_SIZE];
  int n = e2e_read_floats(argv[1], want, E2E_MAX_VALUES);
  if (n != SAMPLE_OUTPUT_0_SIZE)
    e2e_fail("expected.txt has %d values, SAMPLE_OUTPUT_0_SIZE is %d", n, SAMPLE_OUTPUT_0_SIZE);
  if (SAMPLE_NUM_INPUTS != 1 || SAMPLE_NUM_OUTPUTS != 1 || SAMPLE_INPUT_0_DTYPE != ONNXC_DTYPE_FLOAT ||
      SAMPLE_INPUT_0_BYTES != 4 * SAMPLE_INPUT_0_SIZE || SAMPLE_INPUT_0_RANK != 4 ||
      SAMPLE_INPUT_0_SHAPE[2] != 8 || SAMPLE_INPUT_IMAGE != 0 || SAMPLE_OUTPUT_PROBS != 0)
    e2e_fail("unexpected constants in sample.h");
  e2e_sample_input(in, SAMPLE_INPUT_0_SIZE);

  /* NAME_create + NAME_infer (raw typed buffers). */
  onnxc_context *ctx = NULL;
  if (sample_create(&ctx) != ONNXC_OK)
    e2e_fail("sample_create: %s", sample_last_error(NULL));
  if (sample_infer(ctx, in, out) != ONNXC_OK)
    e2e_fail("sample_infer: %s", sample_last_error(ctx));
  e2e_expect_close("sample_infer", out, want, n);

  /* NAME_run (described tensors) fills in the output's rank and shape. */
  onnxc_tensor ti = {in, SAMPLE_INPUT_0_BYTES, SAMPLE_INPUT_0_DTYPE, SAMPLE_INPUT_0_RANK, {0}};
  for (int d = 0; d < SAMPLE_INPUT_0_RANK; ++d)
    ti.shape[d] = SAMPLE_INPUT_0_SHAPE[d];
  onnxc_tensor to = {out, SAMPLE_OUTPUT_0_BYTES, SAMPLE_OUTPUT_0_DTYPE, 0, {0}};
  memset(out, 0, sizeof out);
  if (sample_run(ctx, &ti, 1, &to, 1) != ONNXC_OK)
    e2e_fail("sample_run: %s", sample_last_error(ctx));
  if (to.rank != SAMPLE_OUTPUT_0_RANK || to.shape[0] != SAMPLE_OUTPUT_0_SHAPE[0] ||
      to.shape[1] != SAMPLE_OUTPUT_0_SHAPE[1])
    e2e_fail("sample_run reported the wrong output shape");
  e2e_expect_close("sample_run", out, want, n);

  /* More threads give the same result. */
  if (sample_set_num_threads(ctx, 2) != ONNXC_OK)
    e2e_fail("sample_set_num_threads: %s", sample_last_error(ctx));
  memset(out, 0, sizeof out);
  if (sample_infer(ctx, in, out) != ONNXC_OK)
    e2e_fail("sample_infer with 2 threads: %s", sample_last_error(ctx));
  e2e_expect_close("sample_infer with 2 threads", out, want, n);
  sample_destroy(ctx);

  /* A caller-owned arena. */
  size_t arena_bytes = SAMPLE_ARENA_SIZE ? SAMPLE_ARENA_SIZE : 1;
  arena_bytes = (arena_bytes + SAMPLE_ARENA_ALIGNMENT - 1) / SAMPLE_ARENA_ALIGNMENT * SAMPLE_ARENA_ALIGNMENT;
  void *arena = aligned_alloc(SAMPLE_ARENA_ALIGNMENT, arena_bytes);
  if (sample_create_with_arena(arena, SAMPLE_ARENA_SIZE, &ctx) != ONNXC_OK)
    e2e_fail("sample_create_with_arena: %s", sample_last_error(NULL));
  memset(out, 0, sizeof out);
  if (sample_infer(ctx, in, out) != ONNXC_OK)
    e2e_fail("sample_infer on a caller arena: %s", sample_last_error(ctx));
  e2e_expect_close("sample_infer on a caller arena", out, want, n);
  sample_destroy(ctx);
  free(arena);
  printf("PASS: %d outputs match the numpy reference\n", n);
  return 0;
}
