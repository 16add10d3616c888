/* thread_pool.c — the per-context thread pool behind onnxc_parallel_for.
 *
 * Protocol: the caller publishes a job (plain fields; every chunk's `claimed` flag cleared)
 * and then bumps `generation` with release order;
 * every worker waits for the bump (short spin, then futex), takes chunks (run_chunks), and
 * finally decrements `pending` with release order. The caller takes
 * part in the job and returns once `pending` is 0 (acquire), so every worker has seen each job
 * before the next one is posted and the job fields are never written while being read.
 * Nested parallel_for calls (from inside a job, on any thread) run serially.
 * A waiter counts itself in `sleepers` before its futex wait, so a wake is a system call only
 * when somebody sleeps (sequentially consistent order on both sides: either the waker sees the
 * count, or the waiter's futex sees the new value); a job whose threads are all spinning costs
 * no system call.
 */
#include "runtime_stub/stub_internal.h"

#if defined(__x86_64__)
#define ONNXC_SYS_FUTEX 202
#elif defined(__aarch64__)
#define ONNXC_SYS_FUTEX 98
#elif defined(__arm__) && defined(__ARM_EABI__)
#define ONNXC_SYS_FUTEX 240 /* 32-bit futex with a NULL timeout: no time64 variant needed */
#else
#error "runtime stub: unsupported architecture (add its futex syscall number)"
#endif
/* sched_setaffinity, sched_getaffinity, getcpu */
#if defined(__x86_64__)
#define ONNXC_SYS_SETAFFINITY 203
#define ONNXC_SYS_GETAFFINITY 204
#define ONNXC_SYS_GETCPU 309
#elif defined(__aarch64__)
#define ONNXC_SYS_SETAFFINITY 122
#define ONNXC_SYS_GETAFFINITY 123
#define ONNXC_SYS_GETCPU 168
#else
#define ONNXC_SYS_SETAFFINITY 241
#define ONNXC_SYS_GETAFFINITY 242
#define ONNXC_SYS_GETCPU 345
#endif
#define ONNXC_FUTEX_WAIT_PRIVATE 128 /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG */
#define ONNXC_FUTEX_WAKE_PRIVATE 129 /* FUTEX_WAKE | FUTEX_PRIVATE_FLAG */
#define ONNXC_SPIN_ITERATIONS 4000
#define ONNXC_CHUNKS_PER_THREAD 4
#define ONNXC_YIELD_EVERY 64

static void futex_wait(uint32_t *word, uint32_t expected) {
  syscall(ONNXC_SYS_FUTEX, word, ONNXC_FUTEX_WAIT_PRIVATE, expected, (void *)0, (void *)0, 0);
}

static void futex_wake_all(uint32_t *word) {
  syscall(ONNXC_SYS_FUTEX, word, ONNXC_FUTEX_WAKE_PRIVATE, 0x7fffffff, (void *)0, (void *)0, 0);
}

/* ---- CPU placement. A thread woken from a futex wait may be put on its waker's CPU (Linux
   does so when the CPU it last ran on does not look idle, e.g. a virtual CPU its host has
   descheduled), and a new thread starts on its creator's CPU; the scheduler can then leave both
   there for many runs, every parallel loop taking as long as on one thread or longer (measured
   on a 2-vCPU VM: a 384-channel 14x14 depthwise conv at 2 threads, 0.026 ms when spread, 0.045
   over a new context's first 100 runs before this). So a thread that finds itself on its waker's
   (or creator's) CPU moves to another one it may run on, then is allowed all of them again: one
   migration, no pinning. Only the paths that slept or started pay the system calls. ---- */

/// CPUs a mask has room for (1024, as glibc's cpu_set_t).
#define ONNXC_MASK_WORDS 16
#define ONNXC_WORD_BITS (8 * (int64_t)sizeof(unsigned long))

/// The CPU the calling thread runs on, or -1.
static int32_t current_cpu(void) {
  unsigned cpu = 0;
  return syscall(ONNXC_SYS_GETCPU, &cpu, (void *)0, (void *)0) == 0 ? (int32_t)cpu : -1;
}

static int mask_has(const unsigned long *mask, int64_t cpu) {
  return (int)((mask[cpu / ONNXC_WORD_BITS] >> (cpu % ONNXC_WORD_BITS)) & 1);
}

/// If the calling thread runs on CPU `from`, moves it to the k-th (modulo their count) of the
/// other CPUs it may run on, counting from `from` up, and then allows it all of them again.
static void move_off(int32_t from, int64_t k) {
  unsigned long allowed[ONNXC_MASK_WORDS] = {0}, one[ONNXC_MASK_WORDS] = {0};
  if (from < 0 || current_cpu() != from)
    return;
  const long bytes = syscall(ONNXC_SYS_GETAFFINITY, 0, sizeof allowed, allowed);
  const int64_t bits = bytes > 0 ? (int64_t)bytes * 8 : 0;
  int64_t others = 0;
  for (int64_t c = 0; c < bits; ++c)
    others += c != from && mask_has(allowed, c);
  if (from >= bits || others == 0)
    return;
  int64_t skip = k % others, target = -1;
  for (int64_t i = 1; i < bits && target < 0; ++i) {
    const int64_t c = (from + i) % bits;
    if (mask_has(allowed, c) && skip-- == 0)
      target = c;
  }
  one[target / ONNXC_WORD_BITS] = 1UL << (target % ONNXC_WORD_BITS);
  if (syscall(ONNXC_SYS_SETAFFINITY, 0, sizeof one, one) == 0)
    syscall(ONNXC_SYS_SETAFFINITY, 0, (size_t)bytes, allowed);
}

/// Wakes the threads waiting on *word after the caller changed it, if any thread sleeps, and
/// records the waker's CPU in *waker_cpu for them (move_off).
static void wake_sleepers(onnxc_pool *p, uint32_t *word, int32_t *waker_cpu) {
  if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) != 0) {
    __atomic_store_n(waker_cpu, current_cpu(), __ATOMIC_RELAXED);
    futex_wake_all(word);
  }
}

static void cpu_relax(void) {
#if defined(__x86_64__)
  __asm__ __volatile__("pause");
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/// Waits until *word != old (acquire) and returns the new value. After a futex wait, moves off
/// the waker's CPU (*waker_cpu) if woken there (to the k-th other CPU: move_off).
static uint32_t wait_while_equal(onnxc_pool *p, uint32_t *word, uint32_t old, int32_t *waker_cpu,
                                 int64_t k) {
  uint32_t v;
  for (int i = 0; i < ONNXC_SPIN_ITERATIONS; ++i) {
    v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    if (v != old)
      return v;
    if (i % ONNXC_YIELD_EVERY == ONNXC_YIELD_EVERY - 1)
      sched_yield(); /* a pool thread sharing this CPU gets to run */
    else
      cpu_relax();
  }
  __atomic_add_fetch(&p->sleepers, 1, __ATOMIC_SEQ_CST);
  while ((v = __atomic_load_n(word, __ATOMIC_SEQ_CST)) == old)
    futex_wait(word, old);
  __atomic_sub_fetch(&p->sleepers, 1, __ATOMIC_RELAXED);
  move_off(__atomic_load_n(waker_cpu, __ATOMIC_RELAXED), k);
  return v;
}

/// A worker's argument: its pool, its index (1 .. num_threads - 1; the caller is 0) and the CPU
/// of the thread that created it (-1 if unknown).
struct onnxc_worker {
  onnxc_pool *pool;
  int64_t index;
  int32_t creator_cpu;
};

/// Start of chunk i of the current job's even split: floor(i n / chunks), so that the first
/// chunk of each thread's share (run_chunks) starts at floor(t n / threads) and the threads get
/// as many items as one another to one. (The remainder had gone to the first chunks, all in
/// thread 0's share: a 1x1 conv at 56x56, 17 column blocks of which the last is a third, split
/// 9 to 7.33 over two threads.) The later shares get the extra items: a loop's last item is
/// often its short one.
static int64_t chunk_begin(const onnxc_pool *p, int64_t i) {
  const int64_t chunks = p->num_chunks, q = p->n / chunks, r = p->n % chunks;
  return i * q + i * r / chunks; /* i r < chunks^2: no overflow */
}

/// Runs chunk i of the current job.
static void run_range(onnxc_pool *p, int64_t i) {
  p->fn(p->fn_ctx, chunk_begin(p, i), chunk_begin(p, i + 1));
}

/// Runs chunk i of the current job if no thread has taken it yet.
static void run_unclaimed(onnxc_pool *p, int64_t i) {
  if (__atomic_exchange_n(&p->claimed[i], 1, __ATOMIC_RELAXED) == 0)
    run_range(p, i);
}

/// Runs chunks of the current job until none is left: first thread `self`'s share, the
/// contiguous chunks [ceil(self * chunks / threads), ceil((self + 1) * chunks / threads)) (the
/// caller, thread 0, already awake, gets the larger share when they differ), then any chunk
/// nobody has taken yet, from the last one down (a thread that is done early takes the end of
/// another's share while that one works forward from its start). Contiguous shares give a
/// thread the same part of every loop of the same shape, e.g. the same output rows of
/// successive layers, so it mostly reads what it wrote itself, and every step of a recurrence
/// the same part while its caches hold it. (Chunks handed out in order to whoever was free
/// mixed the two threads' parts: resnet18 at 2 threads on a 2-vCPU VM, in the periods when
/// the VM's two CPUs are slow to share data, 22 ms against 19.8; otherwise 14.6 against 14.3.)
static void run_chunks(onnxc_pool *p, int64_t self) {
  const int64_t chunks = p->num_chunks, threads = p->num_threads;
  const int64_t lo = (self * chunks + threads - 1) / threads;
  const int64_t hi = ((self + 1) * chunks + threads - 1) / threads;
  for (int64_t i = lo; i < hi; ++i)
    run_unclaimed(p, i);
  for (int64_t i = chunks - 1; i >= 0; --i)
    if (__atomic_load_n(&p->claimed[i], __ATOMIC_RELAXED) == 0)
      run_unclaimed(p, i);
}

static void *worker_main(void *arg) {
  struct onnxc_worker *w = (struct onnxc_worker *)arg;
  onnxc_pool *p = w->pool;
  uint32_t seen = 0; /* generation is 0 when workers are created */
  move_off(w->creator_cpu, w->index - 1);
  for (;;) {
    seen = wait_while_equal(p, &p->generation, seen, &p->generation_waker, w->index - 1);
    if (__atomic_load_n(&p->shutdown, __ATOMIC_ACQUIRE))
      return 0;
    run_chunks(p, w->index);
    if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_SEQ_CST) == 0)
      wake_sleepers(p, &p->pending, &p->pending_waker);
  }
}

void onnxc_pool_init(onnxc_pool *p) {
  memset(p, 0, sizeof *p);
  p->num_threads = 1;
  p->generation_waker = -1;
  p->pending_waker = -1;
}

/// Stops and joins the first `count` workers.
static void stop_workers(onnxc_pool *p, int32_t count) {
  __atomic_store_n(&p->shutdown, 1, __ATOMIC_RELEASE);
  __atomic_add_fetch(&p->generation, 1, __ATOMIC_RELEASE);
  futex_wake_all(&p->generation);
  for (int32_t i = 0; i < count; ++i)
    pthread_join(p->threads[i], 0);
}

static void free_pool_arrays(onnxc_pool *p) {
  free(p->threads);
  free(p->workers);
  free(p->claimed);
}

void onnxc_pool_destroy(onnxc_pool *p) {
  if (p->threads) {
    stop_workers(p, p->num_threads - 1);
    free_pool_arrays(p);
  }
  onnxc_pool_init(p);
}

int onnxc_pool_resize(onnxc_pool *p, int32_t n) {
  onnxc_pool_destroy(p);
  if (n <= 1)
    return 0;
  p->threads = (onnxc_pthread_t *)malloc(sizeof(onnxc_pthread_t) * (size_t)(n - 1));
  p->workers = (struct onnxc_worker *)malloc(sizeof(struct onnxc_worker) * (size_t)(n - 1));
  p->claimed = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)n * ONNXC_CHUNKS_PER_THREAD);
  if (!p->threads || !p->workers || !p->claimed) {
    free_pool_arrays(p);
    onnxc_pool_init(p);
    return -1;
  }
  p->num_threads = n; /* read by the workers' run_chunks */
  const int32_t cpu = current_cpu();
  for (int32_t i = 0; i < n - 1; ++i) {
    p->workers[i].pool = p;
    p->workers[i].index = i + 1;
    p->workers[i].creator_cpu = cpu;
    if (pthread_create(&p->threads[i], 0, worker_main, &p->workers[i]) != 0) {
      stop_workers(p, i);
      free_pool_arrays(p);
      onnxc_pool_init(p);
      return -1;
    }
  }
  return 0;
}

int32_t onnxc_rt_num_threads(onnxc_rt *rt) {
  if (!rt || __atomic_load_n(&rt->pool.busy, __ATOMIC_RELAXED))
    return 1;
  return (int32_t)rt->pool.num_threads;
}

void onnxc_parallel_for(onnxc_rt *rt, int64_t n, int64_t grain, onnxc_range_fn fn, void *ctx) {
  if (n <= 0)
    return;
  if (grain < 1)
    grain = 1;
  onnxc_pool *p = rt ? &rt->pool : 0;
  int64_t threads = p ? p->num_threads : 1;
  int64_t chunks = n / grain;
  if (chunks > threads * ONNXC_CHUNKS_PER_THREAD)
    chunks = threads * ONNXC_CHUNKS_PER_THREAD;
  if (threads <= 1 || chunks <= 1 || __atomic_load_n(&p->busy, __ATOMIC_RELAXED)) {
    fn(ctx, 0, n);
    return;
  }
  /* Publish the job; the release increment of `generation` makes it visible to workers. */
  __atomic_store_n(&p->busy, 1, __ATOMIC_RELAXED);
  p->fn = fn;
  p->fn_ctx = ctx;
  p->n = n;
  p->num_chunks = chunks;
  for (int64_t i = 0; i < chunks; ++i)
    __atomic_store_n(&p->claimed[i], 0, __ATOMIC_RELAXED);
  __atomic_store_n(&p->pending, (uint32_t)(threads - 1), __ATOMIC_RELAXED);
  __atomic_add_fetch(&p->generation, 1, __ATOMIC_SEQ_CST);
  wake_sleepers(p, &p->generation, &p->generation_waker);
  run_chunks(p, 0);
  uint32_t left;
  while ((left = __atomic_load_n(&p->pending, __ATOMIC_ACQUIRE)) != 0)
    wait_while_equal(p, &p->pending, left, &p->pending_waker, threads - 1);
  __atomic_store_n(&p->busy, 0, __ATOMIC_RELAXED);
}

/// A parallel loop with a params argument, run on the pool through onnxc_parallel_for.
struct params_job {
  onnxc_params_range_fn fn;
  const int64_t *params;
  void *ctx;
};

static void run_params_job(void *c, int64_t begin, int64_t end) {
  struct params_job *j = (struct params_job *)c;
  j->fn(j->ctx, j->params, begin, end);
}

void onnxc_parallel_for_params(onnxc_rt *rt, int64_t n, int64_t grain, onnxc_params_range_fn fn,
                               const int64_t *params, void *ctx) {
  struct params_job job = {fn, params, ctx};
  onnxc_parallel_for(rt, n, grain, run_params_job, &job);
}
