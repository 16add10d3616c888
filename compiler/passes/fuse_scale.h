// Pass: fuse a multiplication or division by a constant scalar into the MatMul before it (the
// 1/sqrt(d) scaling of attention scores, Q K^T / sqrt(d), that transformers export).
// Expects: constants folded, and fold-batchnorm ran (it folds such a scale into a constant
// weight instead); shapes static where it applies.
// Guarantees: every float/double MatMul without a fused bias, scale or activation, whose output
// is used only by a Mul by a constant of one element, or a Div of it by such a constant (the
// constant float-exact, its rank not above the output's), computes that node's output itself:
// the MatMul carries kScaleAttr ({s, 0} for a Mul by s, {s, 1} for a Div by s) and its GEMM
// uses alpha = s or 1/s, so the result is alpha * (A B), before the bias and activation that
// fuse-bias and fuse-activation may attach afterwards. The Mul/Div is listed in
// kFusedNodesAttr.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of Mul/Div nodes fused away.
int fuse_scale(Graph &g);

} // namespace onnxc
