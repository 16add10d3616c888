// AttributeProto -> Attribute, and the normalisation of Constant nodes.
#pragma once

#include "compiler/frontend/graph_converter.h"

namespace onnx {
class AttributeProto;
class NodeProto;
} // namespace onnx

namespace onnxc {

/// Converts one attribute of `node`. Graph attributes become Graphs whose parent is `owner`;
/// sparse_tensor(s) and type_proto(s) attributes record only their Kind. Attributes of old models
/// without a `type` field get the kind of the field that is set. Throws Error naming the node.
Attribute convert_attribute(const onnx::AttributeProto &proto, const Node &node, Graph &owner,
                            const LoadContext &ctx);

/// The value of a Constant node as a tensor, whichever attribute holds it: value (tensor),
/// value_float(s) (float scalar / 1-D), value_int(s) (int64 scalar / 1-D), value_string(s)
/// (string scalar / 1-D). Throws Error naming the node if none or several are set, or for
/// sparse_value, which onnxc does not support.
TensorPtr constant_node_value(const onnx::NodeProto &proto, const Node &node,
                              const LoadContext &ctx);

} // namespace onnxc
