/* sanitize.tsan_concurrent_runs: the sample model, compiled with `onnxc compile --sanitize=thread`
 * (so its kernels, runtime and thread pool are instrumented), run by 4 threads at once, each with
 * its own context and input, threads 2 and 3 with a pool of 2 threads inside; every result must be
 * bit-identical to the one computed beforehand on one thread, and thread 0's must match the numpy
 * reference. The program is built with -fsanitize=thread: any data race (TSAN_OPTIONS
 * halt_on_error=1 exitcode=66) fails the test.
 *
 *   tsan_concurrent EXPECTED.txt ITERATIONS          the test
 *   tsan_concurrent EXPECTED.txt ITERATIONS --share  the control: 2 threads share ONE context,
 *                                                    which is a race TSan must report */
#include "sample.h"
#include "e2e_common.h"

#include <pthread.h>

enum { kThreads = 4 };

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

static void run_threads(job *jobs, int n) {
  pthread_t threads[kThreads];
  for (int k = 0; k < n; ++k)
    if (pthread_create(&threads[k], NULL, worker, &jobs[k]) != 0)
      e2e_fail("pthread_create");
  for (int k = 0; k < n; ++k)
    pthread_join(threads[k], NULL);
}

int main(int argc, char **argv) {
  if (argc < 3)
    e2e_fail("usage: tsan_concurrent EXPECTED.txt ITERATIONS [--share]");
  int iterations = atoi(argv[2]);
  int share = argc > 3 && strcmp(argv[3], "--share") == 0;
  static float want[E2E_MAX_VALUES];
  int n = e2e_read_floats(argv[1], want, E2E_MAX_VALUES);
  if (n != SAMPLE_OUTPUT_0_SIZE)
    e2e_fail("expected.txt has %d values", n);

  static job jobs[kThreads];
  e2e_sample_input(jobs[0].in, SAMPLE_INPUT_0_SIZE);
  for (int k = 1; k < kThreads; ++k) /* other threads: the sample input permuted and scaled */
    for (int i = 0; i < SAMPLE_INPUT_0_SIZE; ++i)
      jobs[k].in[i] = (1.0f + 0.25f * k) * jobs[0].in[(i * (2 * k + 1)) % SAMPLE_INPUT_0_SIZE];
  for (int k = 0; k < kThreads; ++k) {
    if (sample_create(&jobs[k].ctx) != ONNXC_OK)
      e2e_fail("sample_create: %s", sample_last_error(NULL));
    if (sample_infer(jobs[k].ctx, jobs[k].in, jobs[k].baseline) != ONNXC_OK)
      e2e_fail("sample_infer: %s", sample_last_error(jobs[k].ctx));
    jobs[k].iterations = iterations;
    if (k >= 2 && sample_set_num_threads(jobs[k].ctx, 2) != ONNXC_OK)
      e2e_fail("sample_set_num_threads: %s", sample_last_error(jobs[k].ctx));
  }
  e2e_expect_close("thread 0", jobs[0].baseline, want, n);
  if (memcmp(jobs[0].baseline, jobs[1].baseline, sizeof jobs[0].baseline) == 0)
    e2e_fail("inputs 0 and 1 give the same output; the test could not see interference");

  if (share) { /* the control: a race on one context's arena */
    jobs[1].ctx = jobs[0].ctx;
    memcpy(jobs[1].in, jobs[0].in, sizeof jobs[0].in);
    memcpy(jobs[1].baseline, jobs[0].baseline, sizeof jobs[0].baseline);
    run_threads(jobs, 2);
    printf("control: no race reported on a shared context\n");
    return 0;
  }
  run_threads(jobs, kThreads);
  for (int k = 0; k < kThreads; ++k) {
    if (jobs[k].failures || jobs[k].mismatches)
      e2e_fail("thread %d: %d failed runs, %d wrong results of %d", k, jobs[k].failures,
               jobs[k].mismatches, iterations);
    sample_destroy(jobs[k].ctx);
  }
  printf("PASS: %d threads x %d runs with separate contexts (2 with 2-thread pools), results "
         "bit-identical, no data race\n",
         kThreads, iterations);
  return 0;
}
