/* The contract between the ops that count at run time (compiler/ops/tensor/data_dependent.cpp:
 * NonZero, Compress, NonMaxSuppression with run-time inputs) and their kernels
 * (templates/cpu/data_dependent.cpp). Each kernel writes its result into an output planned
 * for the largest count and reports the count with onnxc_rt_set_count(rt, symbol, count); the
 * count dims of the output are that count (a dim of [rank, count] is laid out for the count
 * the run found, not for the bound). */
#ifndef ONNXC_COUNT_PARAMS_H
#define ONNXC_COUNT_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// How NonZero tests an element: by value for floats (-0.0 is zero, NaN is not), else by bytes.
enum NonZeroKind : int64_t {
  kNonZeroF32 = 0,
  kNonZeroF64 = 1,
  kNonZeroHalf = 2,
  kNonZeroBytes = 3
};

/// NonZero: tensors {X, Y [rank, count] int64}.
struct NonZeroParams {
  int64_t symbol;     ///< the count's index in the run's symbols
  int64_t kind;       ///< NonZeroKind
  int64_t elem_bytes; ///< element size (kNonZeroBytes)
  int64_t numel, rank;
  int64_t dims[8]; ///< rank <= 8
};

/// Compress: X viewed as [outer, len, inner]; the slices i < cond_len along len whose condition
/// is true. Tensors {X, condition (bool), Y [outer, count, inner]}.
struct CompressParams {
  int64_t symbol;
  int64_t elem_bytes, outer, len, inner, cond_len;
};

/// NonMaxSuppression on float32 boxes [batches, boxes, 4] and scores [batches, classes, boxes].
/// Tensors {boxes, scores, max_output_boxes_per_class (int64) or null, iou_threshold (float)
/// or null, score_threshold (float) or null, Y [count, 3] int64, scratch (nms_scratch_bytes)}.
struct NmsParams {
  int64_t symbol;
  int64_t batches, boxes, classes;
  int64_t center_point_box; ///< 0/1
};

/// How Unique compares elements.
enum UniqueKind : int64_t {
  kUniqueF32,
  kUniqueF64,
  kUniqueI8,
  kUniqueI16,
  kUniqueI32,
  kUniqueI64,
  kUniqueU8,
  kUniqueU16,
  kUniqueU32,
  kUniqueU64
};

/// Unique: X viewed as [outer, len, inner] (flattened to [1, numel, 1] without an axis); the
/// distinct slices along len, sorted (or in order of first occurrence), with each one's first
/// index, every slice's output position and the counts. NaNs equal each other and sort last.
/// Tensors {X, Y [outer, count, inner], indices [count] or null, inverse [len] or null,
/// counts [count] or null, scratch (unique_scratch_bytes)}.
struct UniqueParams {
  int64_t symbol;
  int64_t kind; ///< UniqueKind
  int64_t elem_bytes, outer, len, inner;
  int64_t sorted; ///< 0/1
};

constexpr int64_t unique_scratch_bytes(int64_t len) { return 5 * 8 * (len > 0 ? len : 1); }

/// Scratch of NonMaxSuppression: candidate order, a merge buffer and the kept boxes (int32).
constexpr int64_t nms_scratch_bytes(int64_t boxes) { return 3 * 4 * (boxes > 0 ? boxes : 1); }

} // namespace onnxc_k

#endif
