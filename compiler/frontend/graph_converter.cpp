#include "compiler/frontend/graph_converter.h"
#include "compiler/frontend/attributes.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/frontend/topo_order.h"
#include "compiler/ir/captured.h"
#include "compiler/ir/error.h"
#include "compiler/ops/registry.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace onnxc {
namespace {

std::string normalize_domain(const std::string &d) { return d == "ai.onnx" ? "" : d; }

Dim convert_dim(const onnx::TensorShapeProto_Dimension &d) {
  if (d.has_dim_value() && d.dim_value() >= 0)
    return Dim(d.dim_value());
  if (d.has_dim_param())
    return Dim::symbolic(d.dim_param());
  return Dim::symbolic(""); // missing or negative: unknown
}

class GraphConverter {
public:
  /// `consumable`: the same proto, whose initializer data may be released once converted.
  GraphConverter(const onnx::GraphProto &p, Graph &g, const LoadContext &ctx,
                 onnx::GraphProto *consumable = nullptr)
      : p_(p), consumable_(consumable), g_(g), ctx_(ctx) {
    g_.name = p.name();
    where_ = g.parent ? fmt::format("{}: subgraph '{}'", ctx.model_path, p.name()) : ctx.model_path;
  }

  void run() {
    add_initializers();
    add_inputs();
    collect_types();
    auto is_defined = [this](const std::string &n) { return find_in_scopes(g_, n) != nullptr; };
    for (int i : topological_order(p_, is_defined, where_))
      add_node(p_.node(i), i);
    add_outputs();
  }

private:
  void add_initializers() {
    if (p_.sparse_initializer_size())
      fail("{}: the graph has sparse initializers (first: '{}'), which onnxc does not support; "
           "store them as dense initializers",
           where_, p_.sparse_initializer(0).values().name());
    for (int i = 0; i < p_.initializer_size(); ++i) {
      const onnx::TensorProto &t = p_.initializer(i);
      if (t.name().empty())
        fail("{}: an initializer has no name", where_);
      if (g_.find_value(t.name()))
        fail("{}: initializer '{}' is defined twice", where_, t.name());
      auto tensor = std::make_shared<const Tensor>(tensor_from_proto(t, ctx_.base_dir, where_));
      g_.initializers.push_back(g_.add_constant(t.name(), std::move(tensor)));
      if (consumable_) { // the name stays (topological_order reads it), the data goes
        onnx::TensorProto *done = consumable_->mutable_initializer(i);
        std::string().swap(*done->mutable_raw_data());
        google::protobuf::RepeatedField<float>().Swap(done->mutable_float_data());
      }
    }
  }

  /// Graph inputs that are also initializers (IR < 4 lists them as inputs) stay constants.
  void add_inputs() {
    std::unordered_set<std::string> seen;
    for (const auto &vi : p_.input()) {
      if (vi.name().empty())
        fail("{}: a graph input has no name", where_);
      if (!seen.insert(vi.name()).second)
        fail("{}: graph input '{}' is listed twice", where_, vi.name());
      if (Value *v = g_.find_value(vi.name()); v && v->is_constant())
        continue;
      Value *v = g_.add_value(vi.name(), convert_type(vi.type(), vi.name(), where_));
      v->is_graph_input = true;
      g_.inputs.push_back(v);
    }
  }

  void collect_types() {
    for (const auto &vi : p_.value_info())
      types_[vi.name()] = convert_type(vi.type(), vi.name(), where_);
    for (const auto &vi : p_.output())
      types_[vi.name()] = convert_type(vi.type(), vi.name(), where_);
    for (const auto &n : p_.node())
      proto_names_.insert(n.output().begin(), n.output().end());
  }

  Type type_of(const std::string &name) const {
    auto it = types_.find(name);
    return it == types_.end() ? Type{} : it->second;
  }

  /// A value of this graph, or a stand-in for a value of an enclosing scope (see onnx_loader.h).
  Value *resolve(const std::string &name) {
    if (Value *v = g_.find_value(name))
      return v;
    Value *outer = g_.parent ? find_in_scopes(*g_.parent, name) : nullptr;
    return outer ? g_.add_value(name, outer->type) : nullptr;
  }

  void set_opset_and_def(Node &n) {
    auto it = ctx_.opsets.find(n.domain);
    if (it != ctx_.opsets.end())
      n.opset = it->second;
    else if (!ctx_.local_functions.count({n.domain, n.op_type}))
      fail("{}: {} uses operator domain '{}', which the model does not import (no opset_import "
           "entry for it); add an opset_import for '{}' or fix the node's domain",
           where_, n.describe(), n.domain.empty() ? "ai.onnx" : n.domain, n.domain);
    n.def = find_op(n.domain, n.op_type);
  }

  void add_inputs_of(Node &n, const onnx::NodeProto &p) {
    for (const std::string &name : p.input()) {
      Value *v = nullptr;
      if (!name.empty() && !(v = resolve(name)))
        fail("{}: {} reads '{}', which is not defined", where_, n.describe(), name);
      if (v)
        v->uses.push_back({&n, static_cast<int>(n.inputs.size())});
      n.inputs.push_back(v);
    }
  }

  /// Outer-scope values a node's subgraphs read become extra inputs of the node, after its own,
  /// named in order by its kCapturedAttr attribute (see onnx_loader.h).
  void add_captured_inputs(Node &n) {
    std::vector<std::string> names;
    for (const auto &[key, a] : n.attrs) {
      std::vector<const Graph *> subs;
      if (a.g)
        subs.push_back(a.g.get());
      for (const auto &sub : a.graphs)
        subs.push_back(sub.get());
      for (const Graph *sub : subs)
        for (const auto &v : sub->values)
          if (is_outer_stand_in(*v) &&
              std::find(names.begin(), names.end(), v->name) == names.end())
            names.push_back(v->name);
    }
    if (names.empty())
      return;
    for (const std::string &name : names) {
      Value *v = resolve(name);
      if (!v)
        fail("{}: a subgraph of {} reads '{}', which is not defined", where_, n.describe(), name);
      v->uses.push_back({&n, static_cast<int>(n.inputs.size())});
      n.inputs.push_back(v);
    }
    Attribute captured;
    captured.kind = Attribute::Kind::Strings;
    captured.strings = std::move(names);
    n.attrs[kCapturedAttr] = std::move(captured);
  }

  void add_attributes(Node &n, const onnx::NodeProto &p) {
    if (n.domain.empty() && n.op_type == "Constant") {
      Attribute a;
      a.kind = Attribute::Kind::Tensor;
      a.t = constant_node_value(p, n, ctx_);
      n.attrs["value"] = std::move(a);
      return;
    }
    for (const auto &a : p.attribute()) {
      if (n.attrs.count(a.name()))
        fail("{}: {} has attribute '{}' twice", where_, n.describe(), a.name());
      n.attrs[a.name()] = convert_attribute(a, n, g_, ctx_);
    }
  }

  /// An unused optional output (empty name) still gets a value: kernels may write it.
  std::string unused_output_name(const Node &n) {
    std::string base = (n.name.empty() ? n.op_type : n.name) + "_unused";
    std::string name;
    do
      name = g_.unique_name(base);
    while (proto_names_.count(name));
    return name;
  }

  void add_outputs_of(Node &n, const onnx::NodeProto &p) {
    for (const std::string &out : p.output()) {
      if (!out.empty() && g_.find_value(out))
        fail("{}: {} produces '{}', which is already a graph input or initializer", where_,
             n.describe(), out);
      std::string name = out.empty() ? unused_output_name(n) : out;
      // ZipMap's sequence of maps is returned as the probability matrix it reads, a tensor
      // (compiler/ops/ml/preprocess.cpp); its output is typed by shape inference.
      bool zipmap = n.domain == "ai.onnx.ml" && n.op_type == "ZipMap";
      Value *v = g_.add_value(name, out.empty() || zipmap ? Type{} : type_of(out));
      v->producer = &n;
      v->producer_index = static_cast<int>(n.outputs.size());
      n.outputs.push_back(v);
    }
  }

  void add_node(const onnx::NodeProto &p, int index) {
    auto n = std::make_unique<Node>();
    n->name = p.name();
    n->op_type = p.op_type();
    n->domain = normalize_domain(p.domain());
    n->index = index;
    if (n->op_type.empty())
      fail("{}: {} has no op_type", where_, n->describe());
    if (p.output_size() == 0)
      fail("{}: {} has no outputs; every ONNX operator produces at least one, so the model is "
           "malformed",
           where_, n->describe());
    set_opset_and_def(*n);
    add_inputs_of(*n, p);
    add_attributes(*n, p);
    add_captured_inputs(*n);
    add_outputs_of(*n, p);
    g_.nodes.push_back(std::move(n));
  }

  void add_outputs() {
    for (const auto &vi : p_.output()) {
      if (vi.name().empty())
        fail("{}: a graph output has no name", where_);
      Value *v = resolve(vi.name());
      if (!v)
        fail("{}: graph output '{}' is not produced by any node, graph input or initializer",
             where_, vi.name());
      Type declared = type_of(vi.name());
      if (v->type.dtype == DType::Undefined)
        v->type.dtype = declared.dtype;
      if (!v->type.shape)
        v->type.shape = declared.shape;
      if (declared.kind == TypeKind::Tensor && declared.is_static())
        v->declared_dims = declared.static_dims();
      v->is_graph_output = true;
      g_.outputs.push_back(v);
    }
  }

  const onnx::GraphProto &p_;
  onnx::GraphProto *consumable_;
  Graph &g_;
  const LoadContext &ctx_;
  std::string where_;
  std::unordered_map<std::string, Type> types_;
  std::unordered_set<std::string> proto_names_; ///< node outputs named in the proto
};

} // namespace

Type convert_type(const onnx::TypeProto &type, const std::string &value_name,
                  const std::string &where) {
  Type t;
  if (type.has_sequence_type() || type.has_optional_type()) {
    t.kind = type.has_sequence_type() ? TypeKind::Sequence : TypeKind::Optional;
    const auto &elem = type.has_sequence_type() ? type.sequence_type().elem_type()
                                                : type.optional_type().elem_type();
    t.elem = std::make_shared<const Type>(convert_type(elem, value_name, where));
    return t;
  }
  if (!type.has_tensor_type())
    return t;
  const auto &tt = type.tensor_type();
  int32_t elem = tt.elem_type();
  if (!dtype_is_known(elem))
    fail("{}: value '{}' has element type {}, which onnxc does not know (it knows 1..{})", where,
         value_name, elem, kMaxDType);
  t.dtype = static_cast<DType>(elem);
  if (tt.has_shape()) {
    t.shape.emplace();
    for (const auto &d : tt.shape().dim())
      t.shape->push_back(convert_dim(d));
  }
  return t;
}

Value *find_in_scopes(const Graph &graph, const std::string &name) {
  for (const Graph *g = &graph; g; g = g->parent)
    if (Value *v = g->find_value(name))
      return v;
  return nullptr;
}

void convert_graph(const onnx::GraphProto &proto, Graph &graph, const LoadContext &ctx) {
  GraphConverter(proto, graph, ctx).run();
}

void convert_graph_consuming(onnx::GraphProto &proto, Graph &graph, const LoadContext &ctx) {
  GraphConverter(proto, graph, ctx, &proto).run();
}

} // namespace onnxc
