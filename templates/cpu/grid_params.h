/* The contract between GridSample / AffineGrid (compiler/ops/nn/grid.cpp) and their kernels
 * onnxc_k_grid_sample_<dtype> and onnxc_k_affine_grid_<dtype> (templates/cpu/grid.cpp).
 * Spatial dims are padded to 3 with leading 1s; a grid's last axis lists the coordinates in
 * reverse order of the spatial dims (x = the last dim, then y, then z). */
#ifndef ONNXC_GRID_PARAMS_H
#define ONNXC_GRID_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

enum GridMode : int64_t { kGridNearest = 0, kGridLinear = 1, kGridCubic = 2 };
enum GridPadding : int64_t { kGridZeros = 0, kGridBorder = 1, kGridReflection = 2 };

/// GridSample: tensors {X [N, C, in...], grid [N, out..., nd], Y [N, C, out...]}.
struct GridSampleParams {
  int64_t N, C;
  int64_t nd;       ///< spatial dims: 1..3
  int64_t in[3];    ///< input spatial dims, padded with leading 1s
  int64_t out_size; ///< product of the output spatial dims
  int64_t mode;     ///< GridMode
  int64_t padding;  ///< GridPadding
  int64_t align_corners;
};

/// AffineGrid: tensors {theta [N, nd, nd + 1], grid [N, size..., nd]}.
struct AffineGridParams {
  int64_t N;
  int64_t nd;      ///< 2 or 3
  int64_t size[3]; ///< output spatial dims, padded with leading 1s
  int64_t align_corners;
};

} // namespace onnxc_k

#endif
