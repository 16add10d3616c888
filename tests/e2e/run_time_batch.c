/* e2e.run_time_batch: a library compiled with a run-time batch (--dim batch=1..8) through its
 * typed header: NAME_infer at several batches against a C reference, the symbols and dims the
 * ABI reports, and the errors for a bad batch (symbols that disagree, out of range, buffers too
 * small, run_buffers without shapes), each with its status and a message naming the tensor.
 * Model (tests/e2e/e2e.sh): sum = (x + y) * w, act = Relu(x), proj = x @ m (m constant 4x4:
 * (i + 1) / 2 - j); x, y: batch x 4; w: 4 (static). e2e.sh compiles it with tiles of 8 samples,
 * of 2, and without tiles: every batch must give the same results. */
#include "batchnet.h"
#include "runtime_stub/onnxc_runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

static void expect_error(onnxc_context *ctx, onnxc_status got, onnxc_status want, const char *needle,
                         const char *what) {
  const char *msg = batchnet_last_error(ctx);
  int ok = got == want && msg && strstr(msg, needle);
  printf("%s %s -> %d: %s\n", ok ? "ok" : "FAIL", what, (int)got, msg ? msg : "(null)");
  failures += !ok;
}

/// Runs batchnet_infer at `batch` and compares with the reference.
static void infer_at(onnxc_context *ctx, int64_t batch) {
  float x[8 * 4], y[8 * 4], w[4] = {0.5f, -1.0f, 2.0f, 0.25f}, sum[8 * 4], act[8 * 4],
      proj[8 * 4];
  for (int i = 0; i < batch * 4; ++i) {
    x[i] = (float)((i * 5) % 11) - 5.0f;
    y[i] = (float)i * 0.5f;
  }
  onnxc_status st = batchnet_infer(ctx, batch, x, y, w, sum, act, proj);
  char what[64];
  snprintf(what, sizeof what, "infer at batch %lld", (long long)batch);
  if (st != ONNXC_OK) {
    printf("FAIL %s: %s\n", what, batchnet_last_error(ctx));
    ++failures;
    return;
  }
  int ok = 1;
  for (int i = 0; i < batch * 4; ++i) {
    ok &= sum[i] == (x[i] + y[i]) * w[i % 4] && act[i] == (x[i] > 0 ? x[i] : 0.0f);
    float p = 0;
    for (int k = 0; k < 4; ++k)
      p += x[i / 4 * 4 + k] * ((float)(k + 1) * 0.5f - (float)(i % 4));
    ok &= fabsf(proj[i] - p) <= 1e-4f * (1 + fabsf(p));
  }
  check(ok, what);
}

int main(void) {
  onnxc_context *ctx;
  if (batchnet_create(&ctx) != ONNXC_OK) {
    printf("FAIL create: %s\n", batchnet_last_error(NULL));
    return 1;
  }
  /* What the ABI reports. */
  onnxc_symbol_info sym;
  check(onnxc_num_symbols() == 1 && onnxc_symbol(0, &sym) == ONNXC_OK &&
            strcmp(sym.name, "batch") == 0 && sym.min == 1 && sym.max == 8,
        "one symbol 'batch' 1..8");
  check(BATCHNET_BATCH_MIN == 1 && BATCHNET_BATCH_MAX == 8, "header BATCH_MIN/MAX");
  onnxc_tensor_info xi, wi;
  check(onnxc_input_info(0, &xi) == ONNXC_OK && xi.shape[0] == -1 && xi.shape[1] == 4 &&
            xi.dim_symbols && xi.dim_symbols[0] == 0 && xi.dim_symbols[1] == -1 &&
            xi.size_bytes == 16,
        "input x: dims [-1, 4], dim 0 is symbol 0, 16 bytes per sample");
  check(onnxc_input_info(2, &wi) == ONNXC_OK && wi.dim_symbols == NULL && wi.shape[0] == 4,
        "input w: static");
  check(BATCHNET_INPUT_0_SHAPE[0] == -1 && BATCHNET_INPUT_0_BYTES == 16, "header shape -1");
  int64_t three = 3, nine = 9;
  check(onnxc_arena_size_for(&three) == onnxc_arena_size() && onnxc_arena_size_for(&nine) == 0,
        "arena_size_for");

  /* Runs at several batches from one library and one context. */
  infer_at(ctx, 1);
  infer_at(ctx, 3);
  infer_at(ctx, 8);
  infer_at(ctx, 2);

  /* Output shapes reported after onnxc_run. */
  float x[9 * 4] = {0}, y[9 * 4] = {0}, w[4] = {1, 1, 1, 1}, sum[9 * 4], act[9 * 4],
        proj[9 * 4];
  onnxc_tensor in[3] = {{x, 3 * 16, ONNXC_DTYPE_FLOAT, 2, {3, 4}},
                        {y, 3 * 16, ONNXC_DTYPE_FLOAT, 2, {3, 4}},
                        {w, 16, ONNXC_DTYPE_FLOAT, 1, {4}}};
  onnxc_tensor out[3] = {{sum, sizeof sum, ONNXC_DTYPE_FLOAT, 0, {0}},
                         {act, sizeof act, ONNXC_DTYPE_FLOAT, 0, {0}},
                         {proj, sizeof proj, ONNXC_DTYPE_FLOAT, 0, {0}}};
  check(batchnet_run(ctx, in, 3, out, 3) == ONNXC_OK && out[0].rank == 2 &&
            out[0].shape[0] == 3 && out[0].shape[1] == 4 && out[1].shape[0] == 3,
        "output shapes {3, 4}");

  /* Bad batches. */
  in[1].shape[0] = 2;
  in[1].size_bytes = 2 * 16;
  expect_error(ctx, batchnet_run(ctx, in, 3, out, 3), ONNXC_ERROR_SHAPE_MISMATCH,
               "input 1 ('y'): dim 0 ('batch') is 2, but input 0 ('x') gave it 3",
               "symbols disagree");
  in[0].shape[0] = in[1].shape[0] = 9;
  in[0].size_bytes = in[1].size_bytes = 9 * 16;
  expect_error(ctx, batchnet_run(ctx, in, 3, out, 3), ONNXC_ERROR_SHAPE_MISMATCH,
               "input 0 ('x'): dim 0 ('batch') is 9, outside the range 1..8", "out of range");
  in[0].shape[0] = in[1].shape[0] = 3;
  in[0].size_bytes = 2 * 16; /* holds 2 samples, the batch is 3 */
  in[1].size_bytes = 3 * 16;
  expect_error(ctx, batchnet_run(ctx, in, 3, out, 3), ONNXC_ERROR_BUFFER_TOO_SMALL,
               "input 0 ('x'): size_bytes is 32, the model needs 48", "input too small");
  in[0].size_bytes = 3 * 16;
  out[1].size_bytes = 16;
  expect_error(ctx, batchnet_run(ctx, in, 3, out, 3), ONNXC_ERROR_BUFFER_TOO_SMALL,
               "output 1 ('act'): size_bytes is 16, the model needs 48", "output too small");
  const void *ins[3] = {x, y, w};
  void *outs[3] = {sum, act, proj};
  expect_error(ctx, batchnet_run_buffers(ctx, ins, outs), ONNXC_ERROR_INVALID_ARGUMENT,
               "use onnxc_run", "run_buffers refused");
  infer_at(ctx, 5); /* the context is still usable */
  infer_at(ctx, 7);
  batchnet_destroy(ctx);
  if (failures)
    printf("FAIL: %d checks failed\n", failures);
  return failures ? 1 : 0;
}
