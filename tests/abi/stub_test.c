/* stub_test.c — exercises every function of the runtime ABI (runtime_stub/onnxc_runtime.h)
 * against the hand-written fake model in stub_fake_model.c, linked with onnxc_runtime_native. */
#define _GNU_SOURCE
#include "runtime_stub/onnxc_runtime.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS 4
#define COLS 256
#define N (ROWS * COLS)

extern int stub_fake_outer_chunks;
extern pthread_t stub_fake_app_thread;
extern int stub_fake_worker_chunks, stub_fake_worker_min_cpus, stub_fake_chunk_us;
extern int64_t stub_fake_app_rows[ROWS], stub_fake_worker_rows[ROWS];
extern int stub_fake_app_count, stub_fake_worker_count;
static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)
#define CHECK_STATUS(expr, want) check_status((expr), (want), #expr, __LINE__)
#define CHECK_CONTAINS(s, sub) check_contains((s), (sub), __LINE__)

static void check_status(onnxc_status got, onnxc_status want, const char *expr, int line) {
  if (got != want) {
    fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", __FILE__, line, expr, got, want);
    ++failures;
  }
}

static void check_contains(const char *s, const char *sub, int line) {
  if (!s || !strstr(s, sub)) {
    fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, line, s ? s : "(null)",
            sub);
    ++failures;
  }
}

/// The inputs and outputs of one run, as onnxc_tensor descriptors over owned buffers.
typedef struct io {
  float x[N];
  int64_t y;
  float out[N];
  int64_t twice_y;
  onnxc_tensor in_t[2], out_t[2];
} io;

static void io_init(io *b, int64_t y, float base) {
  for (int i = 0; i < N; ++i)
    b->x[i] = base + (float)i;
  b->y = y;
  memset(b->out, 0, sizeof b->out);
  b->twice_y = 0;
  memset(b->in_t, 0, sizeof b->in_t);
  memset(b->out_t, 0, sizeof b->out_t);
  b->in_t[0] = (onnxc_tensor){b->x, sizeof b->x, ONNXC_DTYPE_FLOAT, 2, {ROWS, COLS}};
  b->in_t[1] = (onnxc_tensor){&b->y, sizeof b->y, ONNXC_DTYPE_INT64, 0, {0}};
  b->out_t[0] = (onnxc_tensor){b->out, sizeof b->out, ONNXC_DTYPE_FLOAT, 0, {0}};
  b->out_t[1] = (onnxc_tensor){&b->twice_y, sizeof b->twice_y, ONNXC_DTYPE_INT64, 0, {0}};
}

/// True if the outputs hold the fake model's results for the inputs.
static int io_ok(const io *b) {
  for (int i = 0; i < N; ++i)
    if (b->out[i] != b->x[i] + 1.0f + (float)b->y)
      return 0;
  return b->twice_y == 2 * b->y;
}

static onnxc_status run_io(onnxc_context *ctx, io *b) {
  return onnxc_run(ctx, b->in_t, 2, b->out_t, 2);
}

static void test_metadata(void) {
  CHECK(onnxc_abi_version() == ONNXC_ABI_VERSION);
  CHECK(strcmp(onnxc_model_name(), "fake") == 0);
  CHECK_CONTAINS(onnxc_signature_json(), "\"abi_version\":3");
  CHECK(onnxc_arena_size() == N * 4);
  CHECK(onnxc_arena_alignment() == 64);
  CHECK(onnxc_num_inputs() == 2);
  CHECK(onnxc_num_outputs() == 2);
  onnxc_tensor_info info;
  CHECK_STATUS(onnxc_input_info(0, &info), ONNXC_OK);
  CHECK(strcmp(info.name, "x") == 0 && info.dtype == ONNXC_DTYPE_FLOAT && info.rank == 2);
  CHECK(info.shape[0] == ROWS && info.shape[1] == COLS && info.size_bytes == N * 4);
  CHECK_STATUS(onnxc_input_info(1, &info), ONNXC_OK);
  CHECK(strcmp(info.name, "y") == 0 && info.rank == 0 && info.size_bytes == 8);
  CHECK_STATUS(onnxc_output_info(1, &info), ONNXC_OK);
  CHECK(strcmp(info.name, "twice_y") == 0 && info.dtype == ONNXC_DTYPE_INT64);
  CHECK_STATUS(onnxc_input_info(2, &info), ONNXC_ERROR_INDEX_OUT_OF_RANGE);
  CHECK_STATUS(onnxc_input_info(-1, &info), ONNXC_ERROR_INDEX_OUT_OF_RANGE);
  CHECK_STATUS(onnxc_output_info(2, &info), ONNXC_ERROR_INDEX_OUT_OF_RANGE);
  CHECK_STATUS(onnxc_input_info(0, NULL), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_output_info(0, NULL), ONNXC_ERROR_INVALID_ARGUMENT);
}

static void test_create(void) {
  CHECK_STATUS(onnxc_create(NULL), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(onnxc_last_error(NULL), "out is NULL");
  onnxc_context *ctx = (onnxc_context *)1;
  CHECK_STATUS(onnxc_create(&ctx), ONNXC_OK);
  CHECK(ctx != NULL);
  CHECK(strcmp(onnxc_last_error(NULL), "") == 0);
  CHECK(strcmp(onnxc_last_error(ctx), "") == 0);
  onnxc_destroy(ctx);
  onnxc_destroy(NULL);

  /* caller-supplied arena */
  size_t need = (size_t)onnxc_arena_size();
  unsigned char *arena = aligned_alloc(64, need + 128);
  CHECK_STATUS(onnxc_create_with_arena(arena, need, NULL), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_create_with_arena(NULL, need, &ctx), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK(ctx == NULL);
  CHECK_CONTAINS(onnxc_last_error(NULL), "arena is NULL");
  CHECK_STATUS(onnxc_create_with_arena(arena, need - 1, &ctx), ONNXC_ERROR_BUFFER_TOO_SMALL);
  CHECK_CONTAINS(onnxc_last_error(NULL), "onnxc_arena_size()");
  CHECK_STATUS(onnxc_create_with_arena(arena + 8, need, &ctx), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(onnxc_last_error(NULL), "aligned");
  CHECK_STATUS(onnxc_create_with_arena(arena + 64, need, &ctx), ONNXC_OK);
  CHECK(strcmp(onnxc_last_error(NULL), "") == 0);
  io *b = malloc(sizeof *b);
  io_init(b, 3, 0.5f);
  CHECK_STATUS(run_io(ctx, b), ONNXC_OK);
  CHECK(io_ok(b));
  onnxc_destroy(ctx);
  free(b);
  free(arena);
}

static void test_threads_args(void) {
  onnxc_context *ctx;
  CHECK_STATUS(onnxc_create(&ctx), ONNXC_OK);
  CHECK_STATUS(onnxc_set_num_threads(NULL, 2), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 0), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(onnxc_last_error(ctx), "onnxc_set_num_threads");
  CHECK_STATUS(onnxc_set_num_threads(ctx, -3), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 100000), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 3), ONNXC_OK);
  CHECK(strcmp(onnxc_last_error(ctx), "") == 0);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 3), ONNXC_OK);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 1), ONNXC_OK);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 2), ONNXC_OK);
  onnxc_destroy(ctx); /* with live workers */
}

/// Every way a run can be rejected, each followed by a good run on the same context.
static void test_run_errors(int threads) {
  onnxc_context *ctx;
  CHECK_STATUS(onnxc_create(&ctx), ONNXC_OK);
  CHECK_STATUS(onnxc_set_num_threads(ctx, threads), ONNXC_OK);
  io *b = malloc(sizeof *b);
  io_init(b, 5, -2.0f);

  CHECK_STATUS(onnxc_run(NULL, b->in_t, 2, b->out_t, 2), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_run(ctx, NULL, 2, b->out_t, 2), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(onnxc_last_error(ctx), "NULL");
  CHECK_STATUS(onnxc_run(ctx, b->in_t, 2, NULL, 2), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_run(ctx, b->in_t, 1, b->out_t, 2), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(onnxc_last_error(ctx), "got 1 inputs and 2 outputs, the model has 2 and 2");
  CHECK_STATUS(onnxc_run(ctx, b->in_t, 2, b->out_t, 3), ONNXC_ERROR_INVALID_ARGUMENT);

  b->in_t[0].dtype = ONNXC_DTYPE_DOUBLE;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_DTYPE_MISMATCH);
  CHECK_CONTAINS(onnxc_last_error(ctx), "input 0 ('x'): dtype is double, the model expects float");
  b->in_t[0].dtype = ONNXC_DTYPE_FLOAT;
  b->in_t[0].rank = 3;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_SHAPE_MISMATCH);
  CHECK_CONTAINS(onnxc_last_error(ctx), "shape is 4x256x0, the model expects 4x256");
  b->in_t[0].rank = 99;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_SHAPE_MISMATCH);
  CHECK_CONTAINS(onnxc_last_error(ctx), "of rank 99");
  b->in_t[0].rank = 2;
  b->in_t[0].shape[1] = 255;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_SHAPE_MISMATCH);
  CHECK_CONTAINS(onnxc_last_error(ctx), "shape is 4x255");
  b->in_t[0].shape[1] = COLS;
  b->in_t[1].rank = 1;
  b->in_t[1].shape[0] = 1;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_SHAPE_MISMATCH);
  CHECK_CONTAINS(onnxc_last_error(ctx), "input 1 ('y'): shape is 1, the model expects scalar");
  b->in_t[1].rank = 0;
  b->in_t[0].size_bytes = N * 4 - 1;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_BUFFER_TOO_SMALL);
  CHECK_CONTAINS(onnxc_last_error(ctx), "size_bytes is 4095, the model needs 4096");
  b->in_t[0].size_bytes = N * 4;
  b->in_t[0].data = NULL;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(onnxc_last_error(ctx), "data is NULL");
  b->in_t[0].data = b->x;
  b->out_t[1].dtype = ONNXC_DTYPE_INT32;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_DTYPE_MISMATCH);
  CHECK_CONTAINS(onnxc_last_error(ctx), "output 1 ('twice_y'): dtype is int32");
  b->out_t[1].dtype = ONNXC_DTYPE_INT64;
  b->out_t[0].size_bytes = 16;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_BUFFER_TOO_SMALL);
  CHECK_CONTAINS(onnxc_last_error(ctx), "output 0 ('out'): size_bytes is 16");
  b->out_t[0].size_bytes = sizeof b->out;
  b->out_t[0].data = NULL;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_INVALID_ARGUMENT);
  b->out_t[0].data = b->out;

  /* a kernel failure (possibly on a pool thread), then good runs */
  b->x[N - 3] = NAN;
  CHECK_STATUS(run_io(ctx, b), ONNXC_ERROR_INDEX_OUT_OF_RANGE);
  CHECK(strcmp(onnxc_last_error(ctx), "node 'add1' (Add, #0): NaN found in x") == 0);
  b->x[N - 3] = 1.0f;
  CHECK_STATUS(run_io(ctx, b), ONNXC_OK);
  CHECK(strcmp(onnxc_last_error(ctx), "") == 0);
  CHECK(io_ok(b));
  CHECK(b->out_t[0].rank == 2 && b->out_t[0].shape[0] == ROWS && b->out_t[0].shape[1] == COLS);
  CHECK(b->out_t[1].rank == 1 && b->out_t[1].shape[0] == 1);
  CHECK(stub_fake_outer_chunks == (threads == 1 ? 1 : ROWS));

  /* run_buffers */
  const void *ins[2] = {b->x, &b->y};
  void *outs[2] = {b->out, &b->twice_y};
  CHECK_STATUS(onnxc_run_buffers(NULL, ins, outs), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_run_buffers(ctx, NULL, outs), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(onnxc_run_buffers(ctx, ins, NULL), ONNXC_ERROR_INVALID_ARGUMENT);
  ins[1] = NULL;
  CHECK_STATUS(onnxc_run_buffers(ctx, ins, outs), ONNXC_ERROR_INVALID_ARGUMENT);
  CHECK_CONTAINS(onnxc_last_error(ctx), "input 1 ('y'): buffer is NULL");
  ins[1] = &b->y;
  b->y = -7;
  memset(b->out, 0, sizeof b->out);
  CHECK_STATUS(onnxc_run_buffers(ctx, ins, outs), ONNXC_OK);
  CHECK(io_ok(b));

  /* many runs: the pool is reused without leaking state */
  for (int r = 0; r < 300; ++r) {
    io_init(b, r, (float)r);
    if (r % 50 == 7)
      b->x[r] = NAN;
    onnxc_status st = run_io(ctx, b);
    CHECK_STATUS(st, r % 50 == 7 ? ONNXC_ERROR_INDEX_OUT_OF_RANGE : ONNXC_OK);
    if (st == ONNXC_OK)
      CHECK(io_ok(b));
  }
  free(b);
  onnxc_destroy(ctx);
}

typedef struct worker_arg {
  int threads;
  int bad;
} worker_arg;

/// One application thread with its own context, running many times.
static void *app_thread(void *p) {
  worker_arg *a = (worker_arg *)p;
  onnxc_context *ctx;
  if (onnxc_create(&ctx) != ONNXC_OK || onnxc_set_num_threads(ctx, a->threads) != ONNXC_OK) {
    a->bad = 1;
    return NULL;
  }
  io *b = malloc(sizeof *b);
  for (int r = 0; r < 500; ++r) {
    io_init(b, r % 13, (float)(r * a->threads));
    if (run_io(ctx, b) != ONNXC_OK || !io_ok(b))
      a->bad = 1;
  }
  free(b);
  onnxc_destroy(ctx);
  return NULL;
}

static void test_concurrent_contexts(void) {
  pthread_t t[2];
  worker_arg args[2] = {{2, 0}, {3, 0}};
  for (int i = 0; i < 2; ++i)
    CHECK(pthread_create(&t[i], NULL, app_thread, &args[i]) == 0);
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  CHECK(!args[0].bad && !args[1].bad);
}

/// Runs ctx (2 threads) with a pause before each run, so that the pool's worker sleeps in between
/// and is woken by the run (the path where it may move off its waker's CPU), until a worker ran
/// `want` chunks; checks every result. Returns the fewest CPUs a worker was allowed, or 0 if no
/// worker ran a chunk.
static int run_with_pauses(onnxc_context *ctx, int want) {
  io *b = malloc(sizeof *b);
  int worker_chunks = 0, min_cpus = 1 << 30;
  for (int r = 0; r < 400 && worker_chunks < want; ++r) {
    struct timespec pause = {0, 2000000}; /* 2 ms: longer than the pool's spin */
    nanosleep(&pause, NULL);
    io_init(b, r % 7, (float)r);
    CHECK_STATUS(run_io(ctx, b), ONNXC_OK);
    CHECK(io_ok(b));
    if (stub_fake_worker_chunks > 0) {
      worker_chunks += stub_fake_worker_chunks;
      min_cpus = stub_fake_worker_min_cpus < min_cpus ? stub_fake_worker_min_cpus : min_cpus;
    }
  }
  free(b);
  return worker_chunks > 0 ? min_cpus : 0;
}

/// Pool threads are spread over the CPUs (thread_pool.c: a worker that starts or wakes on its
/// creator's or waker's CPU moves to another) but never pinned: a worker may run on every CPU
/// the application thread may; and where the application restricted its thread to one CPU, the
/// workers stay within that.
static void test_worker_cpus(void) {
  stub_fake_app_thread = pthread_self();
  stub_fake_chunk_us = 500;
  cpu_set_t all;
  CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
  const int allowed = CPU_COUNT(&all);
  onnxc_context *ctx;
  CHECK_STATUS(onnxc_create(&ctx), ONNXC_OK);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 2), ONNXC_OK);
  const int spread = run_with_pauses(ctx, 20);
  CHECK(spread == allowed);
  if (spread != allowed)
    fprintf(stderr, "a pool worker was allowed %d CPUs, the application %d\n", spread, allowed);
  onnxc_destroy(ctx);

  int first = 0;
  while (!CPU_ISSET(first, &all))
    ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  CHECK(pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0);
  CHECK_STATUS(onnxc_create(&ctx), ONNXC_OK);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 2), ONNXC_OK); /* workers inherit {first} */
  const int pinned = run_with_pauses(ctx, 20);
  CHECK(pinned == 1);
  onnxc_destroy(ctx);
  CHECK(pthread_setaffinity_np(pthread_self(), sizeof all, &all) == 0);
  stub_fake_chunk_us = 0;
}

/// Whether `rows[0..n)` is what thread `self` of 2 may run of 4 chunks (thread_pool.c
/// run_chunks): first chunks of its own share [2 self, 2 self + 2), ascending, then chunks of
/// the other share, descending.
static int share_order(const int64_t *rows, int n, int self) {
  int i = 0;
  for (; i < n && rows[i] / 2 == self; ++i)
    if (i > 0 && rows[i] <= rows[i - 1])
      return 0;
  for (int k = i; k < n; ++k)
    if (rows[k] / 2 == self || (k > i && rows[k] >= rows[k - 1]))
      return 0;
  return 1;
}

/// Each thread first runs its own contiguous share of a loop's chunks (the caller the first
/// half, the worker the second), then takes what is left from the end: whatever the timing,
/// every chunk runs once and each thread's order has that shape (60 runs); and when both
/// threads are there from the start, each runs exactly its own share (some run within 5 s,
/// where the process may use two CPUs: under load the worker may wake too late for many runs).
static void test_chunk_shares(void) {
  stub_fake_app_thread = pthread_self();
  stub_fake_chunk_us = 300;
  cpu_set_t all;
  const int cpus = sched_getaffinity(0, sizeof all, &all) == 0 ? CPU_COUNT(&all) : 1;
  onnxc_context *ctx;
  CHECK_STATUS(onnxc_create(&ctx), ONNXC_OK);
  CHECK_STATUS(onnxc_set_num_threads(ctx, 2), ONNXC_OK);
  io *b = malloc(sizeof *b);
  int exact = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < 60 || (cpus >= 2 && exact == 0); ++r) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (r >= 60 && (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > 5.0)
      break;
    io_init(b, r % 5, (float)r);
    CHECK_STATUS(run_io(ctx, b), ONNXC_OK);
    CHECK(io_ok(b));
    const int na = stub_fake_app_count, nw = stub_fake_worker_count;
    CHECK(na + nw == ROWS && na <= ROWS && nw <= ROWS);
    if (na + nw != ROWS || na > ROWS || nw > ROWS)
      break;
    int seen = 0;
    for (int i = 0; i < na; ++i)
      seen |= 1 << stub_fake_app_rows[i];
    for (int i = 0; i < nw; ++i)
      seen |= 1 << stub_fake_worker_rows[i];
    CHECK(seen == (1 << ROWS) - 1);
    CHECK(share_order(stub_fake_app_rows, na, 0));
    CHECK(share_order(stub_fake_worker_rows, nw, 1));
    exact += na == 2 && stub_fake_app_rows[0] == 0 && stub_fake_app_rows[1] == 1;
  }
  CHECK(cpus < 2 || exact > 0);
  free(b);
  onnxc_destroy(ctx);
  stub_fake_chunk_us = 0;
}

/// onnxc_last_error(NULL) is per thread.
static void *failing_create(void *p) {
  (void)p;
  onnxc_create_with_arena(NULL, 0, NULL);
  return (void *)(uintptr_t)(strlen(onnxc_last_error(NULL)) > 0);
}

static void test_create_error_per_thread(void) {
  onnxc_context *ctx;
  CHECK_STATUS(onnxc_create(&ctx), ONNXC_OK);
  pthread_t t;
  void *ret = NULL;
  CHECK(pthread_create(&t, NULL, failing_create, NULL) == 0);
  pthread_join(t, &ret);
  CHECK(ret == (void *)1);
  CHECK(strcmp(onnxc_last_error(NULL), "") == 0);
  onnxc_destroy(ctx);
}

int main(void) {
  test_metadata();
  test_create();
  test_threads_args();
  test_run_errors(1);
  test_run_errors(2);
  test_run_errors(4);
  test_concurrent_contexts();
  test_worker_cpus();
  test_chunk_shares();
  test_create_error_per_thread();
  if (failures) {
    fprintf(stderr, "stub_test: %d failure(s)\n", failures);
    return 1;
  }
  printf("stub_test: all checks passed\n");
  return 0;
}
