// N-D ops of values whose shape the run decides with no bound (Value::run_time_data: Range,
// ConstantOfShape, Pad... fed by run-time values), in the root graph: Transpose, Reshape,
// Squeeze, Unsqueeze, Concat, MatMul and broadcasting Add/Sub/Mul/Div. Their output is such a
// value too (its own run-time shape root); one kernel (templates/cpu/run_time_data.cpp) reads
// the inputs' dims from the run, computes the output's shape, checks it as the op's rule does
// and writes the output to run-scoped memory. Element-wise ops that follow one such value
// element for element (infer-shapes' run_time_shaped_source) do not come here.
#pragma once

#include "compiler/ops/op_def.h"

namespace onnxc {

/// True when infer-shapes gives n's outputs a shape decided by the run through this family:
/// n is one of its ops, in the root graph, with an input shaped at run time with no bound
/// (and none with a bound), and is not an element-wise op that follows one input.
bool run_time_data_op_applies(const Node &n, const Graph &g);

/// The shape rule: checks n as far as static facts allow (ranks, constant axes, element
/// types) and gives its output the rank it will have, shaped at run time with no bound.
void infer_run_time_data_op(Node &n);

/// True for a node whose output infer_run_time_data_op shaped (lower with the call below).
bool is_run_time_data_op(const Node &n);

/// onnxc_k_run_time_data with n's params, the run's dims of inputs shaped at run time as
/// KernelCall::shape_words.
KernelCall lower_run_time_data_op(const Node &n);

} // namespace onnxc
