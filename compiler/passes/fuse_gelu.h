// Pass: recognise Gelu in the element-wise decompositions exporters write for it (PyTorch's
// nn.GELU at opsets below 20: x * 0.5 * (1 + erf(x / sqrt 2)), and the tanh approximation
// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))), in any arrangement of the
// arithmetic.
// Expects: constants folded; the decomposition's constants are scalars.
// Guarantees: a float/double chain of Mul/Add/Sub/Div/Pow/Erf/Tanh nodes whose only
// non-constant input is one value x, whose intermediate values are used only inside the chain,
// that contains an Erf or a Tanh, and that computes Gelu of x (checked numerically at 12
// points in double, to 1e-5 relative: the exporters' float constants differ from the exact
// ones by about 1e-7) is one Gelu node (approximate "none" or "tanh"), which keeps the chain's
// output value; the other nodes are listed in its kFusedNodesAttr. fuse-activation can then
// make it a Conv/Gemm/MatMul epilogue.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of Gelu patterns replaced.
int fuse_gelu(Graph &g);

} // namespace onnxc
