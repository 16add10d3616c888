#include "compiler/passes/fuse_residual.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/passes/fusion_util.h"

#include <algorithm>

namespace onnxc {
namespace {

/// Whether n is a Conv whose output may take a residual: float/double, static output shape,
/// not depthwise (the direct kernel has no residual), nothing fused after it yet.
bool residual_producer(const Node &n) {
  if (!is_op(n, "Conv") || n.outputs.size() != 1 || n.inputs.size() < 2 || n.inputs.size() > 3 ||
      n.attr(kActivationAttr) || n.attr(kResidualAttr))
    return false;
  const Type &y = n.outputs[0]->type;
  if ((y.dtype != DType::Float && y.dtype != DType::Double) || !y.is_static())
    return false;
  const Type &w = n.inputs[1]->type;
  return w.is_static() && w.rank() >= 3 && w.static_dims()[1] > 1; // C / group > 1
}

/// The Add that takes Conv n's output as its residual's partner, and the slot of the residual
/// in it; nullptr if there is none.
Node *residual_add(const Node &n, size_t &slot) {
  const Value *y = n.outputs[0];
  Node *add = sole_user(y);
  if (!add || !is_op(*add, "Add") || add->inputs.size() != 2 || add->outputs.size() != 1)
    return nullptr;
  slot = add->inputs[0] == y ? 1 : 0;
  const Value *r = add->inputs[slot];
  if (r == y || r->type.dtype != y->type.dtype || !r->type.is_static() ||
      r->type.static_dims() != y->type.static_dims() ||
      add->outputs[0]->type.static_dims() != y->type.static_dims())
    return nullptr;
  return add;
}

} // namespace

int fuse_residual(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node &n = *g.nodes[i];
    if (!residual_producer(n)) // (the Adds in `dead` are never Convs)
      continue;
    size_t slot = 0;
    Node *add = residual_add(n, slot);
    if (!add)
      continue;
    absorb_operand(g, n, 3, add->inputs[slot], kResidualAttr, *add);
    dead.insert(add);
    // The Conv now reads the residual, which may be computed after it: it runs where the Add
    // ran (its other inputs are all defined by then, and only the Add used its output).
    auto conv_it = g.nodes.begin() + static_cast<std::ptrdiff_t>(i);
    auto add_it =
        std::find_if(conv_it, g.nodes.end(), [add](const auto &p) { return p.get() == add; });
    std::rotate(conv_it, conv_it + 1, add_it); // the Conv lands just before the Add
    --i;                                       // the node now at i has not been visited
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
