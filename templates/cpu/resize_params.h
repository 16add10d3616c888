/* The contract between Resize / Upsample with scales, sizes or roi computed at run time
 * (compiler/ops/tensor/resize.cpp) and onnxc_k_resize_rt (templates/cpu/resize_rt.cpp): the
 * kernel computes the output size and every axis' taps at run time, with the same rules the
 * compiler follows for constant inputs (ONNX's reference, onnx/reference/ops/op_resize.py),
 * then runs onnxc_k_resize_nearest / onnxc_k_resize_<f32|f64> into onnxc_rt_output_buffer (no
 * bound). Tensors {X, ROI (float) or null, SCALES (float) or null, SIZES (int64) or null, Y}. */
#ifndef ONNXC_RESIZE_PARAMS_H
#define ONNXC_RESIZE_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

enum ResizeMode : int64_t { kResizeNearest, kResizeLinear, kResizeCubic };
enum ResizeCtm : int64_t {
  kCtmHalfPixel, kCtmHalfPixelSymmetric, kCtmPytorchHalfPixel, kCtmAlignCorners,
  kCtmAsymmetric, kCtmTfCropAndResize, kCtmTfHalfPixelForNn
};
enum ResizeNearestMode : int64_t {
  kNearestRoundPreferFloor, kNearestRoundPreferCeil, kNearestFloor, kNearestCeil, kNearestSimple
};

struct ResizeRtParams {
  int64_t elem_bytes, rank, dims[8];
  int64_t mode, ctm, nearest_mode; ///< ResizeMode, ResizeCtm, ResizeNearestMode
  double cubic_a, extrapolation;
  int64_t extrapolation_bits; ///< the nearest kernel's extrapolation (the element's bits)
  int64_t exclude_outside, antialias;
  int64_t naxes, axes[8];
  int64_t keep_aspect; ///< 0 stretch, 1 not_larger, 2 not_smaller
  int64_t is_f64;      ///< linear / cubic: 0 float, 1 double
};

} // namespace onnxc_k

#endif
