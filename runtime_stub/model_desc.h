/* model_desc.h — internal contract between the runtime stub and the code onnxc generates.
 *
 * Generated code defines `onnxc__model` (with exactly this layout, natural C alignment) and
 * `onnxc__model_run`; the stub implements the public ABI (onnxc_runtime.h) on top of them and
 * provides the kernel services of templates/cpu/kernel_abi.h (onnxc_parallel_for, onnxc_rt_fail)
 * plus onnxc_rt_node_failed. None of these symbols is exported from a model library.
 */
#ifndef ONNXC_MODEL_DESC_H
#define ONNXC_MODEL_DESC_H

#include <stdint.h>

#include "templates/cpu/kernel_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/// One model input or output as generated code describes it.
typedef struct onnxc_tensor_desc {
  const char *name;    ///< ONNX name
  int32_t dtype;       ///< ONNXC_DTYPE_*
  int32_t rank;        ///< number of dims
  const int64_t *dims; ///< `rank` dims (-1: a run-time dim, see dim_symbols)
  uint64_t size_bytes; ///< bytes of the whole tensor with every symbol 1 (times the value of
                       ///< each symbolic dim: the size at the run's symbols)
  /// `rank` entries: the index in onnxc_model_desc::symbols of the symbol a dim is, or -1 for a
  /// static dim; NULL when every dim is static.
  const int32_t *dim_symbols;
} onnxc_tensor_desc;

/// Most symbols a model may have.
#define ONNXC_MAX_SYMBOLS 8

/// A run-time dimension (dim_param) of the model's inputs and outputs.
typedef struct onnxc_symbol_desc {
  const char *name; ///< as the model names it ("batch")
  int64_t min, max; ///< the values onnxc_run accepts (--dim NAME=MIN..MAX)
  /// 1: a run-time count (NonZero's, NonMaxSuppression's...) that a kernel sets during the run
  /// (onnxc_rt_set_count), not an input dim; min..max are its bounds.
  int64_t count;
} onnxc_symbol_desc;

/// How a model with symbols runs.
enum {
  /// symbols[0] is a batch: the code was generated for one sample, and onnxc_run runs it once
  /// per sample on sample-sized slices of the tensors whose dim 0 is the batch (the others
  /// are the same for every sample); with tiles, whole tiles of tile_batch samples first.
  ONNXC_EXEC_PER_SAMPLE = 1
};

/// Static description of one kernel call, embedded only by `onnxc compile --profile`.
typedef struct onnxc_profile_node_desc {
  const char *name;          ///< ONNX node name ("" if the node has none)
  const char *op_type;       ///< ONNX op type ("Copy" for a copy into a graph output)
  const char *input_shapes;  ///< e.g. "1x1x28x28, 8x1x5x5"
  const char *output_shapes; ///< e.g. "1x8x28x28"
  uint64_t flops;            ///< estimated floating-point operations of one call
} onnxc_profile_node_desc;

/// One GPU code image of a CUDA-target library (codegen/cuda): a cubin for one architecture, or
/// PTX that the driver compiles for newer GPUs.
typedef struct onnxc_device_image {
  int32_t sm;  ///< compute capability major * 10 + minor (80: sm_80)
  int32_t ptx; ///< 1: PTX text (NUL-terminated), 0: a cubin
  const void *data;
  uint64_t size; ///< bytes of data
} onnxc_device_image;

/// The device side of a CUDA-target library (runtime_stub/cuda.c): onnxc__model_run then runs
/// with device addresses (the device arena, the device copy of the weights, device staging
/// buffers for the inputs and outputs) and its kernel calls are onnxc_k_cuda_launch calls that
/// launch `kernels` by index; the run is captured once as a CUDA graph and replayed (a run with
/// control flow runs eagerly: control_flow).
typedef struct onnxc_device_desc {
  uint32_t num_images;
  uint32_t num_kernels;
  const onnxc_device_image *images;
  const char *const *kernels;   ///< extern "C" names of the __global__ functions
  const unsigned char *weights; ///< the host copy of the weight blob (weights_size bytes)
  /// A `--target cpu,cuda` library: its CPU code (onnxc__model_run's arguments, host
  /// addresses), which runs when no usable GPU is found; NULL for a CUDA-only library.
  int32_t (*run_cpu)(onnxc_rt *rt, unsigned char *arena, const unsigned char *weights,
                     const void *const *inputs, void *const *outputs);
  /// 1: some calls run a CPU kernel on the host (onnxc_cuda_host): the context keeps a pinned
  /// host mirror of its device memory for them.
  uint32_t host_calls;
  /// 1: the run branches or loops (If / Loop / Scan) on values the GPU computes, read back with
  /// onnxc_rt_device_load: it runs eagerly, its kernels launched as it goes, not as a graph.
  uint32_t control_flow;
} onnxc_device_desc;

/// The whole model as generated code describes it.
typedef struct onnxc_model_desc {
  uint32_t abi_version; ///< ONNXC_ABI_VERSION the code was generated for
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t weights_external;        ///< 1: weights come from a file/buffer (weights_format.h)
  uint64_t arena_size;              ///< bytes of working memory
  uint64_t arena_alignment;         ///< 64
  const char *model_name;           ///< C identifier
  const char *signature_json;       ///< what onnxc_signature_json() returns
  const onnxc_tensor_desc *inputs;  ///< num_inputs entries
  const onnxc_tensor_desc *outputs; ///< num_outputs entries
  uint64_t weights_size;            ///< bytes of the weight blob (embedded or external)
  uint64_t weights_checksum;        ///< onnxc_weights_checksum of the blob (external only)
  uint32_t num_profile_nodes;       ///< kernel calls described by profile_nodes (0 if none)
  uint32_t num_symbols;             ///< run-time dims (0: every dim is static)
  /// Profile builds only: one entry per kernel call, in run order; NULL otherwise.
  const onnxc_profile_node_desc *profile_nodes;
  const onnxc_symbol_desc *symbols; ///< num_symbols entries
  uint32_t exec_mode;               ///< 0 (no symbols) or ONNXC_EXEC_PER_SAMPLE
  /// ONNXC_EXEC_PER_SAMPLE: samples per tile that run_tile runs at once (0: no tiles).
  uint32_t tile_batch;
  /// The code generated for tile_batch samples (same arguments as onnxc__model_run); NULL if
  /// there are no tiles. arena_size covers it too.
  int32_t (*run_tile)(onnxc_rt *rt, unsigned char *arena, const unsigned char *weights,
                      const void *const *inputs, void *const *outputs);
  /// ONNXC_EXEC_PER_SAMPLE: 0, or the most samples onnxc__model_run takes at once: its code
  /// has the batch as its run-time extent (symbol 0 is the count), and onnxc_run runs the batch
  /// in chunks of up to this many samples (no tiles then).
  uint32_t chunk_batch;
  /// A CUDA-target library: its device code (NULL: a CPU library).
  const onnxc_device_desc *device;
} onnxc_model_desc;

/// Defined by generated code.
extern const onnxc_model_desc onnxc__model __attribute__((visibility("hidden")));

/// Defined by generated code: runs all kernels in order on `arena` and the caller's buffers
/// (already validated). `weights` is the context's weight blob (64-byte aligned) for a model with
/// external weights; code with embedded weights ignores it (NULL). Returns 0, or a status after
/// recording an error (onnxc_rt_fail or onnxc_rt_node_failed).
int32_t onnxc__model_run(onnxc_rt *rt, unsigned char *arena, const unsigned char *weights,
                         const void *const *inputs, void *const *outputs)
    __attribute__((visibility("hidden")));

/// Called by generated code when a kernel returned `status` != 0: prefixes the recorded message
/// with "<node_desc>: " (e.g. "node 'conv1' (Conv, #3): ") and returns `status`.
int32_t onnxc_rt_node_failed(onnxc_rt *rt, int32_t status, const char *node_desc)
    __attribute__((visibility("hidden")));

/// The value of symbol `index` (onnxc_model_desc::symbols) in the current run, as onnxc_run
/// bound it from the inputs' shapes (a per-sample batch: 1).
int64_t onnxc_rt_symbol_value(onnxc_rt *rt, int32_t index) __attribute__((visibility("hidden")));

/// A kernel parameter that depends on a run-time extent s, given as `n` pieces of 4 int64 each
/// (start, value, d1, d2) in increasing start, the first at or below s: with the last piece
/// whose start <= s and t = s - start, value + d1*t + d2*t*(t-1)/2 in wrapping arithmetic.
int64_t onnxc_rt_extent_word(const int64_t *pieces, int64_t n, int64_t s)
    __attribute__((visibility("hidden")));

/// Profile builds only, called by generated code at the start of a run: reads the monotonic
/// clock, remembers it as the run's start and returns it (ns).
uint64_t onnxc_rt_profile_begin(onnxc_rt *rt) __attribute__((visibility("hidden")));

/// Profile builds only, called by generated code after kernel call `node` (whatever its status):
/// reads the clock, records the call as having run from `start` until now and returns now (ns),
/// the next call's start.
uint64_t onnxc_rt_profile_node(onnxc_rt *rt, int32_t node, uint64_t start)
    __attribute__((visibility("hidden")));

#ifdef __cplusplus
}
#endif

#endif /* ONNXC_MODEL_DESC_H */
