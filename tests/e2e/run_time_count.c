/* e2e.run_time_count: a library whose output has a run-time count (NonZero of a run-time input,
 * tests/e2e/e2e.sh), through its typed header and the generic ABI: NonZero's indices and count
 * against a C reference at several counts (0 among them), the symbol the ABI reports, an output
 * buffer too small for the run's result (ONNXC_ERROR_BUFFER_TOO_SMALL with the shape written and
 * the result kept for onnxc_output_result), and onnxc_run_buffers refused.
 * Model: x float 2x3 -> NonZero -> y int64 2 x count. Then a Range of run-time scalars (an
 * output without a bound, through rng.h's prefixed functions): a result larger than the
 * caller's buffer is kept for rng_output_result, and one past the dynamic limit fails cleanly.
 * Then that Range squared (rngsq.h: an element-wise op of a value with no bound, both in
 * run-scoped memory) at several lengths, and past the dynamic limit at the square.
 */
#include "nonzero.h"
#include "rng.h"
#include "rngsq.h"
#include "runtime_stub/onnxc_runtime.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

/// NonZero of x (2x3) as y [2, count] (row-major); returns the count.
static int64_t reference(const float *x, int64_t *y) {
  int64_t count = 0;
  for (int i = 0; i < 6; ++i)
    count += x[i] != 0.0f;
  for (int i = 0, k = 0; i < 6; ++i)
    if (x[i] != 0.0f) {
      y[k] = i / 3;
      y[count + k] = i % 3;
      ++k;
    }
  return count;
}

static void infer_with(onnxc_context *ctx, const float *x, const char *what) {
  int64_t y[2 * NONZERO_COUNT_MAX], want[12], count = -1;
  memset(y, 0xff, sizeof y);
  onnxc_status st = nonzero_infer(ctx, x, y, &count);
  int64_t n = reference(x, want);
  char msg[96];
  snprintf(msg, sizeof msg, "infer %s: count %lld (want %lld)", what, (long long)count,
           (long long)n);
  check(st == ONNXC_OK && count == n && memcmp(y, want, (size_t)(2 * n) * sizeof *y) == 0, msg);
}

int main(void) {
  onnxc_symbol_info info;
  check(onnxc_num_symbols() == 1 && onnxc_symbol(0, &info) == ONNXC_OK && info.count == 1 &&
            info.min == 0 && info.max == 6 && NONZERO_COUNT_MAX == 6,
        "one symbol: the run-time count, 0..6");
  onnxc_context *ctx = NULL;
  if (nonzero_create(&ctx) != ONNXC_OK)
    return 1;
  onnxc_tensor view;
  check(onnxc_output_result(ctx, 0, &view) == ONNXC_ERROR_INVALID_ARGUMENT,
        "onnxc_output_result before a run is refused");
  const float some[6] = {0, 1.5f, 0, -2, 0, 3}, none[6] = {0}, all[6] = {1, 2, 3, 4, 5, 6},
              neg_zero[6] = {-0.0f, 0, 0, 0, 0, 7};
  infer_with(ctx, some, "some");
  infer_with(ctx, none, "none");
  infer_with(ctx, all, "all");
  infer_with(ctx, neg_zero, "-0.0 is zero");

  /* A buffer for 2 of the 3 hits: refused with the shape; the result stays readable. */
  int64_t small[4];
  onnxc_tensor in = {(void *)some, sizeof some, ONNXC_DTYPE_FLOAT, 2, {2, 3}};
  onnxc_tensor out = {small, sizeof small, ONNXC_DTYPE_INT64, 2, {2, 0}};
  onnxc_status st = onnxc_run(ctx, &in, 1, &out, 1);
  const char *err = onnxc_last_error(ctx);
  printf("small buffer -> %d: %s\n", (int)st, err);
  check(st == ONNXC_ERROR_BUFFER_TOO_SMALL && strstr(err, "output 0 ('y')") &&
            strstr(err, "the result is 2x3 (48 bytes), but size_bytes is 32") && out.rank == 2 &&
            out.shape[0] == 2 && out.shape[1] == 3,
        "a buffer too small: BUFFER_TOO_SMALL, the shape written");
  int64_t want[12];
  reference(some, want);
  check(onnxc_output_result(ctx, 0, &view) == ONNXC_OK && view.size_bytes == 48 && view.rank == 2 &&
            view.shape[1] == 3 && memcmp(view.data, want, 48) == 0,
        "onnxc_output_result reads the kept result");
  check(onnxc_output_result(ctx, 1, &view) == ONNXC_ERROR_INDEX_OUT_OF_RANGE,
        "onnxc_output_result of a missing output");

  const void *ins[1] = {some};
  void *outs[1] = {small};
  check(onnxc_run_buffers(ctx, ins, outs) == ONNXC_ERROR_INVALID_ARGUMENT &&
            strstr(onnxc_last_error(ctx), "run-time count"),
        "onnxc_run_buffers is refused");
  nonzero_destroy(ctx);

  onnxc_context *r = NULL;
  if (rng_create(&r) != ONNXC_OK)
    return 1;
  float start = 1.0f, limit = 6.0f, delta = 0.5f, one = 0;
  onnxc_tensor rin[3] = {{&start, 4, ONNXC_DTYPE_FLOAT, 0, {0}},
                         {&limit, 4, ONNXC_DTYPE_FLOAT, 0, {0}},
                         {&delta, 4, ONNXC_DTYPE_FLOAT, 0, {0}}};
  onnxc_tensor rout = {&one, sizeof one, ONNXC_DTYPE_FLOAT, 1, {0}};
  st = rng_run(r, rin, 3, &rout, 1);
  printf("range into one float -> %d: %s\n", (int)st, rng_last_error(r));
  check(st == ONNXC_ERROR_BUFFER_TOO_SMALL && rout.rank == 1 && rout.shape[0] == 10,
        "Range: a result larger than the buffer gives its shape");
  int ok = rng_output_result(r, 0, &view) == ONNXC_OK && view.size_bytes == 40;
  for (int i = 0; ok && i < 10; ++i)
    ok = ((const float *)view.data)[i] == 1.0f + 0.5f * (float)i;
  check(ok, "Range: rng_output_result reads the 10 values");
  float ten[10];
  rout.data = ten;
  rout.size_bytes = sizeof ten;
  check(rng_run(r, rin, 3, &rout, 1) == ONNXC_OK && ten[9] == 5.5f,
        "Range: a buffer of the result's size");
  limit = 1e6f; /* 2e6 floats: past a dynamic limit of 1 MiB */
  check(rng_set_dynamic_limit(r, 1 << 20) == ONNXC_OK, "set the dynamic limit");
  st = rng_run(r, rin, 3, &rout, 1);
  printf("range past the limit -> %d: %s\n", (int)st, rng_last_error(r));
  check(st == ONNXC_ERROR_OUT_OF_MEMORY, "Range: a result past the dynamic limit fails cleanly");
  rng_destroy(r);

  if (rngsq_create(&r) != ONNXC_OK)
    return 1;
  static float sq[300000];
  onnxc_tensor sout = {sq, sizeof sq, ONNXC_DTYPE_FLOAT, 1, {0}};
  const float limits[] = {6.0f, 1.0f, 1.5f, 100000.0f};
  for (int k = 0; k < 4; ++k) { /* 10, 0, 1 and 199998 elements */
    limit = limits[k];
    memset(sq, 0xff, sizeof sq);
    st = rngsq_run(r, rin, 3, &sout, 1);
    const double q = ((double)limit - start) / delta; /* ceil(q), without libm */
    const int64_t n = q <= 0 ? 0 : (int64_t)q + ((double)(int64_t)q < q);
    ok = st == ONNXC_OK && sout.rank == 1 && sout.shape[0] == n;
    for (int64_t i = 0; ok && i < n; ++i) {
      const float v = start + delta * (float)i;
      ok = sq[i] == v * v;
    }
    printf("square of a range to %g -> %d, %lld elements: %s\n", (double)limit, (int)st,
           (long long)sout.shape[0], ok ? "ok" : rngsq_last_error(r));
    check(ok, "Range squared: the elements of a value with no bound");
  }
  /* 199998 floats (800 KB) fit under 1 MiB, the square's 800 KB more do not */
  check(rngsq_set_dynamic_limit(r, 1 << 20) == ONNXC_OK, "set the dynamic limit");
  st = rngsq_run(r, rin, 3, &sout, 1);
  printf("square past the limit -> %d: %s\n", (int)st, rngsq_last_error(r));
  check(st == ONNXC_ERROR_OUT_OF_MEMORY && strstr(rngsq_last_error(r), "square"),
        "Range squared: past the dynamic limit at the square fails naming it");
  rngsq_destroy(r);
  printf("%s\n", failures ? "FAILED" : "PASS");
  return failures != 0;
}
