// The reference evaluator: computes a node's outputs from constant inputs. Used by constant
// folding (shape subgraphs, Constant nodes, anything whose inputs are all known) and by tests as
// an oracle. Ops either supply OpDef::eval or are evaluated by running their lowered kernel,
// compiled natively into onnxc from the same template the backend specialises.
#pragma once

#include "compiler/ir/ir.h"

#include <vector>

namespace onnxc {

/// Outputs of `n` given constant values for its inputs (nullptr for omitted optional inputs).
/// The node's output types must be inferred and static. Throws Error naming the node.
std::vector<Tensor> evaluate_node(const Node &n, const std::vector<const Tensor *> &inputs);

/// True if this onnxc build has the kernel `name` (the natively compiled kernels and the
/// embedded bitcode come from the same sources, so they define the same names).
bool native_kernel_exists(const std::string &name);

} // namespace onnxc
