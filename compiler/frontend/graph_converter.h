// GraphProto -> Graph. Used by the loader for the main graph and, recursively, for the subgraphs
// of If/Loop/Scan nodes. See onnx_loader.h for what the resulting IR looks like.
#pragma once

#include "compiler/ir/ir.h"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace onnx {
class GraphProto;
class TypeProto;
} // namespace onnx

namespace onnxc {

/// What converting any graph of one model needs to know about the model.
struct LoadContext {
  std::string model_path;                ///< for messages
  std::string base_dir;                  ///< where external data lives ("" = none allowed)
  std::map<std::string, int64_t> opsets; ///< imported domains ("" = ai.onnx) -> version
  /// (domain, name) of the model's local functions: calls to them need no opset import.
  std::set<std::pair<std::string, std::string>> local_functions;
};

/// Converts `proto` into `graph`, which must be empty; `graph.parent` must already be set for a
/// subgraph. Throws Error naming the model file, node, op and reason.
void convert_graph(const onnx::GraphProto &proto, Graph &graph, const LoadContext &ctx);
/// As convert_graph, releasing each initializer's data in `proto` once it is copied into the IR
/// (the loader's main graph: its weights are then held once while the model loads).
void convert_graph_consuming(onnx::GraphProto &proto, Graph &graph, const LoadContext &ctx);

/// The IR type of an ONNX TypeProto: a tensor type's dtype and dims (dim_value -> static,
/// dim_param -> named symbolic, neither -> unnamed symbolic; no shape -> rank unknown). Non-tensor
/// types (sequence, map, optional) give DType::Undefined. Throws Error on an unknown elem_type.
Type convert_type(const onnx::TypeProto &type, const std::string &value_name,
                  const std::string &where);

/// The value named `name` in `graph` or, failing that, in its enclosing scopes; nullptr if none.
Value *find_in_scopes(const Graph &graph, const std::string &name);

} // namespace onnxc
