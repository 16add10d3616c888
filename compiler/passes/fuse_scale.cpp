#include "compiler/passes/fuse_scale.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/passes/fusion_util.h"

namespace onnxc {
namespace {

/// The Mul/Div by a constant scalar after MatMul n, with the scalar and whether it divides;
/// nullptr if there is none.
Node *scale_node(const Node &n, double &s, bool &divide) {
  if (n.inputs.size() != 2 || n.outputs.size() != 1 || n.attr(kActivationAttr) ||
      n.attr(kBiasAttr) || n.attr(kScaleAttr))
    return nullptr;
  const Value *y = n.outputs[0];
  const DType dt = y->type.dtype;
  if ((dt != DType::Float && dt != DType::Double) || !y->type.is_known())
    return nullptr;
  Node *op = sole_user(y);
  if (!op || (!is_op(*op, "Mul") && !is_op(*op, "Div")) || op->inputs.size() != 2 ||
      op->outputs[0]->type.dtype != dt)
    return nullptr;
  divide = is_op(*op, "Div");
  if (divide && op->inputs[0] != y) // c / (A B) is no scale
    return nullptr;
  const Value *c = op->inputs[op->inputs[0] == y ? 1 : 0];
  if (c == y || !c->constant || c->constant->dtype() != dt || c->constant->numel() != 1 ||
      c->constant->rank() > y->type.rank())
    return nullptr;
  s = c->constant->float_at(0);
  if (static_cast<double>(static_cast<float>(s)) != s || (divide && s == 0))
    return nullptr;
  return op;
}

} // namespace

int fuse_scale(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (auto &np : g.nodes) {
    Node &n = *np;
    if (!is_op(n, "MatMul"))
      continue;
    double s = 1;
    bool divide = false;
    Node *op = scale_node(n, s, divide);
    if (!op)
      continue;
    Attribute scale;
    scale.kind = Attribute::Kind::Floats;
    scale.floats = {static_cast<float>(s), divide ? 1.0f : 0.0f};
    n.attrs[kScaleAttr] = scale;
    take_over_output(n, *op);
    dead.insert(op);
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
