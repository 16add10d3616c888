/* cpu_distance.c — how far apart two CPUs are, as the round trip of one cache line between two
 * threads pinned to them: a thread on CPU A writes a counter, one on CPU B waits for it and
 * writes it back, and so on. On a 2-vCPU VM the host moves the two vCPUs between cores that
 * share a cache (session 44's Zen 5: 105-140 ns) and cores that do not (380-470 ns), and
 * onnxc's 2-thread latency depends on which (docs/performance.md, session 44); running this
 * before a 2-thread measurement tells which kind of period it fell in.
 *
 * Usage: cpu_distance [SECONDS [CPU_A CPU_B]]   (default 0.3 s, the first two CPUs this process
 * may run on) -> one line: the median round trip in nanoseconds over 50 ms slices, e.g. "118".
 * Exit status 1 with a message on stderr if fewer than two CPUs are usable or an argument is bad.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_SLICES 4096

static _Alignas(64) volatile long line; /* the bounced counter, alone in its cache line */
static _Alignas(64) volatile int done;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* CPU B: answers every odd value with the next even one until done. */
static void *responder(void *arg) {
  if (pin(*(int *)arg) != 0) {
    done = 2;
    return NULL;
  }
  long seen = 0;
  while (!done) {
    const long v = __atomic_load_n(&line, __ATOMIC_ACQUIRE);
    if (v != seen && (v & 1)) {
      __atomic_store_n(&line, v + 1, __ATOMIC_RELEASE);
      seen = v + 1;
    }
  }
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int fail(const char *msg) {
  fprintf(stderr, "cpu_distance: error: %s\n", msg);
  return 1;
}

int main(int argc, char **argv) {
  double seconds = 0.3;
  int cpus[2] = {-1, -1};
  if (argc != 1 && argc != 2 && argc != 4)
    return fail("usage: cpu_distance [SECONDS [CPU_A CPU_B]]");
  if (argc >= 2) {
    char *end;
    seconds = strtod(argv[1], &end);
    if (*end != '\0' || !(seconds > 0 && seconds <= 3600))
      return fail("SECONDS must be a number in (0, 3600]");
  }
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return fail("sched_getaffinity failed");
  if (argc == 4) {
    for (int i = 0; i < 2; ++i) {
      char *end;
      const long c = strtol(argv[2 + i], &end, 10);
      if (*end != '\0' || c < 0 || c >= CPU_SETSIZE || !CPU_ISSET((int)c, &allowed))
        return fail("CPU_A and CPU_B must be CPUs this process may run on");
      cpus[i] = (int)c;
    }
    if (cpus[0] == cpus[1])
      return fail("CPU_A and CPU_B must differ");
  } else {
    for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; ++c)
      if (CPU_ISSET(c, &allowed))
        cpus[k++] = c;
    if (cpus[1] < 0)
      return fail("fewer than two usable CPUs");
  }
  if (pin(cpus[0]) != 0)
    return fail("cannot run on CPU_A");
  pthread_t t;
  if (pthread_create(&t, NULL, responder, &cpus[1]) != 0)
    return fail("pthread_create failed");
  static double slice_ns[MAX_SLICES];
  int slices = 0;
  long v = 0;
  const double end = now() + seconds;
  while (now() < end && slices < MAX_SLICES && done != 2) {
    const double t0 = now();
    long trips = 0;
    double t1 = t0;
    while (t1 - t0 < 0.05 && done != 2) {
      for (int i = 0; i < 64; ++i) { /* one trip: odd value out, the next even one back */
        __atomic_store_n(&line, v + 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&line, __ATOMIC_ACQUIRE) != v + 2 && done != 2) {
        }
        v += 2;
      }
      trips += 64;
      t1 = now();
    }
    slice_ns[slices++] = (t1 - t0) / (double)trips * 1e9;
  }
  const int pinned = done != 2;
  done = 1;
  pthread_join(t, NULL);
  if (!pinned)
    return fail("cannot run on CPU_B");
  qsort(slice_ns, (size_t)slices, sizeof slice_ns[0], cmp_double);
  printf("%.0f\n", slice_ns[slices / 2]);
  return 0;
}
