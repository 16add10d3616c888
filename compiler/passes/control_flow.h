// Shape inference for the control-flow ops If, Loop and Scan, whose bodies are subgraphs.
//
// Called by infer_shapes for each such node, in the enclosing graph's order:
// - An If whose condition is a compile-time constant is replaced by the chosen branch: its nodes
//   are moved into the enclosing graph at the If's place (then inferred like any other node),
//   and each If output becomes an Identity of the branch's output, keeping its name.
// - Otherwise the body's outer-scope stand-ins take the outer values' types (an outer constant
//   becomes a constant of the body), the body's inputs the types the op gives them, and the body
//   is inferred, constant-folded and pruned (the same passes as the enclosing graph).
// An If branch whose shapes cannot be inferred for the bound input shapes (a branch meant for
// other input sizes) is not compiled when the other branch can be: the node gets the
// kUncompiledBranchAttr attribute and taking that branch at run time is an error naming it and
// the reason. Every other shape must be static: a loop-carried value whose shape changes across iterations, If
// branches with different output shapes, and Loop scan outputs without a compile-time trip count
// are refused, naming the node and the value.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/ir/captured.h"
#include "compiler/passes/infer_shapes.h"

namespace onnxc {

/// Attribute (Strings {branch attribute name, reason}) of an If with an uncompiled branch.
inline constexpr char kUncompiledBranchAttr[] = "onnxc.uncompiled_branch";

/// True for If, Loop and Scan (ai.onnx).
bool is_control_flow(const Node &n);

/// If g.nodes[i] is an If with a constant condition, inlines the chosen branch in its place and
/// returns true (g.nodes[i] is then the branch's first node, not yet inferred).
bool inline_constant_if(Graph &g, size_t i);

/// Infers a control-flow node's bodies and sets its outputs' types. Throws Error naming it.
void infer_control_flow(Node &n, const InferOptions &opts);

/// The body subgraph attribute `name` of n (throws if absent).
Graph &subgraph(const Node &n, const std::string &name);

/// `name` if g has no value of that name yet, else a fresh name based on it.
std::string fresh_name(Graph &g, const std::string &name);
/// Maps the stand-ins of the outer values that n captures for `branch` (a subgraph of n) to
/// n's captured inputs, and the branch's constants to new constants of g.
std::map<const Value *, Value *> map_branch_sources(const Node &n, const Graph &branch, Graph &g);
/// map[v]; fails naming n if v is not mapped.
Value *mapped(const Node &n, const std::map<const Value *, Value *> &map, const Value *v);
/// A copy of subgraph node `b` in g on the mapped values; its outputs are added to `map`.
std::unique_ptr<Node> clone_into(Graph &g, const Node &b, std::map<const Value *, Value *> &map);

/// Trip count of a Loop with scan outputs, or of a Scan (static, checked by inference).
int64_t static_trip_count(const Node &n);

} // namespace onnxc
