// Lowering shared by the ops that are one strided copy of their input (Slice, Transpose,
// DepthToSpace, SpaceToDepth) onto onnxc_k_strided_copy (templates/cpu/strided_copy.h).
#pragma once

#include "compiler/ops/op_def.h"

#include <vector>

namespace onnxc {

/// y[c] = x[base + sum_d c[d] * strides[d]] over y's row-major coordinates c in `dims`. Size-1
/// dims are dropped and dims contiguous in both tensors merged before the call is built, so any
/// rank whose copy reduces to at most kMaxCopyRank dims works; otherwise it fails naming n.
/// The element type must be 8 to 64 bits wide.
KernelCall strided_copy_call(const Node &n, int64_t base, const std::vector<int64_t> &dims,
                             const std::vector<int64_t> &strides);

} // namespace onnxc
