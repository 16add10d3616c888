#include "compiler/passes/fuse_causal_mask.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/fusion_util.h"

#include <cmath>

namespace onnxc {
namespace {

/// Whether v is a one-element float constant -inf.
bool is_minus_inf(const Value *v) {
  return v->constant && v->constant->numel() == 1 &&
         (v->constant->dtype() == DType::Float || v->constant->dtype() == DType::Double) &&
         std::isinf(v->constant->float_at(0)) && v->constant->float_at(0) < 0;
}

/// The off >= 0 for which a [.., L, T] condition that masks where `cond == masked_when` masks
/// exactly the keys j > i + off of every row i (its leading dims all 1, so that every score
/// plane has the same mask), or -1.
int64_t causal_offset(const Tensor &cond, bool masked_when, int64_t L, int64_t T) {
  const std::vector<int64_t> &d = cond.shape();
  if (d.size() < 2 || d[d.size() - 2] != L || d.back() != T || cond.numel() != L * T)
    return -1;
  int64_t off = -1;
  for (int64_t j = 0; j < T; ++j) /* row 0 keeps keys 0..off */
    if ((cond.int_at(j) != 0) != masked_when)
      off = j;
  if (off < 0)
    return -1;
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < T; ++j)
      if (((cond.int_at(i * T + j) != 0) == masked_when) != (j > i + off))
        return -1;
  return off;
}

} // namespace

int fuse_causal_mask(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (auto &np : g.nodes) {
    Node &s = *np;
    if (!is_op(s, "Softmax") || s.opset < 13 || s.inputs.size() != 1 || s.attr(kCausalAttr))
      continue;
    const Value *x = s.inputs[0];
    const Type &xt = x->type;
    if (xt.dtype != DType::Float || !xt.is_static() || xt.rank() < 2)
      continue;
    const int64_t rank = xt.rank();
    const std::vector<int64_t> dims = xt.static_dims();
    const int64_t axis = attr_int(s, "axis", -1);
    if ((axis < 0 ? axis + rank : axis) != rank - 1)
      continue;
    Node *w = x->producer;
    if (!w || !is_op(*w, "Where") || sole_user(x) != &s || w->inputs.size() != 3)
      continue;
    Value *cond = w->inputs[0];
    if (!cond->constant || cond->constant->dtype() != DType::Bool)
      continue;
    const bool inf_first = is_minus_inf(w->inputs[1]);
    if (!inf_first && !is_minus_inf(w->inputs[2]))
      continue;
    Value *scores = w->inputs[inf_first ? 2 : 1];
    if (scores->constant || scores->type.dtype != xt.dtype || !scores->type.is_static() ||
        scores->type.static_dims() != dims)
      continue;
    const int64_t L = dims[size_t(rank - 2)], T = dims.back();
    const int64_t off = causal_offset(*cond->constant, inf_first, L, T);
    if (off < 0)
      continue;
    Attribute a;
    a.kind = Attribute::Kind::Ints;
    a.ints = {L, off};
    s.attrs[kCausalAttr] = a;
    g.set_input(&s, 0, scores);
    record_fused(s, *w);
    dead.insert(w);
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
