/* The contract between kernel templates, generated code and the runtime stub.
 *
 * Kernels are freestanding C++ (no libc/libstdc++ headers; math through __builtin_*), compiled
 * twice: to LLVM bitcode per target (linked into every model and specialised with its constant
 * params) and natively into onnxc (the reference evaluator used by constant folding).
 *
 * Every kernel has this signature and an extern "C" name starting with onnxc_k_:
 *   int32_t onnxc_k_NAME(onnxc_rt *rt, void *const *tensors, const int64_t *params);
 * It returns 0, or the status returned by onnxc_rt_fail() after recording a message.
 */
#ifndef ONNXC_KERNEL_ABI_H
#define ONNXC_KERNEL_ABI_H

#include <stddef.h> /* freestanding headers only */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct onnxc_rt onnxc_rt;
/// Body of a parallel loop: processes iterations [begin, end).
typedef void (*onnxc_range_fn)(void *ctx, int64_t begin, int64_t end);

/// Runs fn over [0, n) split into chunks of at least `grain` iterations on the context's thread
/// pool; returns when all chunks are done. With one thread (or n small) it calls fn(ctx, 0, n).
/// Thread t first runs its own contiguous share of the chunks, then helps with any left, so a
/// loop of the same shape run again (the next layer over the same rows, the next step of a
/// recurrence) gives every thread the same part while its caches still hold it.
void onnxc_parallel_for(onnxc_rt *rt, int64_t n, int64_t grain, onnxc_range_fn fn, void *ctx);
/// Body of a node-specialised parallel loop: `params` is the calling node's parameter block.
typedef void (*onnxc_params_range_fn)(void *ctx, const int64_t *params, int64_t begin, int64_t end);
/// onnxc_parallel_for for a body that reads the node's constant params through its argument.
/// The CPU backend gives every call site whose params are a constant its own copy of `fn` with
/// those params substituted (codegen/cpu/specialise_parallel.cpp), so the pool and the serial
/// case (one thread, or n small: fn(ctx, params, 0, n) on the caller's thread) run code
/// specialised for the node.
void onnxc_parallel_for_params(onnxc_rt *rt, int64_t n, int64_t grain, onnxc_params_range_fn fn,
                               const int64_t *params, void *ctx);
/// Threads a parallel_for may use now: 1 for a serial context and inside a parallel loop.
int32_t onnxc_rt_num_threads(onnxc_rt *rt);
/// Records `msg` as the context's error and returns `status` (an ONNXC_STATUS_* value).
int32_t onnxc_rt_fail(onnxc_rt *rt, int32_t status, const char *msg);
/// Run-scoped dynamic memory (runtime_stub/dyn_alloc.c): `bytes` 16-byte-aligned bytes that stay
/// valid until the next run on the context or its destruction (string tensors point into it).
/// Returns NULL after recording a message (status ONNXC_STATUS_OUT_OF_MEMORY) when the run's
/// total would pass the context's limit or malloc fails. Call it from the kernel's own thread,
/// not inside a parallel_for body.
void *onnxc_rt_dyn_alloc(onnxc_rt *rt, uint64_t bytes);

/// A run-time count (NonZero's, NonMaxSuppression's...): records `count` as the value of the
/// run's symbol `symbol` (onnxc_model_desc::symbols), which the code after the kernel reads.
void onnxc_rt_set_count(onnxc_rt *rt, int64_t symbol, int64_t count);

/// An output whose shape the kernel decides (Value::run_time_shape_from): records the shape of
/// the result written at `tensor` (a graph output's buffer, which onnxc_run reports, or an
/// intermediate's, which onnxc_rt_copy_shape reads).
void onnxc_rt_set_shape(onnxc_rt *rt, const void *tensor, int32_t rank, const int64_t *dims);

/// Gives `dst` the shape recorded for `src` in this run (onnxc_rt_set_shape): an element-wise
/// op's output has the shape of its input shaped at run time. Returns 0, or a status after
/// recording a message when no shape was recorded for `src`.
int32_t onnxc_rt_copy_shape(onnxc_rt *rt, const void *src, const void *dst);

/// The element count of the shape recorded for `tensor` in this run, -1 if none.
int64_t onnxc_rt_shape_numel(onnxc_rt *rt, const void *tensor);
/// Dim `k` of the shape recorded for `tensor` in this run, -1 if none (or no such dim).
int64_t onnxc_rt_shape_dim(onnxc_rt *rt, const void *tensor, int64_t k);

/// For an output shaped at run time with no bound (Range, ConstantOfShape...): where to write a
/// result of `bytes` for the graph output whose planned buffer is `tensor`: `tensor` itself if
/// it is large enough, else run-scoped memory (onnxc_rt_dyn_alloc, under the context's dynamic
/// limit) that onnxc_run copies from. NULL after recording a message when the limit is passed.
void *onnxc_rt_output_buffer(onnxc_rt *rt, void *tensor, uint64_t bytes);

/// Values whose data lives in run-scoped memory (a shape decided at run time with no bound,
/// used inside the model: Value::run_time_data). The generated code, not kernels, calls these:
/// - before the kernel that produces `tensor` (its arena slot, the value's key in this run):
///   onnxc_rt_output_buffer then gives it run-scoped memory and records where;
void onnxc_rt_mark_dynamic(onnxc_rt *rt, const void *tensor);
/// - after that kernel: the slot's later values (the arena reuses it) are written in place;
void onnxc_rt_end_dynamic(onnxc_rt *rt, const void *tensor);
/// - for a kernel that reads it: where its elements are (`tensor` itself if none recorded);
void *onnxc_rt_value_data(onnxc_rt *rt, void *tensor);
/// - for an element-wise op's output `dst` that follows `src` element for element: run-scoped
///   memory (or the graph output's buffer) for src's element count times `elem_bytes`, with
///   src's shape recorded for dst. NULL after recording a message.
void *onnxc_rt_alloc_like(onnxc_rt *rt, void *dst, const void *src, uint64_t elem_bytes);
/// A buffer that grows as a kernel appends to it (a Loop's scan output shaped by the run):
/// where the value named by `tensor` (its arena slot or graph output buffer) holds at least
/// `needed` bytes, its first `used` bytes kept (run-scoped memory, grown geometrically, or
/// the graph output's own buffer while it is large enough). NULL after recording a message.
void *onnxc_rt_grow_buffer(onnxc_rt *rt, void *tensor, uint64_t used, uint64_t needed);
/// Forgets what this run recorded for `tensor` (data, capacity, shape): before a loop whose
/// scan output grows there, whose slot an earlier value may have used.
void onnxc_rt_forget(onnxc_rt *rt, const void *tensor);

/* Status codes (same numbers as onnxc_status in runtime_stub/onnxc_runtime.h). */
#define ONNXC_STATUS_OK 0
#define ONNXC_STATUS_INVALID_ARGUMENT 1
#define ONNXC_STATUS_OUT_OF_MEMORY 5
#define ONNXC_STATUS_INDEX_OUT_OF_RANGE 6
#define ONNXC_STATUS_RUNTIME_ERROR 7

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* C++ helpers for kernel templates. */
namespace onnxc_k {
using i64 = int64_t;

/// Reads a double parameter stored with onnxc::param_f64().
inline double param_f64(const i64 *p, int i) {
  double d;
  __builtin_memcpy(&d, &p[i], sizeof d);
  return d;
}

/// parallel_for: `pool` (onnxc_parallel_for) runs f on the thread pool; the serial case calls f
/// directly, so that LLVM inlines it into the kernel and specialises it for the node's constant
/// parameters.
template <typename F>
inline void parallel_run(onnxc_rt *rt, i64 n, i64 grain, F &f,
                         void (*pool)(onnxc_rt *, int64_t, int64_t, onnxc_range_fn, void *)) {
  if (n <= grain || onnxc_rt_num_threads(rt) <= 1) {
    if (n > 0) {
#if defined(__clang__)
      [[clang::always_inline]] f(i64(0), n);
#else
      f(i64(0), n);
#endif
    }
    return;
  }
  pool(
      rt, n, grain, [](void *c, i64 b, i64 e) { (*static_cast<F *>(c))(b, e); }, &f);
}

/// parallel_for over [0, n) with a C++ callable f(begin, end); chunks of at least `grain`.
template <typename F> inline void parallel_for(onnxc_rt *rt, i64 n, i64 grain, F &f) {
  parallel_run(rt, n, grain, f, onnxc_parallel_for);
}

/// parallel_for whose body f(params, begin, end) is specialised for the node (see
/// onnxc_parallel_for_params). Read every shape and parameter inside f from its `params`
/// argument, not from locals captured by reference: only those fold. Always inlined, so that the
/// params are the node's constant at the call (else nothing is specialised). The serial case
/// (one thread, or n small) runs the same node copy of f, called by the runtime: inlining f here
/// as well gave every such node a second, equally large copy of its body (mnist-8's first Conv
/// 5.5 KB twice), compiled and shipped for no speed-up.
template <typename F>
__attribute__((always_inline)) inline void parallel_for(onnxc_rt *rt, const i64 *params, i64 n,
                                                        i64 grain, F &f) {
  /* The trampoline's operator() always inlined too: its static invoker (the function pointer
     the runtime calls, which SpecialiseParallelPass clones per node with the constant params)
     must hold the body itself, not a call of a generic copy (a large GEMM body was left out of
     line, unspecialised, carrying every micro-kernel variant). */
  onnxc_parallel_for_params(
      rt, n, grain, [](void *c, const i64 *pp, i64 b, i64 e) __attribute__((always_inline)) {
#if defined(__clang__)
        [[clang::always_inline]] (*static_cast<F *>(c))(pp, b, e);
#else
        (*static_cast<F *>(c))(pp, b, e);
#endif
      },
      params, &f);
}
} // namespace onnxc_k
#endif

#endif
