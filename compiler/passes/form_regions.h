// Pass: the backend-neutral plan.
// Expects: a supported, fully inferred graph, fused and dead-code free.
// Guarantees: ExecutionPlan::regions holds one Op region per node in execution order (a node
// that fusion passes merged others into lists them in `fused` and carries its activation
// epilogue typed), then one OutputCopy region per graph output that cannot be computed straight
// into the caller's buffer (a graph input, a constant, or a value that is output twice; its
// `dst` is a new value). plan.inputs / plan.outputs are the signature, in order.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/passes/execution_plan.h"

#include <string>

namespace onnxc {

ExecutionPlan form_regions(Graph &g, const std::string &model_name);

/// The input shaped at run time whose shape n's outputs take from the run (a ShapeCopy after
/// n: an element-wise op of a bounded value), or nullptr. Root graph: form_regions; If/Loop/
/// Scan bodies: lower_nodes (compiler/passes/lower_control_flow.cpp).
Value *shape_copy_source(const Node &n);

} // namespace onnxc
