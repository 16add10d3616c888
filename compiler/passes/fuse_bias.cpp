#include "compiler/passes/fuse_bias.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/passes/fusion_util.h"

namespace onnxc {
namespace {

/// Whether bias (a constant) adds one value per column to a matrix product of output shape
/// `out`: rank at most out's, every dim but the last 1, the last out's last (N).
bool per_column(const Tensor &bias, const std::vector<int64_t> &out) {
  const std::vector<int64_t> &b = bias.shape();
  if (b.empty() || b.size() > out.size() || b.back() != out.back())
    return false;
  for (size_t i = 0; i + 1 < b.size(); ++i)
    if (b[i] != 1)
      return false;
  return true;
}

/// The bias Add after MatMul n, and the slot of the bias in it; nullptr if there is none.
Node *bias_add(const Node &n, size_t &bias_slot) {
  if (n.inputs.size() != 2 || n.attr(kActivationAttr) || n.attr(kBiasAttr))
    return nullptr;
  const Value *y = n.outputs[0];
  const DType dt = y->type.dtype;
  if ((dt != DType::Float && dt != DType::Double) || !y->type.is_known())
    return nullptr;
  for (const Value *in : n.inputs)
    if (!in->type.is_known() || in->type.rank() < 2)
      return nullptr;
  Node *add = sole_user(y);
  if (!add || !is_op(*add, "Add") || add->inputs.size() != 2 || add->outputs[0]->type.dtype != dt)
    return nullptr;
  bias_slot = add->inputs[0] == y ? 1 : 0;
  const Value *b = add->inputs[bias_slot];
  if (b == y || !b->constant || b->constant->dtype() != dt ||
      !per_column(*b->constant, dims_or_unknown(y->type)))
    return nullptr;
  return add;
}

} // namespace

int fuse_bias(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (auto &np : g.nodes) {
    Node &n = *np;
    if (!is_op(n, "MatMul"))
      continue;
    size_t slot = 0;
    Node *add = bias_add(n, slot);
    if (!add)
      continue;
    absorb_operand(g, n, 2, add->inputs[slot], kBiasAttr, *add);
    dead.insert(add);
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
