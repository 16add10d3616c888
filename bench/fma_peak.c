/* fma_peak.c — measures the single-precision FMA throughput of this machine, in the same run as
 * the benchmark, so that "% of peak" is relative to what the CPU delivers under the current load.
 *
 * Each thread runs independent FMA chains (more chains than FMA latency x pipes, so the pipes
 * stay full) on registers only, with AVX-512F (16 floats per FMA) and AVX2+FMA (8 floats), and
 * reports GFLOP/s = 2 * lanes * chains * iterations / seconds summed over threads. The best of
 * several trials is kept. Built by bench/run.py with `cc -O2 -pthread`; ISAs the CPU lacks are
 * skipped (reported as 0).
 *
 * Usage: fma_peak MAX_THREADS   -> one JSON object on stdout (GFLOP/s per thread count):
 *   {"avx512":{"1":G,"2":G},"avx2":{..},"peak":{..},"peak_cpu_time":{..}}
 * "peak" is by wall-clock time (the best ISA), comparable with latencies measured under the same
 * load; "peak_cpu_time" divides by each thread's CPU time instead (the rate when not preempted).
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 4000000L
#define TRIALS 5
#define MAX_THREADS 64

typedef float (*kernel_fn)(long iters, float seed);

/* Named accumulators (not an array) keep every chain in a register at -O2. */
#define CHAINS12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define CHAINS16(X) CHAINS12(X) X(12) X(13) X(14) X(15)

/* 16 chains of 16-lane FMAs: 512 FLOP per iteration. */
__attribute__((target("avx512f"), noinline)) static float fma_avx512(long iters, float seed) {
  __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(seed * 1e-7f);
#define INIT(i) __m512 c##i = _mm512_set1_ps(seed + (float)(i));
#define STEP(i) c##i = _mm512_fmadd_ps(c##i, a, b);
#define SUM(i) s = _mm512_add_ps(s, c##i);
  CHAINS16(INIT)
  for (long it = 0; it < iters; ++it) {
    CHAINS16(STEP)
  }
  __m512 s = _mm512_setzero_ps();
  CHAINS16(SUM)
#undef INIT
#undef STEP
#undef SUM
  return _mm512_reduce_add_ps(s);
}

/* 12 chains of 8-lane FMAs: 192 FLOP per iteration (12 of the 16 ymm registers). */
__attribute__((target("avx2,fma"), noinline)) static float fma_avx2(long iters, float seed) {
  __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(seed * 1e-7f);
#define INIT(i) __m256 c##i = _mm256_set1_ps(seed + (float)(i));
#define STEP(i) c##i = _mm256_fmadd_ps(c##i, a, b);
#define SUM(i) s = _mm256_add_ps(s, c##i);
  CHAINS12(INIT)
  for (long it = 0; it < iters; ++it) {
    CHAINS12(STEP)
  }
  __m256 s = _mm256_setzero_ps();
  CHAINS12(SUM)
#undef INIT
#undef STEP
#undef SUM
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

struct job {
  kernel_fn fn;
  long iters;
  float result;
  double cpu_secs; /* this thread's CPU time: its throughput when it actually ran */
};

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *run_job(void *arg) {
  struct job *j = arg;
  double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
  j->result = j->fn(j->iters, 1.0f);
  j->cpu_secs = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
  return NULL;
}

struct rate {
  double wall; /* GFLOP/s by wall-clock time: what the threads got under the current load */
  double cpu;  /* GFLOP/s by each thread's CPU time: the machine's rate when not preempted */
};

/* GFLOP/s of `threads` threads each running fn (best of TRIALS). */
static struct rate measure(kernel_fn fn, double flop_per_iter, int threads) {
  struct rate best = {0.0, 0.0};
  for (int t = 0; t < TRIALS; ++t) {
    pthread_t tid[MAX_THREADS];
    struct job jobs[MAX_THREADS];
    double t0 = clock_s(CLOCK_MONOTONIC);
    for (int i = 0; i < threads; ++i) {
      jobs[i] = (struct job){fn, ITERS, 0.0f, 0.0};
      if (pthread_create(&tid[i], NULL, run_job, &jobs[i]) != 0) {
        fprintf(stderr, "fma_peak: error: pthread_create failed\n");
        exit(1);
      }
    }
    for (int i = 0; i < threads; ++i)
      pthread_join(tid[i], NULL);
    double secs = clock_s(CLOCK_MONOTONIC) - t0;
    double flop = flop_per_iter * (double)ITERS;
    double wall = flop * threads / secs * 1e-9, cpu = 0.0;
    for (int i = 0; i < threads; ++i)
      cpu += jobs[i].cpu_secs > 0.0 ? flop / jobs[i].cpu_secs * 1e-9 : 0.0;
    if (jobs[0].result == 12345.0f) /* keeps the result alive */
      wall += 1e-9;
    if (wall > best.wall)
      best.wall = wall;
    if (cpu > best.cpu)
      best.cpu = cpu;
  }
  return best;
}

static void print_rates(const char *name, const struct rate *r, int max_threads, int cpu) {
  printf("\"%s\":{", name);
  for (int n = 1; n <= max_threads; ++n)
    printf("%s\"%d\":%.2f", n > 1 ? "," : "", n, cpu ? r[n].cpu : r[n].wall);
  printf("}");
}

int main(int argc, char **argv) {
  int max_threads = argc > 1 ? atoi(argv[1]) : 1;
  if (max_threads < 1 || max_threads > MAX_THREADS) {
    fprintf(stderr, "fma_peak: error: thread count must be 1..%d\n", MAX_THREADS);
    return 1;
  }
  __builtin_cpu_init();
  int has512 = __builtin_cpu_supports("avx512f");
  int has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  struct rate r512[MAX_THREADS + 1] = {{0}}, r2[MAX_THREADS + 1] = {{0}}, peak[MAX_THREADS + 1];
  for (int n = 1; n <= max_threads; ++n) {
    if (has512)
      r512[n] = measure(fma_avx512, 512.0, n);
    if (has2)
      r2[n] = measure(fma_avx2, 192.0, n);
    peak[n].wall = r512[n].wall > r2[n].wall ? r512[n].wall : r2[n].wall;
    peak[n].cpu = r512[n].cpu > r2[n].cpu ? r512[n].cpu : r2[n].cpu;
  }
  printf("{");
  print_rates("avx512", r512, max_threads, 0);
  printf(",");
  print_rates("avx2", r2, max_threads, 0);
  printf(",");
  print_rates("peak", peak, max_threads, 0);
  printf(",");
  print_rates("peak_cpu_time", peak, max_threads, 1);
  printf("}\n");
  return 0;
}
