/* e2e.bad_inputs: wrong arguments at run time must return the documented status and a message,
 * never crash, and leave the context usable.   bad_inputs LIB.so EXPECTED.txt
 * (any model library with one float input and one float output of rank >= 1) */
#include "e2e_common.h"

static e2e_model m;
static onnxc_context *ctx;
static int checks;

/// Fails unless `got` is `want` and the context's last error is a non-empty message.
static void expect_status(const char *what, onnxc_status got, onnxc_status want,
                          const onnxc_context *err_ctx) {
  ++checks;
  const char *msg = m.last_error(err_ctx);
  if (got != want)
    e2e_fail("%s: status %d, expected %d (message: '%s')", what, (int)got, (int)want,
             msg ? msg : "(null)");
  if (!msg || !*msg)
    e2e_fail("%s: status %d but no message", what, (int)got);
  printf("ok %-44s -> %d: %s\n", what, (int)got, msg);
}

/// For calls without a context, which have nowhere to leave a message: the status only.
static void expect_status_no_ctx(const char *what, onnxc_status got, onnxc_status want) {
  ++checks;
  if (got != want)
    e2e_fail("%s: status %d, expected %d", what, (int)got, (int)want);
  printf("ok %-44s -> %d\n", what, (int)got);
}

int main(int argc, char **argv) {
  if (argc != 3)
    e2e_fail("usage: bad_inputs LIB.so EXPECTED.txt");
  static float want[E2E_MAX_VALUES], in[E2E_MAX_VALUES], out[E2E_MAX_VALUES];
  static double in_double[E2E_MAX_VALUES];
  int n = e2e_read_floats(argv[2], want, E2E_MAX_VALUES);
  m = e2e_load(argv[1]);
  onnxc_tensor_info ii, oi;
  if (m.input_info(0, &ii) != ONNXC_OK || m.output_info(0, &oi) != ONNXC_OK)
    e2e_fail("info failed");
  e2e_sample_input(in, (int)e2e_elements(&ii));
  if (m.create(&ctx) != ONNXC_OK)
    e2e_fail("onnxc_create: %s", m.last_error(NULL));

  /* Metadata and creation. */
  ++checks;
  if (m.input_info(0, NULL) != ONNXC_ERROR_INVALID_ARGUMENT)
    e2e_fail("input_info(0, NULL) was accepted");
  ++checks;
  if (m.input_info(m.num_inputs(), &ii) != ONNXC_ERROR_INDEX_OUT_OF_RANGE ||
      m.output_info(-1, &oi) != ONNXC_ERROR_INDEX_OUT_OF_RANGE)
    e2e_fail("an out-of-range info index was accepted");
  m.input_info(0, &ii);
  m.output_info(0, &oi);
  expect_status("create(NULL)", m.create(NULL), ONNXC_ERROR_INVALID_ARGUMENT, NULL);
  if (m.arena_size() > 0) {
    static _Alignas(64) unsigned char arena[1 << 16];
    onnxc_context *c2 = NULL;
    expect_status("create_with_arena(misaligned)",
                  m.create_with_arena(arena + 1, sizeof arena - 1, &c2),
                  ONNXC_ERROR_INVALID_ARGUMENT, NULL);
    expect_status("create_with_arena(too small)", m.create_with_arena(arena, m.arena_size() - 1, &c2),
                  ONNXC_ERROR_BUFFER_TOO_SMALL, NULL);
  }
  expect_status("set_num_threads(0)", m.set_num_threads(ctx, 0), ONNXC_ERROR_INVALID_ARGUMENT, ctx);

  /* onnxc_run. */
  onnxc_tensor good_in = e2e_tensor(&ii, in), good_out = e2e_tensor(&oi, out), t, o;
  expect_status_no_ctx("run(ctx NULL)", m.run(NULL, &good_in, 1, &good_out, 1),
                       ONNXC_ERROR_INVALID_ARGUMENT);
  expect_status("run(inputs NULL)", m.run(ctx, NULL, 1, &good_out, 1), ONNXC_ERROR_INVALID_ARGUMENT, ctx);
  expect_status("run(outputs NULL)", m.run(ctx, &good_in, 1, NULL, 1), ONNXC_ERROR_INVALID_ARGUMENT, ctx);
  expect_status("run(0 inputs)", m.run(ctx, &good_in, 0, &good_out, 1), ONNXC_ERROR_INVALID_ARGUMENT, ctx);
  expect_status("run(2 outputs)", m.run(ctx, &good_in, 1, &good_out, 2), ONNXC_ERROR_INVALID_ARGUMENT, ctx);

  t = good_in;
  t.data = NULL;
  expect_status("run(input data NULL)", m.run(ctx, &t, 1, &good_out, 1), ONNXC_ERROR_INVALID_ARGUMENT, ctx);
  o = good_out;
  o.data = NULL;
  expect_status("run(output data NULL)", m.run(ctx, &good_in, 1, &o, 1), ONNXC_ERROR_INVALID_ARGUMENT, ctx);

  t = good_in;
  t.dtype = ONNXC_DTYPE_DOUBLE;
  t.data = in_double;
  t.size_bytes = sizeof in_double;
  expect_status("run(input dtype double)", m.run(ctx, &t, 1, &good_out, 1), ONNXC_ERROR_DTYPE_MISMATCH, ctx);
  o = good_out;
  o.dtype = ONNXC_DTYPE_INT32;
  expect_status("run(output dtype int32)", m.run(ctx, &good_in, 1, &o, 1), ONNXC_ERROR_DTYPE_MISMATCH, ctx);

  t = good_in;
  t.shape[t.rank - 1] += 1;
  t.size_bytes = sizeof in;
  expect_status("run(input shape: last dim + 1)", m.run(ctx, &t, 1, &good_out, 1),
                ONNXC_ERROR_SHAPE_MISMATCH, ctx);
  t = good_in;
  t.rank -= 1;
  expect_status("run(input rank - 1)", m.run(ctx, &t, 1, &good_out, 1), ONNXC_ERROR_SHAPE_MISMATCH, ctx);
  t = good_in;
  t.rank = ONNXC_MAX_RANK + 1;
  expect_status("run(input rank > ONNXC_MAX_RANK)", m.run(ctx, &t, 1, &good_out, 1),
                ONNXC_ERROR_SHAPE_MISMATCH, ctx);
  t = good_in;
  t.size_bytes -= 1;
  expect_status("run(input buffer 1 byte short)", m.run(ctx, &t, 1, &good_out, 1),
                ONNXC_ERROR_BUFFER_TOO_SMALL, ctx);
  o = good_out;
  o.size_bytes = 4;
  expect_status("run(output buffer of 4 bytes)", m.run(ctx, &good_in, 1, &o, 1),
                ONNXC_ERROR_BUFFER_TOO_SMALL, ctx);

  /* onnxc_run_buffers. */
  const void *const ins[1] = {in};
  void *const outs[1] = {out};
  const void *const null_ins[1] = {NULL};
  expect_status_no_ctx("run_buffers(ctx NULL)", m.run_buffers(NULL, ins, outs),
                       ONNXC_ERROR_INVALID_ARGUMENT);
  expect_status("run_buffers(inputs NULL)", m.run_buffers(ctx, NULL, outs), ONNXC_ERROR_INVALID_ARGUMENT, ctx);
  expect_status("run_buffers(outputs NULL)", m.run_buffers(ctx, ins, NULL), ONNXC_ERROR_INVALID_ARGUMENT, ctx);
  expect_status("run_buffers(input 0 NULL)", m.run_buffers(ctx, null_ins, outs),
                ONNXC_ERROR_INVALID_ARGUMENT, ctx);

  /* After all that the context still works and the message is cleared. */
  memset(out, 0, sizeof out);
  int got = e2e_run_sample(&m, ctx, out, E2E_MAX_VALUES);
  if (got != n)
    e2e_fail("%d outputs, expected %d", got, n);
  e2e_expect_close("run after failures", out, want, n);
  m.destroy(ctx);
  m.destroy(NULL);
  printf("PASS: %d bad calls rejected; the context still runs correctly\n", checks);
  return 0;
}
