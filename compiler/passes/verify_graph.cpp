#include "compiler/passes/verify_graph.h"
#include "compiler/ir/error.h"

#include <unordered_set>

namespace onnxc {
namespace {

size_t count_uses(const Value *v, const Node *n, int slot) {
  size_t c = 0;
  for (const Use &u : v->uses)
    c += (u.node == n && u.index == slot);
  return c;
}

void verify_node_inputs(const Node &n, const std::unordered_set<const Value *> &defined,
                        const Graph &g, const std::string &pass) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value *v = n.inputs[i];
    if (!v)
      continue;
    // Values of enclosing scopes are visible inside subgraphs.
    if (!defined.count(v) && !v->constant && !g.parent)
      fail("IR verifier (after {}): {} uses '{}' before it is defined", pass, n.describe(),
           v->name);
    if (count_uses(v, &n, static_cast<int>(i)) != 1)
      fail("IR verifier (after {}): use-list of '{}' does not record its use by {}", pass,
           v->name, n.describe());
  }
}

} // namespace

void verify_graph(const Graph &g, const std::string &pass) {
  std::unordered_set<const Value *> defined(g.inputs.begin(), g.inputs.end());
  for (const auto &n : g.nodes) {
    verify_node_inputs(*n, defined, g, pass);
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      const Value *o = n->outputs[i];
      if (o->producer != n.get() || o->producer_index != static_cast<int>(i))
        fail("IR verifier (after {}): output '{}' of {} has a wrong producer", pass, o->name,
             n->describe());
      if (!defined.insert(o).second)
        fail("IR verifier (after {}): '{}' is produced twice", pass, o->name);
    }
  }
  for (const auto &v : g.values)
    for (const Use &u : v->uses)
      if (u.node->input(static_cast<size_t>(u.index)) != v.get())
        fail("IR verifier (after {}): stale use of '{}'", pass, v->name);
  for (const Value *o : g.outputs)
    if (!defined.count(o) && !o->constant)
      fail("IR verifier (after {}): graph output '{}' is never produced", pass, o->name);
}

} // namespace onnxc
