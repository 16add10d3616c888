#include "compiler/frontend/attributes.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/ir/error.h"

#include <onnx/onnx_pb.h>

#include <cstring>

namespace onnxc {
namespace {

using AP = onnx::AttributeProto;
using Kind = Attribute::Kind;

/// For IR version 1 models, whose attributes have no `type`: the kind of the field that is set.
Kind infer_kind(const AP &a) {
  if (a.has_f())
    return Kind::Float;
  if (a.has_i())
    return Kind::Int;
  if (a.has_s())
    return Kind::String;
  if (a.has_t())
    return Kind::Tensor;
  if (a.has_g())
    return Kind::Graph;
  if (a.floats_size())
    return Kind::Floats;
  if (a.ints_size())
    return Kind::Ints;
  if (a.strings_size())
    return Kind::Strings;
  if (a.tensors_size())
    return Kind::Tensors;
  if (a.graphs_size())
    return Kind::Graphs;
  return Kind::Undefined;
}

Kind kind_of(const AP &a) {
  switch (a.type()) {
  case AP::FLOAT:
    return Kind::Float;
  case AP::INT:
    return Kind::Int;
  case AP::STRING:
    return Kind::String;
  case AP::TENSOR:
    return Kind::Tensor;
  case AP::GRAPH:
    return Kind::Graph;
  case AP::FLOATS:
    return Kind::Floats;
  case AP::INTS:
    return Kind::Ints;
  case AP::STRINGS:
    return Kind::Strings;
  case AP::TENSORS:
    return Kind::Tensors;
  case AP::GRAPHS:
    return Kind::Graphs;
  case AP::SPARSE_TENSOR:
  case AP::SPARSE_TENSORS:
    return Kind::SparseTensor;
  case AP::TYPE_PROTO:
  case AP::TYPE_PROTOS:
    return Kind::TypeProto;
  default:
    return infer_kind(a);
  }
}

/// Message prefix for a tensor held by attribute `attr` of `node`.
std::string tensor_origin(const Node &node, const std::string &attr, const LoadContext &ctx) {
  return fmt::format("{}: {}: attribute '{}'", ctx.model_path, node.describe(), attr);
}

TensorPtr convert_tensor(const onnx::TensorProto &t, const std::string &origin,
                         const LoadContext &ctx) {
  return std::make_shared<const Tensor>(tensor_from_proto(t, ctx.base_dir, origin));
}

std::shared_ptr<Graph> convert_subgraph(const onnx::GraphProto &g, Graph &owner,
                                        const LoadContext &ctx) {
  auto sub = std::make_shared<Graph>();
  sub->parent = &owner;
  convert_graph(g, *sub, ctx);
  return sub;
}

template <typename T> TensorPtr vector_tensor(DType dt, const T *data, size_t n, bool scalar) {
  std::vector<int64_t> shape;
  if (!scalar)
    shape.push_back(static_cast<int64_t>(n));
  auto t = std::make_shared<Tensor>(dt, shape);
  if (n)
    std::memcpy(t->data(), data, n * sizeof(T));
  return t;
}

TensorPtr string_tensor(const std::vector<std::string> &v, bool scalar) {
  std::vector<int64_t> shape;
  if (!scalar)
    shape.push_back(static_cast<int64_t>(v.size()));
  auto t = std::make_shared<Tensor>(DType::String, shape);
  t->strings() = v;
  return t;
}

TensorPtr constant_from(const AP &a, const Node &node, const LoadContext &ctx) {
  const std::string &n = a.name();
  if (n == "value")
    return convert_tensor(a.t(), tensor_origin(node, n, ctx), ctx);
  float f = a.f();
  int64_t i = a.i();
  if (n == "value_float")
    return vector_tensor(DType::Float, &f, 1, true);
  if (n == "value_floats")
    return vector_tensor(DType::Float, a.floats().data(), a.floats_size(), false);
  if (n == "value_int")
    return vector_tensor(DType::Int64, &i, 1, true);
  if (n == "value_ints")
    return vector_tensor(DType::Int64, a.ints().data(), a.ints_size(), false);
  if (n == "value_string")
    return string_tensor({a.s()}, true);
  if (n == "value_strings")
    return string_tensor({a.strings().begin(), a.strings().end()}, false);
  if (n == "sparse_value")
    fail("{}: {} holds a sparse_value, which onnxc does not support; convert it to a dense "
         "'value' tensor (e.g. with onnx.numpy_helper)",
         ctx.model_path, node.describe());
  return nullptr; // not a value attribute
}

} // namespace

Attribute convert_attribute(const AP &a, const Node &node, Graph &owner, const LoadContext &ctx) {
  Attribute out;
  out.kind = kind_of(a);
  out.ref_attr_name = a.ref_attr_name();
  std::string origin = tensor_origin(node, a.name(), ctx);
  switch (out.kind) {
  case Kind::Float:
    out.f = a.f();
    break;
  case Kind::Int:
    out.i = a.i();
    break;
  case Kind::String:
    out.s = a.s();
    break;
  case Kind::Tensor:
    out.t = convert_tensor(a.t(), origin, ctx);
    break;
  case Kind::Graph:
    out.g = convert_subgraph(a.g(), owner, ctx);
    break;
  case Kind::Floats:
    out.floats.assign(a.floats().begin(), a.floats().end());
    break;
  case Kind::Ints:
    out.ints.assign(a.ints().begin(), a.ints().end());
    break;
  case Kind::Strings:
    out.strings.assign(a.strings().begin(), a.strings().end());
    break;
  case Kind::Tensors:
    for (const auto &t : a.tensors())
      out.tensors.push_back(convert_tensor(t, origin, ctx));
    break;
  case Kind::Graphs:
    for (const auto &g : a.graphs())
      out.graphs.push_back(convert_subgraph(g, owner, ctx));
    break;
  default:
    break; // SparseTensor, TypeProto, Undefined: the kind is all we record
  }
  return out;
}

TensorPtr constant_node_value(const onnx::NodeProto &proto, const Node &node,
                              const LoadContext &ctx) {
  TensorPtr value;
  std::string from;
  for (const AP &a : proto.attribute()) {
    TensorPtr t = constant_from(a, node, ctx);
    if (!t)
      continue;
    if (value)
      fail("{}: {} sets both '{}' and '{}'; a Constant must set exactly one value attribute",
           ctx.model_path, node.describe(), from, a.name());
    value = std::move(t);
    from = a.name();
  }
  if (!value)
    fail("{}: {} has no value attribute (value, value_float(s), value_int(s), value_string(s))",
         ctx.model_path, node.describe());
  return value;
}

} // namespace onnxc
