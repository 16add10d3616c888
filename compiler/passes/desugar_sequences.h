// Pass: desugar sequences and optionals into tensors (compile time only).
//
// Expects: the frontend's graph, check-supported passed; runs before bind-shapes.
// Guarantees: no value has TypeKind::Sequence or TypeKind::Optional and no sequence / optional
// op remains, in the graph and in the bodies of If/Loop/Scan. A sequence whose length and
// element positions are compile-time constants is a list of its element tensors; an optional is
// its element or nothing:
// - SequenceConstruct/Empty/Insert/Erase build a new list; SequenceAt is its element;
//   SequenceLength and OptionalHasElement become constants; OptionalGetElement is the element.
// - SplitToSequence becomes Split (13) (+ Squeeze per element for keepdims=0);
//   ConcatFromSequence becomes Concat (+ Unsqueeze per element for new_axis=1).
// - SequenceMap instantiates its body once per element (the body's nodes are copied).
// - An If whose branches give sequences / optionals of one structure gets one output per element
//   tensor; a Loop carrying one is unrolled when its trip count and condition are known
//   (desugar_loop.cpp).
// - A sequence-typed graph input NAME of length N (--seq-length NAME=N) becomes the tensor inputs
//   NAME.0 ... NAME.N-1; an optional graph input is its element under its own name, or nothing
//   when absent (--absent NAME). Graph outputs are flattened the same way.
// A position or split that is not a compile-time constant, a sequence read by any other node
// (Scan, a Loop with a run-time trip count, If branches of different lengths), and a sequence
// input without a length are refused with an Error naming the node or input (run-time sequences
// need run-time shapes, issue 8).
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/passes/bind_shapes.h"

namespace onnxc {

/// True for the ops this pass removes (SequenceAt, Optional, ...).
bool is_sequence_op(const Node &n);

/// Replaces sequences and optionals by tensors (see above); throws Error naming the node.
void desugar_sequences(Graph &g, const ShapeBindings &b);

} // namespace onnxc
