/* The string tensor ABI through the typed header strabi.h (tests/strings/make_abi_model.py):
 * UTF-8 inputs, string outputs read back, the dynamic limit exceeded, a NULL string element. */
#include "strabi.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                          \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      fprintf(stderr, "FAIL line %d: ", __LINE__);                                                \
      fprintf(stderr, __VA_ARGS__);                                                               \
      fprintf(stderr, "\n");                                                                      \
      ++failures;                                                                                 \
    }                                                                                             \
  } while (0)

/// Runs once and checks z[i] == x[i] + y[i], e[i] == (x[i] == y[i]) and t[i] == x[i] (a copy
/// owned by the context, not the caller's pointer).
static void run_and_check(onnxc_context *ctx, const char *const *x, const char *const *y) {
  const char *z[3] = {0, 0, 0}, *t[3] = {0, 0, 0};
  uint8_t e[3] = {9, 9, 9};
  onnxc_status st = strabi_infer(ctx, x, y, z, e, t);
  CHECK(st == ONNXC_OK, "run failed: %d %s", (int)st, strabi_last_error(ctx));
  if (st != ONNXC_OK)
    return;
  for (int i = 0; i < 3; ++i) {
    char want[256];
    snprintf(want, sizeof want, "%s%s", x[i], y[i]);
    CHECK(z[i] && strcmp(z[i], want) == 0, "z[%d] = '%s', want '%s'", i, z[i] ? z[i] : "(null)",
          want);
    CHECK(e[i] == (strcmp(x[i], y[i]) == 0), "e[%d] = %d", i, e[i]);
    CHECK(t[i] && t[i] != x[i] && strcmp(t[i], x[i]) == 0, "t[%d] = '%s'", i, t[i] ? t[i] : "");
  }
}

int main(void) {
  onnxc_context *ctx = NULL;
  if (strabi_create(&ctx) != ONNXC_OK) {
    fprintf(stderr, "create failed: %s\n", strabi_last_error(NULL));
    return 1;
  }
  CHECK(STRABI_INPUT_0_DTYPE == ONNXC_DTYPE_STRING, "input dtype %d", STRABI_INPUT_0_DTYPE);
  const char *const x[3] = {"h\xc3\xa9llo ", "\xe6\x97\xa5\xe6\x9c\xac", ""};
  const char *const y[3] = {"w\xc3\xb6rld", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80"};
  run_and_check(ctx, x, y);
  const char *const x2[3] = {"a", "bb", "ccc"};
  const char *const y2[3] = {"a", "b", ""};
  run_and_check(ctx, x2, y2); /* the first run's strings are freed here */

  /* The concatenations need 2 + 3 + 4 bytes (9, rounded up to 16): 8 bytes are too few. */
  CHECK(strabi_set_dynamic_limit(ctx, 8) == ONNXC_OK, "set_dynamic_limit failed");
  const char *z[3], *t[3];
  uint8_t e[3];
  onnxc_status st = strabi_infer(ctx, x2, y2, z, e, t);
  CHECK(st == ONNXC_ERROR_OUT_OF_MEMORY, "over the limit: status %d", (int)st);
  const char *msg = strabi_last_error(ctx);
  CHECK(strstr(msg, "node 'concat'") && strstr(msg, "limit is 8 bytes"),
        "over the limit: message '%s'", msg);
  CHECK(strabi_set_dynamic_limit(ctx, 1 << 20) == ONNXC_OK, "set_dynamic_limit failed");
  run_and_check(ctx, x2, y2); /* usable again */

  const char *const bad[3] = {"a", NULL, "c"};
  st = strabi_infer(ctx, bad, y2, z, e, t);
  CHECK(st == ONNXC_ERROR_INVALID_ARGUMENT, "NULL element: status %d", (int)st);
  msg = strabi_last_error(ctx);
  CHECK(strstr(msg, "'x'") && strstr(msg, "string element 1 is NULL"), "NULL element: '%s'", msg);

  /* The same through onnxc_run with described tensors. */
  onnxc_tensor in[2] = {{(void *)y2, sizeof y2, ONNXC_DTYPE_STRING, 1, {3}},
                        {(void *)x2, sizeof x2, ONNXC_DTYPE_STRING, 1, {3}}};
  onnxc_tensor out[3] = {{(void *)z, sizeof z, ONNXC_DTYPE_STRING, 0, {0}},
                         {e, sizeof e, ONNXC_DTYPE_BOOL, 0, {0}},
                         {(void *)t, sizeof t, ONNXC_DTYPE_STRING, 0, {0}}};
  st = strabi_run(ctx, in, 2, out, 3);
  CHECK(st == ONNXC_OK, "onnxc_run: %d %s", (int)st, strabi_last_error(ctx));
  CHECK(st != ONNXC_OK || (strcmp(z[1], "bbb") == 0 && out[0].rank == 1 && out[0].shape[0] == 3),
        "onnxc_run: z[1] = '%s'", z[1]);
  strabi_destroy(ctx);
  if (failures)
    return 1;
  printf("string ABI: all checks passed\n");
  return 0;
}
