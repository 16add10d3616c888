#include "compiler/passes/eliminate_dead_code.h"

#include <unordered_set>

namespace onnxc {

int eliminate_dead_code(Graph &g) {
  std::unordered_set<const Node *> live;
  std::vector<const Value *> work(g.outputs.begin(), g.outputs.end());
  while (!work.empty()) {
    const Value *v = work.back();
    work.pop_back();
    if (!v->producer || !live.insert(v->producer).second)
      continue;
    for (const Value *in : v->producer->inputs)
      if (in)
        work.push_back(in);
  }
  size_t before = g.nodes.size();
  g.erase_nodes_if([&](const Node &n) { return !live.count(&n); });
  g.erase_unused_values();
  return static_cast<int>(before - g.nodes.size());
}

} // namespace onnxc
