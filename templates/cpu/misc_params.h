/* The contracts between small operators' lowerings and their kernels, one struct per kernel
 * family: EyeLike, ReverseSequence, Det (compiler/ops/tensor/, math/) and their kernels in
 * templates/cpu/misc_ops.cpp; TopK (templates/cpu/top_k.cpp); Einsum (templates/cpu/einsum.cpp);
 * RoiAlign, MaxUnpool, Col2Im, DeformConv (templates/cpu/spatial_misc.cpp). */
#ifndef ONNXC_MISC_PARAMS_H
#define ONNXC_MISC_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// EyeLike: tensors {Y [rows, cols]}; ones where col - row == k, zeros elsewhere.
struct EyeLikeParams {
  int64_t rows, cols, k;
};

/// ReverseSequence: tensors {X, sequence_lens (int64 [batch]), Y}; X viewed as
/// [time, batch, inner] (time_axis 0) or [batch, time, inner] (time_axis 1), inner in bytes.
struct ReverseSequenceParams {
  int64_t time_axis, time, batch, inner_bytes;
};

/// Det: tensors {X [count, n, n], Y [count]}; LU with partial pivoting in double.
struct DetParams {
  int64_t count, n;
};
/// Det's scratch bytes: the LU factors of one matrix, in double.
constexpr int64_t det_scratch_bytes(const DetParams &p) { return p.n * p.n * 8; }

/// TopK: tensors {X viewed as [outer, len, inner], Values, Indices (int64) [outer, k, inner] or
/// null, scratch}; the kernel keeps its heaps in Indices, or in the scratch when it is null.
struct TopKParams {
  int64_t outer, len, inner, k;
  int64_t largest; ///< 1: the k largest (ties: lower index first), 0: the k smallest
  /// -1: k is constant. Else K is computed at run time (tensor K, int64): the kernel reads it,
  /// checks 0 <= K <= len, and reports it as the run-time count of this symbol index (k = len,
  /// the bound the outputs and scratch are planned for).
  int64_t k_symbol;
};
/// TopK's scratch bytes: the index heaps when the Indices output is not used. Tensors
/// {X, Values, Indices or null, K or null, scratch}.
constexpr int64_t top_k_scratch_bytes(const TopKParams &p, bool indices_used) {
  return indices_used ? 0 : p.outer * p.k * p.inner * 8;
}

/// Einsum over at most kEinsumMaxInputs operands and kEinsumMaxLetters distinct letters:
/// tensors {inputs..., Y}. The output index space is out_dims[0..n_out), the summed one
/// sum_dims[0..n_sum); operand i's element offset is the dot product of the output and summed
/// multi-indices with out_strides[i] and sum_strides[i] (a repeated letter adds its strides).
constexpr int64_t kEinsumMaxInputs = 4;
constexpr int64_t kEinsumMaxLetters = 16;
struct EinsumParams {
  int64_t n_inputs, n_out, n_sum;
  int64_t out_dims[kEinsumMaxLetters], sum_dims[kEinsumMaxLetters];
  int64_t out_strides[kEinsumMaxInputs][kEinsumMaxLetters];
  int64_t sum_strides[kEinsumMaxInputs][kEinsumMaxLetters];
};

/// RoiAlign: tensors {X [N, C, H, W], rois [R, 4], batch_indices (int64) [R], Y [R, C, oh, ow]}.
struct RoiAlignParams {
  int64_t N, C, H, W, R, out_h, out_w;
  int64_t sampling_ratio; ///< samples per bin and dim; 0: ceil(roi size / output size)
  int64_t max_mode;       ///< 1: max of the weighted corner values, 0: average
  int64_t half_pixel;     ///< 1: coordinates shifted by -0.5 (half_pixel), 0: output_half_pixel
  double spatial_scale;
};

/// MaxUnpool: tensors {X, I (int64), Y}; Y is zeroed, then X[i] is stored at the position
/// I[i] has as a flat index into [planes, def...] (the default output shape), kept at the
/// same coordinates in Y [planes, out...] (output_shape may only add elements at the end).
struct MaxUnpoolParams {
  int64_t in_count, planes;
  int64_t def[3], out[3]; ///< spatial dims, padded with leading 1s
};

/// Col2Im: tensors {X [N, C * k_size, L], Y [N, C, image...]}; w.in is the image, w.out the
/// block grid (L = its size), w.k the block; overlapping values are summed.
struct Col2ImParams {
  int64_t N, C;
  WindowGeom w;
};

/// MaxUnpool with output_shape given at run time: MaxUnpoolParams with `out` read from
/// OUTPUT_SHAPE (int64, `rank` values: N, C, then the spatial dims, each at least def's), which
/// has no bound: Y goes where onnxc_rt_output_buffer says, its shape reported. Tensors
/// {X, I, OUTPUT_SHAPE, Y}.
struct MaxUnpoolRtParams {
  MaxUnpoolParams p;
  int64_t rank, n, c; ///< output rank; X's N and C
};

/// Col2Im with image_shape / block_shape given at run time: tensors {X, IMAGE_SHAPE,
/// BLOCK_SHAPE (int64, `spatial` values each), Y}; the strides, pads and dilations of `w`
/// (padded to 3 dims as WindowGeom) are the attributes', its in / k / out come from the values.
/// Y has no bound: it goes where onnxc_rt_output_buffer says, its shape reported.
struct Col2ImRtParams {
  int64_t N, CK, L, spatial;
  WindowGeom w;
};

/// DeformConv (2-D): tensors {X [N, C, H, W], W [M, C / G, kh, kw], offset [N, OG * kh * kw * 2,
/// oh, ow], B [M] or null, mask [N, OG * kh * kw, oh, ow] or null, Y [N, M, oh, ow]}. Samples
/// are bilinear with zeros outside X.
struct DeformConvParams {
  int64_t N, C, M, G, OG; ///< batch, input / output channels, groups, offset groups
  int64_t H, W, kh, kw, oh, ow;
  int64_t sh, sw, ph, pw, dh, dw; ///< strides, begin pads, dilations
};

} // namespace onnxc_k

#endif
