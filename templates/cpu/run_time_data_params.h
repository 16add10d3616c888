/* The contract between compiler/ops/run_time_data_ops.cpp and templates/cpu/run_time_data.cpp:
 * N-D ops (Transpose, Reshape, Squeeze, Unsqueeze, Concat, MatMul and broadcasting arithmetic)
 * of values whose shape values computed at run time decide with no bound
 * (Value::run_time_data: Range, ConstantOfShape, Pad... fed by run-time values). Such a value's
 * data lives in run-scoped memory; the kernel gets each input's data, its dims from the run's
 * shape table (KernelCall::shape_words) or, for a static input, from the compiler, computes the
 * output's shape, writes the output where onnxc_rt_output_buffer says and reports the shape with
 * onnxc_rt_set_shape. These values are small in practice (grids, index tables): the kernels are
 * plain loops. */
#ifndef ONNXC_RUN_TIME_DATA_PARAMS_H
#define ONNXC_RUN_TIME_DATA_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

enum RtDataOp : int64_t {
  kRtTranspose,
  kRtReshape,   ///< tensors {X, SHAPE (int64), Y}
  kRtSqueeze,   ///< axes[] flags the input dims to drop
  kRtUnsqueeze, ///< axes[] flags the output dims to insert
  kRtConcat,
  kRtMatMul,
  kRtAdd,
  kRtSub,
  kRtMul,
  kRtDiv,
  kRtGatherElements, ///< tensors {DATA, INDICES, Y}; axis; index_bytes
  kRtSplit,          ///< tensors {X, Y0, ..., Y(outputs-1)}; axis; sizes in axes[] or mode
};

/// Split's sizes: axes[] (given), equal parts (the dim must divide), or parts of
/// ceil(dim / outputs) with a smaller last one (opset 18's num_outputs).
enum RtSplitMode : int64_t { kRtSplitGiven, kRtSplitEqual, kRtSplitCeil };

/// Squeeze's axes[] flags: keep the dim, drop it (a 1), or keep it and check it is not 1 (a
/// Squeeze with no axes of a dim the compiler does not know).
enum RtSqueezeFlag : int64_t { kRtKeep = 0, kRtDrop = 1, kRtKeepNotOne = 2 };

/// Element types of the arithmetic ops (copies only need elem_bytes).
enum RtDataType : int64_t { kRtF32, kRtF64, kRtI32, kRtI64, kRtOther };

constexpr int64_t kRtDataMaxInputs = 8;

/// Tensors {inputs..., Y} (Reshape: {X, SHAPE, Y}).
struct RtDataParams {
  int64_t op;    ///< RtDataOp
  int64_t dtype; ///< RtDataType
  int64_t elem_bytes;
  int64_t inputs;   ///< data inputs (not SHAPE)
  int64_t out_rank; ///< the output's rank (Reshape: SHAPE's length)
  int64_t axis;     ///< Concat's, GatherElements', Split's axis (normalised); Reshape: allowzero
  int64_t axes[8];  ///< Transpose: perm; Squeeze: an RtSqueezeFlag per input dim; Unsqueeze: 1
                    ///< for each output dim inserted; Split: the sizes (kRtSplitGiven)
  int64_t outputs;  ///< Split's outputs (1 otherwise)
  int64_t mode;     ///< Split: RtSplitMode; GatherElements: bytes of an index (4 or 8)
  int64_t rank[kRtDataMaxInputs];
  int64_t dims[kRtDataMaxInputs][8]; ///< the run's dims (shape words) or the static ones
};

} // namespace onnxc_k

#endif
