// Pass: fuse a residual Add into the Conv that produces one of its operands (the skip
// connections of ResNet, MobileNet v2 and EfficientNet blocks: Conv then Add(., identity)).
// Expects: constants folded, batch norms folded; static shapes where it applies.
// Guarantees: every float/double Conv with more than one input channel per group and no fused
// activation yet, whose output is used only by one Add whose other operand has exactly the
// Conv output's static shape and dtype (no broadcasting), computes that Add's output itself:
// the other operand becomes the Conv's fourth input, marked by kResidualAttr
// (compiler/ops/nn/nn_util.h), and the kernel adds it after the bias, before any activation
// that fuse-activation attaches afterwards (so Conv, Add, Relu is one call). The Conv moves to
// the Add's place in the node order (the residual may be computed after it, e.g. ResNet's
// downsample branch). The Add is listed in kFusedNodesAttr.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of Add nodes fused away.
int fuse_residual(Graph &g);

} // namespace onnxc
