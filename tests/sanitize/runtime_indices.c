/* sanitize.asan_runtime_indices: Gather / GatherElements indices supplied by the caller at run
 * time (tests/sanitize/make_index_model.py), in a library compiled with --sanitize=address and a
 * program built with -fsanitize=address,undefined. In-range indices (negative ones count from
 * the end) give the right rows; an out-of-range index — just past the end, far past it, too
 * negative — returns ONNXC_ERROR_INDEX_OUT_OF_RANGE with a message naming the node, reads
 * nothing out of bounds (ASan would abort), and leaves the context usable.
 *
 *   runtime_indices LIB.so */
#include "e2e_common.h"

static e2e_model m;
static onnxc_context *ctx;
static int64_t idx[2], idx2[12];
static float rows[6], picked[12];

static onnxc_status run(void) {
  onnxc_tensor in[2], out[2];
  memset(in, 0, sizeof in);
  memset(out, 0, sizeof out);
  in[0] = (onnxc_tensor){idx, sizeof idx, ONNXC_DTYPE_INT64, 1, {2}};
  in[1] = (onnxc_tensor){idx2, sizeof idx2, ONNXC_DTYPE_INT64, 2, {4, 3}};
  out[0] = (onnxc_tensor){rows, sizeof rows, ONNXC_DTYPE_FLOAT, 2, {2, 3}};
  out[1] = (onnxc_tensor){picked, sizeof picked, ONNXC_DTYPE_FLOAT, 2, {4, 3}};
  return m.run(ctx, in, 2, out, 2);
}

static void expect_ok(const char *what) {
  onnxc_status st = run();
  if (st != ONNXC_OK)
    e2e_fail("%s: status %d (%s)", what, (int)st, m.last_error(ctx));
  /* rows[k] = data[idx[k]] (wrapped), picked[i][j] = data[idx2[i][j]][j] */
  for (int k = 0; k < 2; ++k)
    for (int c = 0; c < 3; ++c) {
      int64_t r = idx[k] < 0 ? idx[k] + 4 : idx[k];
      if (rows[k * 3 + c] != (float)(10 * r + c))
        e2e_fail("%s: rows[%d][%d] is %g, expected %g", what, k, c, rows[k * 3 + c],
                 (double)(10 * r + c));
    }
  for (int i = 0; i < 12; ++i) {
    int64_t r = idx2[i] < 0 ? idx2[i] + 4 : idx2[i];
    if (picked[i] != (float)(10 * r + i % 3))
      e2e_fail("%s: picked[%d] is %g", what, i, picked[i]);
  }
  printf("ok %-40s -> OK\n", what);
}

static void expect_out_of_range(const char *what, const char *node) {
  onnxc_status st = run();
  const char *msg = m.last_error(ctx);
  if (st != ONNXC_ERROR_INDEX_OUT_OF_RANGE)
    e2e_fail("%s: status %d, expected ONNXC_ERROR_INDEX_OUT_OF_RANGE (message: '%s')", what,
             (int)st, msg ? msg : "(null)");
  if (!msg || !strstr(msg, node))
    e2e_fail("%s: the message '%s' does not name node '%s'", what, msg ? msg : "(null)", node);
  printf("ok %-40s -> %d: %s\n", what, (int)st, msg);
}

int main(int argc, char **argv) {
  if (argc != 2)
    e2e_fail("usage: runtime_indices LIB.so");
  m = e2e_load(argv[1]);
  if (m.create(&ctx) != ONNXC_OK)
    e2e_fail("create failed");
  int64_t good[12] = {0, 1, 2, 3, 0, 1, -1, -2, -3, -4, 3, 2};
  memcpy(idx2, good, sizeof good);

  idx[0] = 0, idx[1] = 3;
  expect_ok("in-range indices");
  idx[0] = -1, idx[1] = -4;
  expect_ok("negative in-range indices");

  const int64_t bad[] = {4, -5, 1000000, INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char what[64];
    idx[0] = 1, idx[1] = bad[i];
    snprintf(what, sizeof what, "Gather index %lld", (long long)bad[i]);
    expect_out_of_range(what, "gather_rows");
    idx[1] = 2;
    idx2[7] = bad[i];
    snprintf(what, sizeof what, "GatherElements index %lld", (long long)bad[i]);
    expect_out_of_range(what, "pick");
    idx2[7] = good[7];
  }
  idx[0] = 2, idx[1] = -3;
  expect_ok("the context still works");
  m.destroy(ctx);
  printf("PASS: out-of-range run-time indices rejected, no out-of-bounds access\n");
  return 0;
}
