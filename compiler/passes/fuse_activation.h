// Pass: fuse an activation into the Conv, Gemm or MatMul that produces its input.
// Expects: fold_batchnorm ran (or was disabled); shapes are static; activation parameters that
// come from inputs (Clip's min/max) are constants where they are known at compile time.
// Guarantees: every Relu, Clip (constant or absent min/max), LeakyRelu, Sigmoid, HardSigmoid,
// HardSwish, Gelu (none or tanh) and SiLU pattern x * Sigmoid(x), whose input is a float/double
// Conv, Gemm or MatMul output used by nothing else (the SiLU's Sigmoid and Mul excepted), is gone:
// the producer computes the activation's output value itself, marked with kActivationAttr "Relu",
// ... and kActivationParamsAttr {a, b} (compiler/ops/nn/nn_util.h); the kernels apply it where each
// output element is stored (templates/cpu/activation.h). Removed nodes are listed in
// kFusedNodesAttr, so messages about the fused node name them. A node gets one activation.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of activation nodes fused away (a SiLU pattern counts two).
int fuse_activation(Graph &g);

} // namespace onnxc
