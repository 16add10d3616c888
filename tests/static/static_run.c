/* static.*: runs one statically linked model through its typed header and compares the output
 * with a reference. Built with -DMODEL=<name> -DMODEL_UPPER=<NAME> -DMODEL_HEADER="<name>.h".
 *
 *   static_run INPUT.txt EXPECTED.txt [WEIGHTS_FILE|-] [--limited-stack]
 *
 * INPUT.txt / EXPECTED.txt hold the first input and output, one value per line. With a weights
 * file the context is created with MODEL_create_with_weights. With --limited-stack the model
 * runs on a thread whose stack is MODEL_STACK_SIZE plus 64 KiB (for libc and the thread start):
 * a run that needs more than the header's estimate crashes. */
#include MODEL_HEADER
#include "e2e_common.h"

#include <pthread.h>

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define FN(x) CAT(MODEL, x)
#define UP(x) CAT(MODEL_UPPER, x)
#define MAX_VALUES (1 << 20)

static float in[MAX_VALUES], out[MAX_VALUES], want[MAX_VALUES];

typedef struct job {
  onnxc_context *ctx;
  onnxc_status status;
} job;

static void *run_job(void *arg) {
  job *j = (job *)arg;
  const void *const ins[1] = {in};
  void *const outs[1] = {out};
  j->status = FN(run_buffers)(j->ctx, ins, outs);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3)
    e2e_fail("usage: static_run INPUT.txt EXPECTED.txt [WEIGHTS_FILE|-] [--limited-stack]");
  int n_in = e2e_read_floats(argv[1], in, MAX_VALUES);
  int n_out = e2e_read_floats(argv[2], want, MAX_VALUES);
  if (n_in != UP(INPUT_0_SIZE) || n_out != UP(OUTPUT_0_SIZE))
    e2e_fail("reference sizes %d/%d differ from the header's %d/%d", n_in, n_out,
             (int)UP(INPUT_0_SIZE), (int)UP(OUTPUT_0_SIZE));
  const char *weights = argc > 3 && strcmp(argv[3], "-") != 0 ? argv[3] : NULL;
  int limited = argc > 4 && strcmp(argv[4], "--limited-stack") == 0;
  onnxc_context *ctx = NULL;
  onnxc_status st = weights ? FN(create_with_weights)(weights, &ctx) : FN(create)(&ctx);
  if (st != ONNXC_OK)
    e2e_fail("create: %s", FN(last_error)(NULL));
  job j = {ctx, ONNXC_ERROR_RUNTIME};
  if (limited) {
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    if (pthread_attr_setstacksize(&attr, (size_t)UP(STACK_SIZE) + 65536) != 0)
      e2e_fail("cannot set the stack size");
    if (pthread_create(&thread, &attr, run_job, &j) != 0 || pthread_join(thread, NULL) != 0)
      e2e_fail("cannot run on a thread");
  } else {
    run_job(&j);
  }
  if (j.status != ONNXC_OK)
    e2e_fail("run: %s", FN(last_error)(ctx));
  for (int i = 0; i < n_out; ++i)
    if (!(fabsf(out[i] - want[i]) <= 1e-4f + 1e-3f * fabsf(want[i])))
      e2e_fail("element %d is %.9g, expected %.9g", i, out[i], want[i]);
  FN(destroy)(ctx);
  printf("PASS: %d outputs match%s%s\n", n_out, weights ? " (weights from a file)" : "",
         limited ? " (limited stack)" : "");
  return 0;
}
