/* e2e.dlopen_generic (and e2e.no_external_tools): loads a model library with dlopen, drives it
 * through the generic onnxc_* ABI only, and compares the result with the numpy reference.
 *   dlopen_generic LIB.so EXPECTED.txt MODEL_NAME */
#include "e2e_common.h"

int main(int argc, char **argv) {
  if (argc != 4)
    e2e_fail("usage: dlopen_generic LIB.so EXPECTED.txt MODEL_NAME");
  static float want[E2E_MAX_VALUES], out[E2E_MAX_VALUES];
  int n = e2e_read_floats(argv[2], want, E2E_MAX_VALUES);
  e2e_model m = e2e_load(argv[1]);
  if (strcmp(m.model_name(), argv[3]) != 0)
    e2e_fail("onnxc_model_name() is '%s', expected '%s'", m.model_name(), argv[3]);
  const char *sig = m.signature_json();
  if (!sig || !strstr(sig, "\"abi_version\":3") || !strstr(sig, argv[3]))
    e2e_fail("unexpected signature JSON: %s", sig ? sig : "(null)");
  if (m.arena_alignment() != 64)
    e2e_fail("arena alignment %llu", (unsigned long long)m.arena_alignment());

  onnxc_context *ctx = NULL;
  if (m.create(&ctx) != ONNXC_OK || !ctx)
    e2e_fail("onnxc_create: %s", m.last_error(NULL));
  int got = e2e_run_sample(&m, ctx, out, E2E_MAX_VALUES);
  if (got != n)
    e2e_fail("the model has %d outputs, expected.txt %d", got, n);
  e2e_expect_close("onnxc_run", out, want, n);

  /* onnxc_run_buffers on the same context. */
  static float in[E2E_MAX_VALUES];
  onnxc_tensor_info ii;
  m.input_info(0, &ii);
  e2e_sample_input(in, (int)e2e_elements(&ii));
  memset(out, 0, sizeof out);
  const void *const ins[1] = {in};
  void *const outs[1] = {out};
  if (m.run_buffers(ctx, ins, outs) != ONNXC_OK)
    e2e_fail("onnxc_run_buffers: %s", m.last_error(ctx));
  e2e_expect_close("onnxc_run_buffers", out, want, n);
  m.destroy(ctx);
  if (dlclose(m.handle) != 0)
    e2e_fail("dlclose: %s", dlerror());
  printf("PASS: %s (%s): %d outputs match the numpy reference\n", argv[1], argv[3], n);
  return 0;
}
