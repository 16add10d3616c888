// Pass: fold per-channel affine ops into the weights of the Conv or Gemm before them.
// Expects: fold_constants ran (weights, BatchNormalization statistics and Mul/Add operands that
// are computable at compile time are constants); shapes are static.
// Guarantees: every BatchNormalization (inference form: only Y used) whose X is produced only
// by a Conv with constant W (and B, if any), and every Mul/Add of such a Conv's output by a
// constant that is a scalar or varies only along the channel axis (without enlarging the
// output), is gone; the Conv computes the same values with W' = W * s[m] and B' = B * s[m] + t[m]
// (for BatchNormalization s = scale / sqrt(var + eps), t = beta - mean * s), folded in double
// and stored in W's element type. Likewise BatchNormalization after a Gemm (opset >= 7) with
// constant B and a constant C of at most one value per column. The fused node keeps its name
// and lists the removed nodes in kFusedNodesAttr, so messages name them. Shared weights are
// not modified: folded ones are new constants.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of nodes folded away.
int fold_batchnorm(Graph &g);

} // namespace onnxc
