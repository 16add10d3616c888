/* onnxc_runtime.h — the generic C ABI every model library compiled by onnxc exports.
 *
 * A model compiled by onnxc is one self-contained shared library (depending on libc/libm only)
 * that exports exactly the functions below. Any program can dlopen() any model and drive it
 * through this ABI; the typed header NAME.h that onnxc writes next to the library declares
 * model-specific aliases (NAME_create, NAME_run, ...) of the same functions plus constants.
 *
 * Rules (see docs/runtime-api.md):
 * - A context holds the model's working memory (the arena), its thread pool and its last error.
 *   One thread at a time may use a context; different contexts run concurrently.
 * - onnxc_run / onnxc_run_buffers never abort and validate their arguments; they allocate only
 *   for string tensors (run-scoped, bounded by onnxc_set_dynamic_limit).
 * - The caller owns every tensor buffer; outputs are written in place.
 *
 * C99; usable from C and C++.
 */
#ifndef ONNXC_RUNTIME_H
#define ONNXC_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The types block is guarded separately: NAME.h headers carry an identical copy, so a program
 * can include any number of them together with this header, in any order. */
#ifndef ONNXC_RUNTIME_TYPES_H
#define ONNXC_RUNTIME_TYPES_H

/// Version of this ABI; onnxc_abi_version() of a compatible library returns the same number.
#define ONNXC_ABI_VERSION 3
/// Largest rank an onnxc_tensor can describe.
#define ONNXC_MAX_RANK 8

/// Result of every fallible ABI function. onnxc_last_error() explains any value but ONNXC_OK.
typedef enum onnxc_status {
  ONNXC_OK = 0,                     ///< success
  ONNXC_ERROR_INVALID_ARGUMENT = 1, ///< NULL pointer, bad count, bad thread count, misaligned arena
  ONNXC_ERROR_SHAPE_MISMATCH = 2,   ///< an input's rank or shape differs from the model's
  ONNXC_ERROR_DTYPE_MISMATCH = 3,   ///< an input's or output's dtype differs from the model's
  ONNXC_ERROR_BUFFER_TOO_SMALL = 4, ///< a tensor's size_bytes, or a caller arena, is too small
  ONNXC_ERROR_OUT_OF_MEMORY = 5,    ///< allocation failed, or a run passed its dynamic limit
  ONNXC_ERROR_INDEX_OUT_OF_RANGE =
      6,                   ///< an index (info index, or a Gather index at run time) is out of range
  ONNXC_ERROR_RUNTIME = 7, ///< any other failure while running the model
  ONNXC_ERROR_BAD_WEIGHTS = 8, ///< weights missing, corrupt or not this model's
  ONNXC_ERROR_UNSUPPORTED = 9  ///< the library lacks the feature (e.g. not built with --profile)
} onnxc_status;

/* Element types: the numbers of ONNX TensorProto.DataType. */
#define ONNXC_DTYPE_UNDEFINED 0
#define ONNXC_DTYPE_FLOAT 1    ///< float
#define ONNXC_DTYPE_UINT8 2    ///< uint8_t
#define ONNXC_DTYPE_INT8 3     ///< int8_t
#define ONNXC_DTYPE_UINT16 4   ///< uint16_t
#define ONNXC_DTYPE_INT16 5    ///< int16_t
#define ONNXC_DTYPE_INT32 6    ///< int32_t
#define ONNXC_DTYPE_INT64 7    ///< int64_t
#define ONNXC_DTYPE_STRING 8   ///< const char * per element (NUL-terminated UTF-8)
#define ONNXC_DTYPE_BOOL 9     ///< uint8_t holding 0 or 1
#define ONNXC_DTYPE_FLOAT16 10 ///< IEEE half, as uint16_t bits
#define ONNXC_DTYPE_DOUBLE 11  ///< double
#define ONNXC_DTYPE_UINT32 12  ///< uint32_t
#define ONNXC_DTYPE_UINT64 13  ///< uint64_t
#define ONNXC_DTYPE_COMPLEX64 14
#define ONNXC_DTYPE_COMPLEX128 15
#define ONNXC_DTYPE_BFLOAT16 16 ///< bfloat16, as uint16_t bits

/// Opaque per-instance state: arena, thread pool, last error.
typedef struct onnxc_context onnxc_context;

/// A caller-owned tensor passed to onnxc_run. For inputs every field is read; for outputs `data`,
/// `size_bytes` and `dtype` are read and `rank`/`shape` are written on success.
typedef struct onnxc_tensor {
  void *data;                    ///< row-major elements (caller-owned)
  uint64_t size_bytes;           ///< capacity of `data` in bytes
  int32_t dtype;                 ///< ONNXC_DTYPE_*
  int32_t rank;                  ///< number of dims (0 = scalar)
  int64_t shape[ONNXC_MAX_RANK]; ///< dims [0, rank)
} onnxc_tensor;

/// Static description of one model input or output; all pointers are owned by the library and
/// live as long as it is loaded. A dim of -1 is a run-time dim: `dim_symbols` says which
/// symbol (onnxc_symbol) it is, onnxc_run takes it from the inputs' shapes and reports it in
/// the outputs' shapes.
typedef struct onnxc_tensor_info {
  const char *name;     ///< ONNX name
  int32_t dtype;        ///< ONNXC_DTYPE_*
  int32_t rank;         ///< number of dims (may exceed ONNXC_MAX_RANK: use run_buffers then)
  const int64_t *shape; ///< `rank` dims (-1: a run-time dim)
  /// Bytes of the whole tensor with every symbol 1: multiply by the value of each symbol in
  /// dim_symbols for its size at run time.
  uint64_t size_bytes;
  /// `rank` entries: the symbol index of each dim, -1 for a static dim; NULL if all are static.
  const int32_t *dim_symbols;
} onnxc_tensor_info;

/// A run-time dim of the model (an ONNX dim_param such as "batch"). Inputs give its value;
/// every input dim that is the symbol must have the same value, within [min, max].
typedef struct onnxc_symbol_info {
  const char *name; ///< owned by the library
  int64_t min;      ///< smallest value onnxc_run accepts (>= 1; a count: 0)
  int64_t max;      ///< largest value (onnxc compile --dim NAME=MIN..MAX; default 4096)
  /// 1: a run-time count (the number of boxes NonMaxSuppression keeps, of NonZero's hits...):
  /// the run computes it, no input gives it, and max bounds it. Outputs with a count dim are
  /// copied into the caller's buffer after the run (see onnxc_run). 0: an input dim.
  int32_t count;
} onnxc_symbol_info;

#endif /* ONNXC_RUNTIME_TYPES_H */

/// One kernel call of a library compiled with `onnxc compile --profile` and its timings on a
/// context. Strings are owned by the library. Times are CLOCK_MONOTONIC nanoseconds; the calls
/// of one run tile it (each starts when the previous one ended).
typedef struct onnxc_profile_node_info {
  const char *name;          ///< ONNX node name ("graph output 'y'" for a copy into an output)
  const char *op_type;       ///< ONNX op type ("Copy" for a copy into a graph output)
  const char *input_shapes;  ///< e.g. "1x1x28x28, 8x1x5x5" ("" if none)
  const char *output_shapes; ///< e.g. "1x8x28x28"
  uint64_t flops;            ///< compile-time estimate of floating-point operations per call
  uint64_t start_ns;         ///< last run: start relative to the start of that run
  uint64_t duration_ns;      ///< last run: wall time of the call
  uint64_t total_ns;         ///< sum over all runs since onnxc_create or onnxc_profile_reset
  uint64_t count;            ///< number of runs summed in total_ns
} onnxc_profile_node_info;

/// Where the context runs the model: "cuda" (a GPU) or "cpu"; "" for NULL. A library compiled
/// with --target cpu,cuda runs on the GPU when one is usable at onnxc_create, else on the CPU.
const char *onnxc_backend(const onnxc_context *ctx);

/// The ABI version the library implements (ONNXC_ABI_VERSION it was built with).
uint32_t onnxc_abi_version(void);
/// The model's name (a C identifier, the NAME of NAME.h).
const char *onnxc_model_name(void);
/// The model's signature as JSON: {"name":..,"abi_version":1,"arena_size":N,
/// "inputs":[{"name":..,"dtype":"float","shape":[1,1,28,28]}],"outputs":[...]}.
const char *onnxc_signature_json(void);
/// Bytes an arena passed to onnxc_create_with_arena must have (may be 0): enough for every
/// value of the symbols.
uint64_t onnxc_arena_size(void);
/// Bytes of arena a run needs with the symbols at `values` (onnxc_num_symbols() entries; NULL
/// if there are none); 0 if a value is outside its symbol's range.
uint64_t onnxc_arena_size_for(const int64_t *values);
/// Number of run-time dims (symbols) of the model; 0 if every dim is static.
int32_t onnxc_num_symbols(void);
/// Describes symbol `index` (0 <= index < onnxc_num_symbols()).
onnxc_status onnxc_symbol(int32_t index, onnxc_symbol_info *info);
/// Alignment in bytes such an arena must have (64).
uint64_t onnxc_arena_alignment(void);
/// Number of model inputs.
int32_t onnxc_num_inputs(void);
/// Number of model outputs.
int32_t onnxc_num_outputs(void);
/// Describes input `index`. INVALID_ARGUMENT if info is NULL, INDEX_OUT_OF_RANGE if index is bad.
onnxc_status onnxc_input_info(int32_t index, onnxc_tensor_info *info);
/// Describes output `index`. INVALID_ARGUMENT if info is NULL, INDEX_OUT_OF_RANGE if index is bad.
onnxc_status onnxc_output_info(int32_t index, onnxc_tensor_info *info);

/// Creates a context and allocates its arena (the only allocation a model makes besides
/// onnxc_set_num_threads). On failure *out is NULL and onnxc_last_error(NULL) explains why.
onnxc_status onnxc_create(onnxc_context **out);
/// Creates a context that uses the caller-owned `arena` (at least onnxc_arena_size() bytes,
/// aligned to onnxc_arena_alignment()); the arena must outlive the context and must not be
/// shared by contexts that run at the same time. `arena` may be NULL if onnxc_arena_size() is 0.
onnxc_status onnxc_create_with_arena(void *arena, uint64_t arena_bytes, onnxc_context **out);
/// Creates a context for a model compiled with --weights-file: maps the weights file `path`
/// (read-only, shared; the kernel's page cache shares it between contexts and processes) and
/// checks its magic, version, size, model name and checksum, then allocates the arena as
/// onnxc_create does. The mapping lives until onnxc_destroy. ONNXC_ERROR_BAD_WEIGHTS if the file
/// is missing, unreadable or not this model's weights; INVALID_ARGUMENT if the model embeds its
/// weights. On failure *out is NULL and onnxc_last_error(NULL) explains why.
onnxc_status onnxc_create_with_weights(const char *path, onnxc_context **out);
/// Like onnxc_create_with_weights, on a caller-owned copy of the whole weights file (`data`,
/// 64-byte aligned, `size` bytes: e.g. a flash partition mapped by firmware) that must outlive
/// the context; nothing is copied.
onnxc_status onnxc_create_with_weights_buffer(const void *data, uint64_t size, onnxc_context **out);
/// Destroys a context: joins its threads, frees what onnxc_create allocated. NULL is ignored.
void onnxc_destroy(onnxc_context *ctx);
/// Sets how many threads run the model: 1 (the default) runs on the caller's thread only; n > 1
/// starts n-1 pool threads here (never in run); the caller's thread takes part in each run.
onnxc_status onnxc_set_num_threads(onnxc_context *ctx, int32_t n);
/// Runs the model. Validates ctx and pointers, the counts, each input's dtype, rank, shape and
/// size_bytes (and that no element of a string input is NULL), and each output's dtype and
/// size_bytes; writes each output's rank and shape on success. Run-time dims take their values
/// from the inputs' shapes: every dim of one symbol must agree and lie in its range (else
/// ONNXC_ERROR_SHAPE_MISMATCH naming the input, the dim and the symbol), and the tensors'
/// size_bytes must cover those values. An output with a run-time count (a NonMaxSuppression's
/// boxes) gets its shape from the run, and size_bytes only has to cover that result (at most
/// onnxc_output_info's size_bytes times the count's max): when it does not, the run returns
/// ONNXC_ERROR_BUFFER_TOO_SMALL with the output's shape written and its result kept for
/// onnxc_output_result. Never aborts; after any failure the context is usable
/// again. Allocates only for models with string tensors (or other data-dependent results):
/// first frees what the previous run allocated, then allocates at most the dynamic limit
/// (onnxc_set_dynamic_limit). A string tensor is an array of `const char *` (NUL-terminated
/// UTF-8), one per element; the strings of a string output are owned by the context and valid
/// until the next run on it or onnxc_destroy.
onnxc_status onnxc_run(onnxc_context *ctx, const onnxc_tensor *inputs, int32_t num_inputs,
                       onnxc_tensor *outputs, int32_t num_outputs);
/// The result of output `i` in the library's own buffer after the last onnxc_run on ctx, for an
/// output with a run-time count (onnxc_symbol_info::count): data (owned by ctx, valid until the
/// next run or onnxc_destroy), size_bytes, dtype, rank and shape. After onnxc_run returned
/// ONNXC_ERROR_BUFFER_TOO_SMALL for such an output, this reads the result without a second run.
/// INVALID_ARGUMENT for any other output or before a run; INDEX_OUT_OF_RANGE for a bad i.
onnxc_status onnxc_output_result(const onnxc_context *ctx, int32_t i, onnxc_tensor *out);
/// Runs the model on raw buffers whose shapes and dtypes are exactly the declared ones
/// (onnxc_input_info / onnxc_output_info): inputs[i] and outputs[i] must each hold size_bytes.
/// A model with run-time dims (onnxc_num_symbols() > 0) refuses it (ONNXC_ERROR_INVALID_ARGUMENT):
/// use onnxc_run, whose tensors carry their shapes.
onnxc_status onnxc_run_buffers(onnxc_context *ctx, const void *const *inputs, void *const *outputs);
/// CUDA target: runs the model on buffers in the GPU's memory, enqueued on the caller's stream
/// (a CUstream / cudaStream_t of the device's primary context, as the CUDA runtime and PyTorch
/// use; NULL: the default stream). inputs[i] / outputs[i] are device addresses holding the
/// declared size_bytes (onnxc_input_info / onnxc_output_info). The inputs are copied device to
/// device into the library's buffers, the model's CUDA graph is replayed and the outputs are
/// copied device to device out, all on `stream`; the call returns without waiting (synchronise
/// the stream before reading the outputs), except for a model with host regions or If / Loop /
/// Scan, whose run it waits for (it reads values back from the GPU). The buffers must stay valid until the stream has run the call. Runs on one context
/// are ordered on the GPU (they share its buffers): a run, onnxc_run's too, waits for the
/// previous onnxc_run_device wherever it was enqueued, and onnxc_destroy waits for it. UNSUPPORTED
/// on a CPU library or a context that fell back to the CPU; INVALID_ARGUMENT for a NULL ctx or
/// buffer; RUNTIME for a CUDA failure.
onnxc_status onnxc_run_device(onnxc_context *ctx, void *stream, const void *const *inputs,
                              void *const *outputs);
/// Caps the bytes one run may allocate for data-dependent results (string outputs and
/// intermediates), default 256 MiB; a run that needs more fails with ONNXC_ERROR_OUT_OF_MEMORY
/// and a message naming the node. INVALID_ARGUMENT if ctx is NULL.
onnxc_status onnxc_set_dynamic_limit(onnxc_context *ctx, uint64_t bytes);
/// The message of the last failure on `ctx` ("" if its last call succeeded). With ctx NULL: the
/// message of the last failed onnxc_create / onnxc_create_with_arena on the calling thread.
/// The string lives until the next call on the same context (or thread, for NULL).
const char *onnxc_last_error(const onnxc_context *ctx);

/// Number of kernel calls a profile build times, or -1 if the library was compiled without
/// --profile (then it records nothing and costs nothing).
int32_t onnxc_profile_num_nodes(void);
/// Describes kernel call `index` (run order) and its timings on `ctx`. UNSUPPORTED without
/// --profile; INVALID_ARGUMENT if ctx or info is NULL; INDEX_OUT_OF_RANGE for a bad index.
/// Must not overlap a run on the same context.
onnxc_status onnxc_profile_node(const onnxc_context *ctx, int32_t index,
                                onnxc_profile_node_info *info);
/// Zeroes the timings of `ctx` (totals and counts, last run). UNSUPPORTED without --profile;
/// INVALID_ARGUMENT if ctx is NULL.
onnxc_status onnxc_profile_reset(onnxc_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ONNXC_RUNTIME_H */
