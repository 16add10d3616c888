/* e2e.two_models: two different model libraries dlopened into one process (both export the
 * same onnxc_* names) run side by side, each with its own results.
 *   two_models LIB_A.so EXPECTED_A.txt NAME_A LIB_B.so EXPECTED_B.txt NAME_B */
#include "e2e_common.h"

typedef struct loaded {
  e2e_model m;
  onnxc_context *ctx;
  float want[E2E_MAX_VALUES];
  int n;
} loaded;

static void load(loaded *l, char **args) {
  l->n = e2e_read_floats(args[1], l->want, E2E_MAX_VALUES);
  l->m = e2e_load(args[0]);
  if (strcmp(l->m.model_name(), args[2]) != 0)
    e2e_fail("%s: onnxc_model_name() is '%s', expected '%s'", args[0], l->m.model_name(), args[2]);
  if (l->m.create(&l->ctx) != ONNXC_OK)
    e2e_fail("%s: onnxc_create: %s", args[0], l->m.last_error(NULL));
}

int main(int argc, char **argv) {
  if (argc != 7)
    e2e_fail("usage: two_models LIB_A EXPECTED_A NAME_A LIB_B EXPECTED_B NAME_B");
  static loaded a, b;
  load(&a, argv + 1);
  load(&b, argv + 4);
  if ((void *)a.m.run == (void *)b.m.run || a.m.model_name == b.m.model_name)
    e2e_fail("dlsym returned the same onnxc_run for both libraries");
  static float out[E2E_MAX_VALUES];
  for (int round = 0; round < 10; ++round) {
    loaded *order[2] = {round % 2 ? &b : &a, round % 2 ? &a : &b};
    for (int k = 0; k < 2; ++k) {
      loaded *l = order[k];
      memset(out, 0, sizeof out);
      int got = e2e_run_sample(&l->m, l->ctx, out, E2E_MAX_VALUES);
      if (got != l->n)
        e2e_fail("%s: %d outputs, expected %d", l->m.model_name(), got, l->n);
      e2e_expect_close(l->m.model_name(), out, l->want, l->n);
    }
  }
  /* Closing one library leaves the other working. */
  a.m.destroy(a.ctx);
  dlclose(a.m.handle);
  memset(out, 0, sizeof out);
  e2e_run_sample(&b.m, b.ctx, out, E2E_MAX_VALUES);
  e2e_expect_close("second model after closing the first", out, b.want, b.n);
  b.m.destroy(b.ctx);
  dlclose(b.m.handle);
  printf("PASS: %s and %s in one process\n", argv[3], argv[6]);
  return 0;
}
