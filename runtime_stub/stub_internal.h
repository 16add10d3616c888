/* stub_internal.h — private declarations shared by the runtime stub's sources.
 *
 * The stub is freestanding: it is compiled to bitcode for several targets without their system
 * headers, so the few libc functions it needs are declared here by hand (glibc >= 2.34 has the
 * pthread functions in libc.so.6). Only onnxc_runtime.h functions are exported from a model.
 */
#ifndef ONNXC_STUB_INTERNAL_H
#define ONNXC_STUB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime_stub/model_desc.h"
#include "runtime_stub/onnxc_runtime.h"

#define ONNXC_API __attribute__((visibility("default")))
#define ONNXC_HIDDEN __attribute__((visibility("hidden")))

/* ---- libc, declared by hand (identical on x86_64 and aarch64 glibc) ---- */
void *malloc(size_t n);
void free(void *p);
int posix_memalign(void **out, size_t alignment, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
typedef unsigned long onnxc_pthread_t;
int pthread_create(onnxc_pthread_t *thread, const void *attr, void *(*fn)(void *), void *arg);
int pthread_join(onnxc_pthread_t thread, void **ret);
typedef unsigned int onnxc_pthread_key_t;
typedef int onnxc_pthread_once_t;
int pthread_once(onnxc_pthread_once_t *once, void (*init)(void));
int pthread_key_create(onnxc_pthread_key_t *key, void (*destructor)(void *));
int pthread_setspecific(onnxc_pthread_key_t key, const void *value);
void *pthread_getspecific(onnxc_pthread_key_t key);
long syscall(long number, ...);
/// struct timespec of glibc on the supported targets (time_t and the nanoseconds are `long`).
struct onnxc_timespec {
  long tv_sec;
  long tv_nsec;
};
int clock_gettime(int clock_id, struct onnxc_timespec *ts);
#define ONNXC_CLOCK_MONOTONIC 1
int open(const char *path, int flags, ...);
int close(int fd);
long lseek(int fd, long offset, int whence);
void *mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);
int munmap(void *addr, size_t length);
int madvise(void *addr, size_t length, int advice);
#define ONNXC_PROT_READ 1
#define ONNXC_PROT_WRITE 2
#define ONNXC_MAP_SHARED 1
#define ONNXC_MAP_PRIVATE 2
#define ONNXC_MAP_ANONYMOUS 0x20
#define ONNXC_MAP_FAILED ((void *)-1)
#define ONNXC_MADV_HUGEPAGE 14
int sched_yield(void);

/// Size of a context's error message buffer, terminating NUL included.
#define ONNXC_ERROR_CAPACITY 512

/// Most shapes one run records for onnxc_rt_copy_shape (onnxc_rt::shapes); the compiler
/// refuses a model with more values shaped at run time when one of them is copied
/// (kMaxRunTimeShapes in compiler/passes/infer_shapes.cpp).
#define ONNXC_MAX_RUN_TIME_SHAPES 64

/// A context's thread pool (thread_pool.c). All fields shared with workers are accessed with
/// __atomic builtins; the job fields are published by the release increment of `generation`.
typedef struct onnxc_pool {
  int32_t num_threads;          ///< workers + the caller
  onnxc_pthread_t *threads;     ///< num_threads - 1 workers
  struct onnxc_worker *workers; ///< their arguments (pool, index)
  uint32_t *claimed;        ///< per chunk of the current job: 1 once a thread took it (affinity)
  uint32_t generation;      ///< futex word: bumped to post a job (or shut down)
  uint32_t pending;         ///< futex word: workers that have not finished the current job
  uint32_t shutdown;        ///< set before the last generation bump on destroy
  uint32_t busy;            ///< 1 while a parallel_for runs (nested calls run serially)
  uint32_t sleepers;        ///< threads in (or about to enter) a futex wait on either word
  int32_t generation_waker; ///< CPU of the thread that last woke sleepers on generation, or -1
  int32_t pending_waker;    ///< the same for pending
  /* the current job */
  onnxc_range_fn fn;
  void *fn_ctx;
  int64_t n;
  int64_t num_chunks;
} onnxc_pool;

/// Timings of one kernel call in a profile build (see onnxc_profile_node_info).
typedef struct onnxc_profile_slot {
  uint64_t start_ns;    ///< last run: start, relative to the start of that run
  uint64_t duration_ns; ///< last run
  uint64_t total_ns;    ///< sum over the runs since creation / onnxc_profile_reset
  uint64_t count;       ///< runs summed in total_ns
} onnxc_profile_slot;

/// What kernels see as `onnxc_rt`: the run-time services of one context.
struct onnxc_rt {
  onnxc_pool pool;
  onnxc_profile_slot *profile;      ///< num_profile_nodes slots (profile builds), else NULL
  uint64_t profile_run_start;       ///< monotonic ns at the start of the current run
  uint32_t error_claimed;           ///< 1 once a failure recorded its message in this run
  char error[ONNXC_ERROR_CAPACITY]; ///< NUL-terminated message ("" if none)
  void *dyn_blocks;                 ///< the run's dynamic memory blocks (dyn_alloc.c)
  uint64_t dyn_used;                ///< bytes handed out by onnxc_rt_dyn_alloc in this run
  uint64_t dyn_limit;               ///< cap on dyn_used (onnxc_set_dynamic_limit)
  /// The symbols' values in the current run (onnxc_rt_symbol_value); a per-sample batch is 1.
  int64_t symbols[ONNXC_MAX_SYMBOLS];
  /// Shapes reported in the current run (onnxc_rt_set_shape), by buffer, for
  /// onnxc_rt_copy_shape and the values whose data lives in run-scoped memory: the newest
  /// ONNXC_MAX_RUN_TIME_SHAPES (the compiler refuses models with more values shaped at run
  /// time when one is copied or read).
  uint32_t num_shapes;
  struct onnxc_rt_shape {
    const void *tensor;
    /// Where the value's elements are (onnxc_rt_value_data): run-scoped memory that
    /// onnxc_rt_output_buffer or onnxc_rt_alloc_like gave it, NULL for `tensor` itself.
    void *data;
    /// 1 after onnxc_rt_mark_dynamic: onnxc_rt_output_buffer gives it run-scoped memory.
    int64_t dynamic;
    uint64_t capacity; ///< bytes at `data` (onnxc_rt_grow_buffer), 0 before it grows
    int64_t rank;      ///< -1 until a shape is recorded
    int64_t dims[ONNXC_MAX_RANK];
  } shapes[ONNXC_MAX_RUN_TIME_SHAPES];
};

/// A context: the run-time services plus the memory the model works in.
struct onnxc_context {
  struct onnxc_rt rt; ///< first member: kernels get &ctx->rt
  unsigned char *arena;
  int owns_arena;          ///< 1 if onnxc_create allocated `arena`
  /// The mapping holding an arena onnxc_create took from mmap (huge pages), else NULL: `arena`
  /// came from posix_memalign.
  void *arena_map;
  uint64_t arena_map_size;
  const void **input_ptrs; ///< num_inputs slots (allocated with the context)
  void **output_ptrs;      ///< num_outputs slots
  /// Per output: a library-owned buffer for the largest result of an output with a run-time
  /// count (onnxc_run copies the result into the caller's buffer), else NULL; in `held`.
  void **held_outputs;
  unsigned char *held; ///< one allocation for every held output (NULL if none)
  /// Per output, ONNXC_MAX_RANK + 1 words: the rank (-1 until set) and dims of a result whose
  /// shape the kernel reported (onnxc_rt_set_shape; outputs with dim_symbols -2).
  int64_t *held_shapes;
  /// Per output: run-scoped memory holding its result instead of `held_outputs[i]`
  /// (onnxc_rt_output_buffer), NULL if none.
  void **held_data;
  int held_valid;               ///< 1 once a run wrote the held outputs (onnxc_output_result)
  const unsigned char *weights; ///< the weight blob of a model with external weights, else NULL
  void *weights_map;            ///< what onnxc_create_with_weights mapped (munmap on destroy)
  uint64_t weights_map_size;
  /// A CUDA-target library (onnxc_model_desc::device): its device state (cuda.c), NULL when it
  /// runs on the CPU; on_cpu is 1 when a `--target cpu,cuda` library found no usable GPU.
  void *device;
  int on_cpu;
};

/* ---- messages (messages.c): bounded string building without libc ---- */

/// A bounded, always NUL-terminated string being built in a fixed buffer.
typedef struct onnxc_msg {
  char *buf;
  size_t cap;
  size_t len;
} onnxc_msg;

ONNXC_HIDDEN onnxc_msg onnxc_msg_begin(char *buf, size_t cap);
ONNXC_HIDDEN void onnxc_msg_str(onnxc_msg *m, const char *s);
ONNXC_HIDDEN void onnxc_msg_i64(onnxc_msg *m, int64_t v);
ONNXC_HIDDEN void onnxc_msg_u64(onnxc_msg *m, uint64_t v);
/// Appends "1x3x224x224" ("scalar" for rank 0).
ONNXC_HIDDEN void onnxc_msg_dims(onnxc_msg *m, const int64_t *dims, int32_t rank);
/// ONNX spelling of a dtype number ("float", "int64", ...; "unknown dtype" if unknown).
ONNXC_HIDDEN const char *onnxc_dtype_name(int32_t dtype);

/* ---- errors (errors.c) ---- */

/// Clears the context's error before a call.
ONNXC_HIDDEN void onnxc_rt_clear_error(onnxc_rt *rt);
/// Replaces the context's error with `msg` (unconditionally; use on the caller's thread) and
/// returns status.
ONNXC_HIDDEN onnxc_status onnxc_rt_set_error(onnxc_rt *rt, onnxc_status status, const char *msg);
/// Records the outcome of onnxc_create* for onnxc_last_error(NULL) on this thread (msg NULL: ok).
ONNXC_HIDDEN onnxc_status onnxc_set_create_error(onnxc_status status, const char *msg);
/// The message recorded by onnxc_set_create_error on this thread ("" if none).
ONNXC_HIDDEN const char *onnxc_create_error(void);

/* ---- contexts (runtime.c) ---- */

/// Creates a context with an arena it allocates (onnxc_create without the weights check); records
/// the outcome with onnxc_set_create_error.
ONNXC_HIDDEN onnxc_status onnxc_create_owned(onnxc_context **out);
/// dim_symbols entry of a dim the kernel reports (Value::run_time_shape_from in the compiler).
#define ONNXC_DIM_SET_BY_RUN (-2)
/// True if the output's result goes to a library-owned buffer first (onnxc_context::held):
/// a dim is a run-time count (onnxc_symbol_desc::count) or set by the run.
ONNXC_HIDDEN int onnxc_is_held_output(const onnxc_tensor_desc *d);
/// Bytes of d with every symbolic dim at its symbol's largest value (size_bytes, the largest
/// result, for dims set by the run).
ONNXC_HIDDEN uint64_t onnxc_max_bytes(const onnxc_tensor_desc *d);

/* ---- CUDA-target libraries (cuda.c) ---- */

/// Most tensors a CUDA kernel call takes.
#define ONNXC_CUDA_MAX_ARGS 64
/// Loads the driver and sets up the context's device state (or its CPU fallback); records the
/// failure with onnxc_set_create_error.
ONNXC_HIDDEN onnxc_status onnxc_cuda_create(onnxc_context *ctx);
/// Frees the device state (nothing if none).
ONNXC_HIDDEN void onnxc_cuda_destroy(onnxc_context *ctx);
/// Runs the model on the context's input_ptrs / output_ptrs (host buffers, validated).
ONNXC_HIDDEN int32_t onnxc_cuda_run(onnxc_context *ctx);
/// A CUDA-target library's If / Loop / Scan (generated code, codegen/cpu/control_flow.cpp):
/// reads `bytes` (1 or 8) at a device address back to the host, zero-extended, after the work
/// before it on the context's stream; writes an int64 (a loop's iteration) there.
ONNXC_HIDDEN int64_t onnxc_rt_device_load(onnxc_rt *rt, const void *p, int32_t bytes);
ONNXC_HIDDEN void onnxc_rt_device_store(onnxc_rt *rt, void *p, int64_t v);

/* ---- dynamic memory (dyn_alloc.c) ---- */

/// Default of onnxc_set_dynamic_limit: 256 MiB per run.
#define ONNXC_DEFAULT_DYNAMIC_LIMIT ((uint64_t)256 << 20)
/// Initialises a context's empty dynamic memory with the default limit.
ONNXC_HIDDEN void onnxc_dyn_init(onnxc_rt *rt);
/// Frees every block onnxc_rt_dyn_alloc handed out (start of a run, destroy).
ONNXC_HIDDEN void onnxc_dyn_reset(onnxc_rt *rt);

/* ---- thread pool (thread_pool.c) ---- */

/// Initialises an empty pool (one thread: the caller).
ONNXC_HIDDEN void onnxc_pool_init(onnxc_pool *pool);
/// Stops and joins the workers; the pool is empty afterwards.
ONNXC_HIDDEN void onnxc_pool_destroy(onnxc_pool *pool);
/// Replaces the pool by one with n threads (n-1 workers). Returns 0, or -1 if a thread could not
/// be created or memory ran out (the pool is then empty).
ONNXC_HIDDEN int onnxc_pool_resize(onnxc_pool *pool, int32_t n);

#endif /* ONNXC_STUB_INTERNAL_H */
