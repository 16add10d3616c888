// Outer-scope values read by subgraphs (If/Loop/Scan bodies).
//
// The frontend gives a node with subgraphs one extra input per outer-scope value its subgraphs
// read (ONNX Runtime calls them implicit inputs), after its own inputs, and names them in order
// in the node's kCapturedAttr attribute, so passes on the enclosing graph see those uses. Inside
// the subgraph such a value is a stand-in (is_outer_stand_in) with the outer value's name.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Attribute (Strings) of a node with subgraphs: the names of its captured outer values.
inline constexpr char kCapturedAttr[] = "onnxc.captured";

/// True for a subgraph value that stands for an outer-scope value: no producer, not a graph
/// input, not a constant, no storage (the frontend's stand-ins, see onnx_loader.h).
bool is_outer_stand_in(const Value &v);

/// Number of a node's inputs that are its ONNX inputs (the rest are kCapturedAttr's).
size_t explicit_input_count(const Node &n);

} // namespace onnxc
