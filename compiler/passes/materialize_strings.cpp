#include "compiler/passes/materialize_strings.h"
#include "compiler/ops/strings/string_util.h"

#include <algorithm>

namespace onnxc {

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
  g.erase_unused_values(); // the outputs add_node made
  // The new nodes read only constants: they run first.
  std::rotate(g.nodes.begin(), g.nodes.begin() + static_cast<std::ptrdiff_t>(before),
              g.nodes.end());
  return static_cast<int>(todo.size());
}

} // namespace onnxc
