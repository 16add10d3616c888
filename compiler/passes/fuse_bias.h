// Pass: fuse a bias Add into the MatMul that produces its input (the Linear layers PyTorch
// exports for inputs of rank 3 and more: MatMul(x, W) then Add(., b)).
// Expects: constants folded; shapes static where it applies.
// Guarantees: every float/double MatMul whose operands have rank >= 2, whose output is used
// only by one Add with a constant other operand that varies at most along the last axis and
// does not enlarge the output (a bias of N values), computes that Add's output itself: the
// bias becomes the MatMul's third input, marked by kBiasAttr (compiler/ops/nn/nn_util.h), and
// the GEMM adds it as its C term (broadcast along the rows) when it stores each element, before
// any activation that fuse-activation attaches afterwards. The Add is listed in kFusedNodesAttr.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of Add nodes fused away.
int fuse_bias(Graph &g);

} // namespace onnxc
