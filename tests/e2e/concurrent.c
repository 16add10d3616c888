/* e2e.concurrent_contexts: two contexts of one model run at the same time from two threads,
 * each on its own input, many times; every result must equal (bit for bit) the one computed
 * beforehand on a single thread, and input A's result must match the numpy reference.
 * Thread B's context also uses a pool of 2 threads.   concurrent EXPECTED.txt [ITERATIONS] */
#include "sample.h"
#include "e2e_common.h"

#include <pthread.h>

typedef struct job {
  onnxc_context *ctx;
  float in[SAMPLE_INPUT_0_SIZE];
  float baseline[SAMPLE_OUTPUT_0_SIZE];
  int iterations;
  int mismatches;
  int failures;
} job;

static void *worker(void *arg) {
  job *j = arg;
  float out[SAMPLE_OUTPUT_0_SIZE];
  for (int it = 0; it < j->iterations; ++it) {
    memset(out, 0xff, sizeof out);
    if (sample_infer(j->ctx, j->in, out) != ONNXC_OK)
      ++j->failures;
    else if (memcmp(out, j->baseline, sizeof out) != 0)
      ++j->mismatches;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2)
    e2e_fail("usage: concurrent EXPECTED.txt [ITERATIONS]");
  int iterations = argc > 2 ? atoi(argv[2]) : 2000;
  static float want[E2E_MAX_VALUES];
  int n = e2e_read_floats(argv[1], want, E2E_MAX_VALUES);
  if (n != SAMPLE_OUTPUT_0_SIZE)
    e2e_fail("expected.txt has %d values", n);

  static job jobs[2];
  e2e_sample_input(jobs[0].in, SAMPLE_INPUT_0_SIZE);
  for (int i = 0; i < SAMPLE_INPUT_0_SIZE; ++i) /* B: the sample input reversed and scaled */
    jobs[1].in[i] = 1.5f * jobs[0].in[SAMPLE_INPUT_0_SIZE - 1 - i];
  for (int k = 0; k < 2; ++k) {
    if (sample_create(&jobs[k].ctx) != ONNXC_OK)
      e2e_fail("sample_create: %s", sample_last_error(NULL));
    if (sample_infer(jobs[k].ctx, jobs[k].in, jobs[k].baseline) != ONNXC_OK)
      e2e_fail("sample_infer: %s", sample_last_error(jobs[k].ctx));
    jobs[k].iterations = iterations;
  }
  e2e_expect_close("context A", jobs[0].baseline, want, n);
  if (memcmp(jobs[0].baseline, jobs[1].baseline, sizeof jobs[0].baseline) == 0)
    e2e_fail("inputs A and B give the same output; the test could not see interference");
  if (sample_set_num_threads(jobs[1].ctx, 2) != ONNXC_OK)
    e2e_fail("sample_set_num_threads: %s", sample_last_error(jobs[1].ctx));

  pthread_t threads[2];
  for (int k = 0; k < 2; ++k)
    if (pthread_create(&threads[k], NULL, worker, &jobs[k]) != 0)
      e2e_fail("pthread_create");
  for (int k = 0; k < 2; ++k)
    pthread_join(threads[k], NULL);
  for (int k = 0; k < 2; ++k) {
    if (jobs[k].failures || jobs[k].mismatches)
      e2e_fail("context %c: %d failed runs, %d wrong results of %d", 'A' + k, jobs[k].failures,
               jobs[k].mismatches, iterations);
    sample_destroy(jobs[k].ctx);
  }
  printf("PASS: 2 contexts x %d concurrent runs, all results identical to the baselines\n",
         iterations);
  return 0;
}
