/* stub_fake_model.c — a hand-written stand-in for generated code, to test the runtime stub.
 *
 * Inputs:  x float[4][256], y int64 scalar.   Outputs: out float[4][256] = x + 1 + y,
 * twice_y int64[1] = 2 * y. Works in the arena (checks its alignment), uses nested
 * onnxc_parallel_for (rows, then columns), and fails with INDEX_OUT_OF_RANGE on a NaN in x.
 */
#define _GNU_SOURCE
#include "runtime_stub/model_desc.h"
#include "runtime_stub/onnxc_runtime.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#define ROWS 4
#define COLS 256

static const int64_t x_dims[] = {ROWS, COLS};
static const int64_t out_dims[] = {ROWS, COLS};
static const int64_t twice_dims[] = {1};
static const onnxc_tensor_desc inputs[] = {
    {"x", ONNXC_DTYPE_FLOAT, 2, x_dims, ROWS *COLS * 4, NULL},
    {"y", ONNXC_DTYPE_INT64, 0, 0, 8, NULL},
};
static const onnxc_tensor_desc outputs[] = {
    {"out", ONNXC_DTYPE_FLOAT, 2, out_dims, ROWS *COLS * 4, NULL},
    {"twice_y", ONNXC_DTYPE_INT64, 1, twice_dims, 8, NULL},
};

const onnxc_model_desc onnxc__model = {
    ONNXC_ABI_VERSION,
    2,
    2,
    0,
    ROWS *COLS * 4,
    64,
    "fake",
    "{\"name\":\"fake\",\"abi_version\":3,\"arena_size\":4096,\"inputs\":[{\"name\":\"x\","
    "\"dtype\":\"float\",\"shape\":[4,256]},{\"name\":\"y\",\"dtype\":\"int64\",\"shape\":[]}],"
    "\"outputs\":[{\"name\":\"out\",\"dtype\":\"float\",\"shape\":[4,256]},{\"name\":\"twice_y\","
    "\"dtype\":\"int64\",\"shape\":[1]}]}",
    inputs,
    outputs,
    0,
    0,
    0,
    0,
    NULL,
    NULL,
    0,
    0}; /* embedded (no) weights, not a profile build,
       static dims */

/// Number of outer chunks the last run executed (tests check the pool really splits work).
int stub_fake_outer_chunks;
/// Set by the test: the application thread that calls onnxc_run.
pthread_t stub_fake_app_thread;
/// Per run: outer chunks executed by a pool worker (not the application thread), and the
/// smallest number of CPUs such a worker was allowed to run on (sched_getaffinity).
int stub_fake_worker_chunks, stub_fake_worker_min_cpus;
/// Set by the test: each outer chunk first waits this many microseconds (time for a sleeping
/// worker to wake and take a chunk).
int stub_fake_chunk_us;
/// Per run: the rows (outer chunks) the application thread and the workers ran, in the order
/// each ran them (at most ROWS each; the test runs one worker).
int64_t stub_fake_app_rows[ROWS], stub_fake_worker_rows[ROWS];
int stub_fake_app_count, stub_fake_worker_count;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

struct job {
  onnxc_rt *rt;
  const float *x;
  float *tmp;
  float add;
  int failed; /* atomic */
};

struct row_job {
  struct job *job;
  int64_t row;
};

static void cols_body(void *c, int64_t begin, int64_t end) {
  const struct row_job *rj = (const struct row_job *)c;
  struct job *j = rj->job;
  for (int64_t k = begin; k < end; ++k) {
    float v = j->x[rj->row * COLS + k];
    if (v != v) {
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
      onnxc_rt_fail(j->rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE, "NaN found in x");
      return;
    }
    j->tmp[rj->row * COLS + k] = v + j->add;
  }
}

static void rows_body(void *c, int64_t begin, int64_t end) {
  struct job *j = (struct job *)c;
  __atomic_add_fetch(&stub_fake_outer_chunks, 1, __ATOMIC_RELAXED);
  const double until = now_us() + stub_fake_chunk_us;
  while (now_us() < until) {
  }
  if (!pthread_equal(pthread_self(), stub_fake_app_thread)) {
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    __atomic_add_fetch(&stub_fake_worker_chunks, 1, __ATOMIC_RELAXED);
    int seen = __atomic_load_n(&stub_fake_worker_min_cpus, __ATOMIC_RELAXED);
    while (cpus < seen && !__atomic_compare_exchange_n(&stub_fake_worker_min_cpus, &seen, cpus, 0,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
  const int app = pthread_equal(pthread_self(), stub_fake_app_thread);
  for (int64_t r = begin; r < end; ++r) {
    int at = __atomic_fetch_add(app ? &stub_fake_app_count : &stub_fake_worker_count, 1,
                                __ATOMIC_RELAXED);
    if (at < ROWS)
      (app ? stub_fake_app_rows : stub_fake_worker_rows)[at] = r;
  }
  for (int64_t r = begin; r < end; ++r) {
    struct row_job rj = {j, r};
    onnxc_parallel_for(j->rt, COLS, 16, cols_body, &rj); /* nested: runs serially */
  }
}

int32_t onnxc__model_run(onnxc_rt *rt, unsigned char *arena, const unsigned char *weights,
                         const void *const *in, void *const *out) {
  (void)weights; /* embedded-style model: no weights */
  if ((uintptr_t)arena % 64 != 0)
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR, "arena is misaligned");
  int64_t y = *(const int64_t *)in[1];
  struct job j = {rt, (const float *)in[0], (float *)arena, 1.0f + (float)y, 0};
  __atomic_store_n(&stub_fake_outer_chunks, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&stub_fake_worker_chunks, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&stub_fake_worker_min_cpus, 1 << 30, __ATOMIC_RELAXED);
  __atomic_store_n(&stub_fake_app_count, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&stub_fake_worker_count, 0, __ATOMIC_RELAXED);
  onnxc_parallel_for(rt, ROWS, 1, rows_body, &j);
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED))
    return onnxc_rt_node_failed(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE, "node 'add1' (Add, #0)");
  memcpy(out[0], arena, ROWS * COLS * sizeof(float));
  *(int64_t *)out[1] = 2 * y;
  return 0;
}
