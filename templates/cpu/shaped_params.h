/* The contract between ops whose output shape input values decide, when those values are
 * computed at run time (Value::run_time_shape_from: Reshape, Squeeze, Unsqueeze, Slice, Split
 * in compiler/ops/tensor), and their kernels (templates/cpu/shaped.cpp). Each kernel computes
 * the shape from the values, checks it as the op's compile-time rule does, writes its output
 * (planned for the largest result) and reports the shape with onnxc_rt_set_shape. */
#ifndef ONNXC_SHAPED_PARAMS_H
#define ONNXC_SHAPED_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

enum ShapeCopyMode : int64_t { kShapeReshape = 0, kShapeSqueeze = 1, kShapeUnsqueeze = 2 };

/// Reshape / Squeeze / Unsqueeze: the data copied, the shape from VALUES (int64: the target
/// shape, or the axes). Tensors {X, VALUES, Y}.
struct ShapeCopyParams {
  int64_t mode; ///< ShapeCopyMode
  int64_t bytes;
  int64_t rank, dims[8];
  int64_t n;         ///< elements of VALUES
  int64_t allowzero; ///< Reshape: 0 is a dim of 0, not a copy of the input's
};

/// Slice with starts/ends (and axes, steps) computed at run time, int32 or int64 (index_bytes).
/// Tensors {X, STARTS, ENDS, AXES or null, STEPS or null, Y}.
struct SliceRtParams {
  int64_t elem_bytes, index_bytes;
  int64_t rank, dims[8];
  int64_t n; ///< elements of STARTS (and of the others)
};

/// Split along `axis` into `outputs` parts whose sizes SPLIT (int64) gives at run time.
/// Tensors {X, SPLIT, Y0, ..., Y(outputs-1)}.
struct SplitRtParams {
  int64_t elem_bytes;
  int64_t rank, dims[8];
  int64_t axis, outputs;
};

/// Range with start/limit/delta computed at run time: no bound, so the result goes where
/// onnxc_rt_output_buffer says. Tensors {START, LIMIT, DELTA, Y}.
enum RangeKind : int64_t {
  kRangeF32,
  kRangeF64,
  kRangeF16,
  kRangeBF16,
  kRangeI16,
  kRangeI32,
  kRangeI64
};
struct RangeRtParams {
  int64_t kind; ///< RangeKind
};

/// ConstantOfShape with its shape computed at run time: tensors {SHAPE (int64), Y}.
struct FillRtParams {
  int64_t elem_bytes, rank;
  int64_t value; ///< the fill value's bytes
};

/// Expand (mode 0, VALUES the target shape) or Tile (mode 1, VALUES the repeats) with VALUES
/// computed at run time (int64, n of them): the broadcasting copy of onnxc_k_broadcast into
/// onnxc_rt_output_buffer (no bound). Tensors {X, VALUES, Y}.
struct BroadcastRtParams {
  int64_t elem_bytes, tile;
  int64_t rank, dims[8];
  int64_t n;
};

/// OneHot with depth computed at run time: onnxc_k_one_hot into onnxc_rt_output_buffer (no
/// bound). depth_kind and index_kind: 0 int32, 1 int64, 2 float, 3 double. Tensors
/// {INDICES, DEPTH, VALUES, Y}; Y is INDICES' dims with depth inserted at `axis`.
struct OneHotRtParams {
  int64_t value_bytes, index_kind, depth_kind;
  int64_t rank, dims[8];
  int64_t axis;
};

/// Hann/Hamming/BlackmanWindow with the size computed at run time (SIZE int32 or int64):
/// a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N) in double, stored as out_kind (0 float,
/// 1 double, 2 float16, 3 bfloat16) into onnxc_rt_output_buffer (no bound). Tensors {SIZE, Y}.
struct WindowRtParams {
  double a0, a1, a2;
  int64_t periodic, out_kind, size_bytes;
};

/// MelWeightMatrix with inputs computed at run time: tensors {NUM_MEL_BINS, DFT_LENGTH,
/// SAMPLE_RATE (int32 or int64: int_bytes), LOWER_EDGE_HERTZ, UPPER_EDGE_HERTZ (float_kind: 0
/// float, 1 double, 2 float16, 3 bfloat16), Y}; the [dft_length / 2 + 1, num_mel_bins]
/// filters as compiler/ops/signal/mel_weight_matrix.cpp computes them, stored as out_kind (as
/// WindowRtParams) into onnxc_rt_output_buffer (no bound), shape reported.
struct MelRtParams {
  int64_t int_bytes, float_kind, out_kind;
};

/// Pad with pads (or axes) computed at run time: onnxc_k_pad into onnxc_rt_output_buffer (no
/// bound). PADS int64 [2 * axes]; AXES int32/int64 (axes_bytes 4/8) or null (every axis).
/// Tensors {X, PADS, VALUE or null, AXES or null, Y}.
struct PadRtParams {
  int64_t elem_bytes, mode;
  int64_t rank, dims[8];
  int64_t value_bits;
  int64_t axes_bytes, naxes;
  /// 1: CenterCropPad: PADS holds the target sizes of axes center_axes[0..naxes) (normalised),
  /// cropped or zero-padded around the centre (an odd difference: the extra element at the end).
  int64_t center, center_axes[8];
};

/// Reshape's rule at run time: the dims of `shape` (n values; 0 copies the input's dim unless
/// allowzero, one -1 is inferred) for an input of dims in[0..rank) and `numel` elements, into
/// out. Returns nullptr, or why the shape does not fit.
inline const char *reshape_dims(const int64_t *shape, int64_t n, const int64_t *in, int64_t rank,
                                int64_t numel, bool allowzero, int64_t *out) {
  int64_t infer_at = -1, known = 1;
  for (int64_t k = 0; k < n; ++k) {
    int64_t d = shape[k];
    if (d == 0 && !allowzero) {
      if (k >= rank)
        return "a 0 in shape copies an input dim the input does not have";
      d = in[k];
    }
    if (d == -1) {
      if (infer_at >= 0)
        return "shape has more than one -1";
      infer_at = k;
    } else if (d < -1) {
      return "shape has a negative dim";
    } else if (__builtin_mul_overflow(known, d, &known)) {
      return "shape has too many elements";
    }
    out[k] = d;
  }
  if (infer_at >= 0) {
    if (known == 0 || numel % known != 0)
      return "the -1 of shape cannot be inferred from the input's element count";
    out[infer_at] = numel / known;
  } else if (known != numel) {
    return "shape has a different element count than the input";
  }
  return nullptr;
}

} // namespace onnxc_k

#endif
