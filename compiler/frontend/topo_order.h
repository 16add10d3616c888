// Ordering the nodes of an ONNX graph before they are converted.
//
// ONNX requires a graph's nodes to be topologically sorted, but exporters and hand-edited models
// do not always comply. The frontend sorts them (stably: a sorted graph keeps its order) and
// reports cycles, values that are never defined and values produced twice. A node's dependencies
// include the names its subgraphs (If/Loop/Scan bodies) use from the enclosing scope.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class GraphProto;
class NodeProto;
} // namespace onnx

namespace onnxc {

/// "node 'conv1' (Conv, #3)" for a node not converted yet — same wording as Node::describe().
std::string describe_node_proto(const onnx::NodeProto &node, int index);

/// Names that `graph` (and the subgraphs nested in it) use but do not define: its references to
/// enclosing scopes.
std::set<std::string> free_names(const onnx::GraphProto &graph);

/// Names a node reads: its non-empty inputs plus the free names of its subgraph attributes.
std::vector<std::string> node_reads(const onnx::NodeProto &node);

/// Indices of graph.node() in a topological order that keeps the original order where possible.
/// `is_defined(name)` tells whether a name is available before any node runs (graph input,
/// initializer or a value of an enclosing scope). Throws Error, prefixed with `where` (the model
/// file), naming the node, op and value on a cycle, an undefined input or a value produced twice.
std::vector<int> topological_order(const onnx::GraphProto &graph,
                                   const std::function<bool(const std::string &)> &is_defined,
                                   const std::string &where);

} // namespace onnxc
