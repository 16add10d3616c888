#include "compiler/passes/fuse_transpose.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/fusion_util.h"

namespace onnxc {
namespace {

/// Whether Transpose t swaps exactly the last two of its input's `rank` axes.
bool swaps_last_two(const Node &t, int64_t rank) {
  const Attribute *a = t.attr("perm");
  if (!a || rank < 2 || static_cast<int64_t>(a->ints.size()) != rank)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (a->ints[size_t(i)] != i)
      return false;
  return a->ints[size_t(rank - 2)] == rank - 1 && a->ints[size_t(rank - 1)] == rank - 2;
}

} // namespace

int fuse_transpose(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (auto &np : g.nodes) {
    Node &m = *np;
    if (!is_op(m, "MatMul") || m.inputs.size() < 2 || m.attr(kTransBAttr))
      continue;
    const Value *b = m.inputs[1];
    const DType dt = b->type.dtype;
    if ((dt != DType::Float && dt != DType::Double) || !b->type.is_static() || b->constant)
      continue;
    Node *t = b->producer;
    if (!t || !is_op(*t, "Transpose") || sole_user(b) != &m || t->inputs.size() != 1)
      continue;
    Value *src = t->inputs[0];
    if (!src->type.is_static() || !swaps_last_two(*t, src->type.rank()))
      continue;
    Attribute a;
    a.kind = Attribute::Kind::Int;
    a.i = 1;
    m.attrs[kTransBAttr] = a;
    g.set_input(&m, 1, src);
    record_fused(m, *t);
    dead.insert(t);
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
