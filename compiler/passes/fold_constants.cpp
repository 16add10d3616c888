#include "compiler/passes/fold_constants.h"

#include <algorithm>

namespace onnxc {

int fold_constants(Graph &g) {
  auto folded = [](const Node &n) {
    return std::all_of(n.outputs.begin(), n.outputs.end(),
                       [](const Value *o) { return !o || o->constant; });
  };
  int count = 0;
  for (auto &n : g.nodes) {
    if (!folded(*n))
      continue;
    ++count;
    for (Value *o : n->outputs)
      if (o && !o->uses.empty())
        g.initializers.push_back(o);
  }
  g.erase_nodes_if(folded);
  return count;
}

} // namespace onnxc
