// Shared pieces of the quantisation op definitions: the layout of scales and zero points
// (per-tensor, per-axis, blocked) as kernel params, and the checks on quantised element types.
#pragma once

#include "compiler/ops/op_util.h"

#include <vector>

namespace onnxc {

/// Throws naming the node unless `dt` is a quantised type onnxc supports: (u)int8, (u)int16,
/// packed (u)int4 and (u)int2, the float8 variants but e8m0, float4e2m1.
void require_quantized_dtype(const Node &n, DType dt, const char *what);

/// Kernel params {outer, A, inner, block, so, sa, si} for a scale of shape `scale` applied to x
/// of shape `x` along `axis` with `block_size` (0: per-tensor or per-axis), as described in
/// templates/cpu/quant_common.h. Throws naming the node if the shapes do not fit together.
std::vector<int64_t> scale_layout(const Node &n, const std::vector<int64_t> &x,
                                  const std::vector<int64_t> &scale, int64_t axis,
                                  int64_t block_size);

/// Throws naming the node unless the optional input `zp` (index) has the dims of input `scale`
/// (a single-element zero point goes with a single-element scale).
void require_same_layout(const Node &n, size_t scale, size_t zp);

/// Throws naming the node unless input i holds 1 element or exactly `count` elements along one
/// dim (the others 1). Returns true for the per-element case (`count` > 1).
bool per_element(const Node &n, size_t i, int64_t count, const char *what);

/// Scratch bytes of onnxc_k_qmatmul / onnxc_k_qconv (templates/cpu/quant_gemm.cpp): `b_count`
/// packed K x N right-hand matrices (panels of 16 columns, k in pairs, int16) followed by
/// `a_rows` packed left-hand rows (k in pairs, one int32 per pair).
int64_t int_gemm_scratch(int64_t a_rows, int64_t b_count, int64_t K, int64_t N);

/// Input `i` of n, or null when i < 0 (an operand the op variant does not have) or absent.
inline Value *input_or_null(const Node &n, int i) { return i < 0 ? nullptr : n.input(i); }

} // namespace onnxc
