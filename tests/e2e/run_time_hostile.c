/* e2e.run_time_hostile: kernels of outputs shaped at run time given hostile values through the
 * generic ABI (tests/e2e/e2e.sh builds the model): each run must fail with a status and a
 * message, or give the right small result, never crash or overflow a buffer (the sanitizer
 * build runs this too). Model "hostile": r = Range(start, limit, delta) (int64 scalars);
 * s = Slice(x4, starts, ends, axes, steps) (int64 [1] each); a, b, c = Split(x6, split) (int64
 * [3]); t = TopK(x6, k) values (int64 [1]). */
#include "hostile.h"
#include "runtime_stub/onnxc_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what, onnxc_context *ctx) {
  printf("%s %s (%s)\n", ok ? "ok" : "FAIL", what, hostile_last_error(ctx));
  failures += !ok;
}

int main(void) {
  onnxc_context *ctx = NULL;
  if (hostile_create(&ctx) != ONNXC_OK)
    return 1;
  int64_t start = 0, limit = 3, delta = 1, starts = 0, ends = 4, axes = 0, steps = 1;
  int64_t split[3] = {2, 2, 2}, k = 2;
  float x4[4] = {1, 2, 3, 4}, x6[6] = {6, 5, 4, 3, 2, 1};
  int64_t r[64];
  float s[64], a[64], b[64], c[64], t[64];
  onnxc_tensor in[10] = {
      {&start, 8, ONNXC_DTYPE_INT64, 0, {0}},  {&limit, 8, ONNXC_DTYPE_INT64, 0, {0}},
      {&delta, 8, ONNXC_DTYPE_INT64, 0, {0}},  {x4, 16, ONNXC_DTYPE_FLOAT, 1, {4}},
      {&starts, 8, ONNXC_DTYPE_INT64, 1, {1}}, {&ends, 8, ONNXC_DTYPE_INT64, 1, {1}},
      {&axes, 8, ONNXC_DTYPE_INT64, 1, {1}},   {&steps, 8, ONNXC_DTYPE_INT64, 1, {1}},
      {x6, 24, ONNXC_DTYPE_FLOAT, 1, {6}},     {split, 24, ONNXC_DTYPE_INT64, 1, {3}}};
  onnxc_tensor kin = {&k, 8, ONNXC_DTYPE_INT64, 1, {1}};
  onnxc_tensor all_in[11];
  memcpy(all_in, in, sizeof in);
  all_in[10] = kin;
  onnxc_tensor out[5] = {{r, sizeof r, ONNXC_DTYPE_INT64, 1, {0}},
                         {s, sizeof s, ONNXC_DTYPE_FLOAT, 1, {0}},
                         {a, sizeof a, ONNXC_DTYPE_FLOAT, 1, {0}},
                         {b, sizeof b, ONNXC_DTYPE_FLOAT, 1, {0}},
                         {c, sizeof c, ONNXC_DTYPE_FLOAT, 1, {0}}};
  onnxc_tensor outs[6];
  memcpy(outs, out, sizeof out);
  outs[5] = (onnxc_tensor){t, sizeof t, ONNXC_DTYPE_FLOAT, 1, {0}};
  onnxc_status st = onnxc_run(ctx, all_in, 11, outs, 6);
  check(st == ONNXC_OK && outs[0].shape[0] == 3 && r[2] == 2 && outs[1].shape[0] == 4 &&
            outs[2].shape[0] == 2 && outs[5].shape[0] == 2 && t[0] == 6 && t[1] == 5,
        "ordinary values", ctx);

  limit = INT64_MIN, delta = -1; /* count 2^63: refused, not SIGFPE */
  st = onnxc_run(ctx, all_in, 11, outs, 6);
  check(st != ONNXC_OK && strstr(hostile_last_error(ctx), "too many elements"),
        "Range 0..INT64_MIN by -1", ctx);
  limit = 3, delta = 1;

  steps = INT64_MAX; /* one element, not a negative count */
  st = onnxc_run(ctx, all_in, 11, outs, 6);
  check(st == ONNXC_OK && outs[1].shape[0] == 1 && s[0] == 1, "Slice with step INT64_MAX", ctx);
  steps = INT64_MIN, starts = 3, ends = -5; /* backwards from 3: one element */
  st = onnxc_run(ctx, all_in, 11, outs, 6);
  check(st == ONNXC_OK && outs[1].shape[0] == 1 && s[0] == 4, "Slice with step INT64_MIN", ctx);
  steps = 1, starts = 0, ends = 4;

  split[0] = INT64_MAX, split[1] = INT64_MAX, split[2] = 4; /* sums to 2 after wrapping */
  st = onnxc_run(ctx, all_in, 11, outs, 6);
  check(st != ONNXC_OK && strstr(hostile_last_error(ctx), "split"), "Split sizes that wrap",
        ctx);
  split[0] = split[1] = split[2] = 2;

  k = 0; /* an empty TopK */
  st = onnxc_run(ctx, all_in, 11, outs, 6);
  check(st == ONNXC_OK && outs[5].shape[0] == 0, "TopK with K = 0", ctx);
  k = 7;
  st = onnxc_run(ctx, all_in, 11, outs, 6);
  check(st != ONNXC_OK && strstr(hostile_last_error(ctx), "K is outside"), "TopK with K = 7", ctx);
  hostile_destroy(ctx);
  printf("%s\n", failures ? "FAILED" : "PASS");
  return failures != 0;
}
