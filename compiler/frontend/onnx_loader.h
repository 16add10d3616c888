// The ONNX frontend: reads a .onnx file into the IR (compiler/ir/ir.h).
//
// What the loaded IR looks like:
// - Model: ir_version, producer ("name version"), opsets per domain ("ai.onnx" is stored as "";
//   a model without opset_import, IR version 1-2, imports ai.onnx version 1), the main graph.
// - Graph inputs are the ONNX graph inputs that are not initializers (IR < 4 lists initializers
//   as inputs too; they stay constants). Initializers are Values with `constant` set, listed in
//   Graph::initializers. Value types come from the inputs, outputs and value_info: a dim_value is
//   static, a dim_param is a named symbolic dim, a missing dim is an unnamed symbolic dim, a
//   missing shape leaves the rank unknown; non-tensor types have DType::Undefined.
// - Nodes are in topological order (the model's order unless it was not sorted; the sort is
//   stable). Node::index is the node's position in the model file, Node::opset the model's
//   version of its domain, Node::def its OpDef or nullptr for ops onnxc does not know (they are
//   loaded, not refused: a later pass reports them). An omitted optional input (empty name) is
//   nullptr; an unused optional output (empty name) still gets a Value with a generated name.
// - Constant nodes stay nodes (constant folding folds them), but whichever attribute held their
//   value (value, value_float(s), value_int(s), value_string(s)) is replaced by one Tensor
//   attribute "value", so later passes read only that.
// - Subgraphs (If/Loop/Scan bodies) are Graphs whose `parent` is the enclosing graph. A name a
//   subgraph uses but does not define (an outer-scope value) becomes a Value of the subgraph with
//   that name and the outer value's type, and nothing else: no producer, not a graph input, no
//   constant. To find what it refers to, look the name up in the enclosing graphs (walk `parent`,
//   see find_in_scopes in graph_converter.h). Nothing outside the subgraph points into it. The
//   node owning the subgraph gets the outer values as extra inputs after its own, named by its
//   `onnxc.captured` attribute (kCapturedAttr in ir.h), so the enclosing graph sees the uses.
// - Sparse tensors (sparse initializers, Constant sparse_value) are refused; sparse_tensor and
//   type_proto attributes record only their Kind.
//
// Errors throw onnxc::Error naming the model file, the node (Node::describe()), the op and the
// reason: malformed protobuf, unknown data types, tensor data not matching its dims, external
// data outside the model's directory, domains not imported, cycles, undefined values, values
// produced twice.
#pragma once

#include "compiler/frontend/proto_io.h"
#include "compiler/ir/ir.h"

#include <memory>
#include <string>

namespace onnxc {

/// How a model is read.
struct LoadOptions {
  ParseLimits limits; ///< protobuf size and nesting caps
  /// Name of the model in messages when it is loaded from bytes ("" = "<in-memory model>").
  std::string display_name;
};

/// Reads and converts the .onnx file at `path`. External data is read relative to its directory.
std::unique_ptr<Model> load_model(const std::string &path, const LoadOptions &opts = {});

/// Converts a serialized ModelProto. External data is read relative to
/// `base_dir_for_external_data`; "" refuses external data.
std::unique_ptr<Model> load_model_from_bytes(const std::string &bytes,
                                             const std::string &base_dir_for_external_data,
                                             const LoadOptions &opts = {});

} // namespace onnxc
