#include "compiler/passes/materialize_strings.h"
#include "compiler/ops/strings/string_util.h"

#include <algorithm>

namespace onnxc {

namespace {

/// Graph output v (a string tensor computed by a node that passes strings through) becomes the
/// output of an onnxc.StringCopy of what the node computed, so the caller gets strings owned by
/// the context. v keeps its name and place.
void copy_output(Graph &g, Value *v) {
  Node *p = v->producer;
  Value *u = g.add_value(g.unique_name(v->name + ".ref"), v->type);
  u->run_time_shape_from = v->run_time_shape_from;   // the producer reports u's shape, which
  u->run_time_shape_trace = v->run_time_shape_trace; // form-regions copies to v (ShapeCopy)
  u->run_time_shape_root = v->run_time_shape_root;
  u->run_time_bounded = v->run_time_bounded;
  p->outputs[static_cast<size_t>(v->producer_index)] = u;
  u->producer = p;
  u->producer_index = v->producer_index;
  std::vector<Value *> outputs = g.outputs;
  g.replace_all_uses_with(v, u); // the other readers read u
  g.outputs = outputs;
  u->is_graph_output = false;
  Node *c = g.add_node("StringCopy", {u}, 1);
  c->outputs[0]->producer = nullptr; // replaced by v, then erased
  c->domain = "onnxc";
  c->name = v->name;
  c->def = &op_StringCopy();
  c->outputs[0] = v;
  v->producer = c;
  v->producer_index = 0;
}

} // namespace

int materialize_strings(Graph &g) {
  std::vector<Value *> todo;
  for (const auto &v : g.values)
    if (v->constant && v->type.dtype == DType::String && (!v->uses.empty() || v->is_graph_output))
      todo.push_back(v.get());
  const size_t before = g.nodes.size();
  for (Value *v : todo) {
    Value *table =
        g.add_constant(g.unique_name(v->name + ".strings"), pack_strings(v->constant->strings()));
    Node *n = g.add_node("StringConstant", {table}, 1);
    n->outputs[0]->producer = nullptr; // replaced by v below, then erased
    n->domain = "onnxc";
    n->name = v->name;
    n->def = &op_StringConstant();
    // v itself becomes the node's output: it keeps its name, uses and graph-output place.
    n->outputs[0] = v;
    v->producer = n;
    v->producer_index = 0;
    v->constant = nullptr;
  }
  // The new nodes read only constants: they run first.
  std::rotate(g.nodes.begin(), g.nodes.begin() + static_cast<std::ptrdiff_t>(before),
              g.nodes.end());
  std::vector<Value *> pass_through; // appended: they run after their producers
  for (Value *v : g.outputs)
    if (v->type.dtype == DType::String && v->producer && !op_owns_strings(*v->producer) &&
        std::find(pass_through.begin(), pass_through.end(), v) == pass_through.end())
      pass_through.push_back(v);
  for (Value *v : pass_through)
    copy_output(g, v);
  g.erase_unused_values();
  return static_cast<int>(todo.size() + pass_through.size());
}

} // namespace onnxc
