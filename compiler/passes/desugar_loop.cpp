// desugar-sequences: a Loop that carries a sequence or an optional is unrolled at compile time
// (its trip count and condition must be known then), so each iteration's sequence has a length.
#include "compiler/ir/captured.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/desugar_sequences_impl.h"

namespace onnxc::desugar {
namespace {

/// Most iterations a Loop carrying a sequence is unrolled into.
constexpr int64_t kMaxUnrolledIterations = 4096;

} // namespace

/// The value of `v` if the compiler knows it here: a constant, an input compiled in
/// (--const-input), a Constant node or an Identity of one of these.
const Tensor *Desugarer::known_value(Value *v) const {
  for (int hops = 0; v && hops < 64; ++hops) {
    if (v->constant)
      return v->constant.get();
    auto it = b_.input_values.find(v->name);
    if (v->is_graph_input && it != b_.input_values.end())
      return it->second.get();
    const Node *p = v->producer;
    if (!p || !p->domain.empty())
      return nullptr;
    if (p->op_type == "Constant") {
      const Attribute *a = p->attr("value");
      return a && a->t ? a->t.get() : nullptr;
    }
    if (p->op_type != "Identity")
      return nullptr;
    v = p->input(0);
  }
  return nullptr;
}

bool Desugarer::carries_sequences(const Node &n) const {
  if (!n.domain.empty() || n.op_type != "Loop")
    return false;
  for (const Value *v : n.inputs)
    if (v && (items_.count(v) || v->type.kind != TypeKind::Tensor))
      return true;
  const Attribute *a = n.attr("body");
  if (!a || !a->g)
    return false;
  for (const Value *v : a->g->inputs)
    if (v->type.kind != TypeKind::Tensor)
      return true;
  for (const Value *v : a->g->outputs)
    if (v->type.kind != TypeKind::Tensor)
      return true;
  return false;
}

/// Copies the body once per iteration: iteration i reads the constant i, the condition and the
/// carried values the previous one produced. Loop outputs are the last carried values.
void Desugarer::unroll_loop(Node &n) {
  const Attribute *a = n.attr("body");
  if (!a || !a->g)
    node_fail(n, "the subgraph attribute 'body' is missing");
  const Graph &body = *a->g;
  size_t nin = explicit_input_count(n);
  size_t carried = nin >= 2 ? nin - 2 : 0;
  if (body.inputs.size() != carried + 2 || body.outputs.size() < carried + 1)
    node_fail(n, "its body takes {} inputs and gives {} outputs for {} carried values",
              body.inputs.size(), body.outputs.size(), carried);
  if (body.outputs.size() != carried + 1)
    node_fail(n, "it carries a sequence or optional and has scan outputs; onnxc unrolls such a "
                 "loop only without scan outputs");
  int64_t trips = kMaxUnrolledIterations + 1;
  if (n.has_input(0))
    trips = constant_input(n, 0, "M (trip count)").int_at(0);
  bool cond = !n.has_input(1) || constant_input(n, 1, "cond").int_at(0) != 0;
  if (trips > kMaxUnrolledIterations)
    node_fail(n,
              "it carries a sequence or optional, so onnxc unrolls it at compile time, which "
              "needs a trip count of at most {} (got {})",
              kMaxUnrolledIterations, n.has_input(0) ? fmt::format("{}", trips) : "none");
  std::vector<Item> state;
  for (size_t j = 0; j < carried; ++j)
    state.push_back(item(n.input(2 + j)));
  Value *cond_value = n.input(1);
  for (int64_t i = 0; i < trips && cond; ++i) {
    std::map<const Value *, Value *> map;
    map[body.inputs[0]] = constant(Tensor::scalar_i64(i), "iteration");
    map[body.inputs[1]] = cond_value ? cond_value : constant(Tensor::scalar_i64(1), "cond");
    for (size_t j = 0; j < carried; ++j) {
      Value *stand = state[j].kind == TypeKind::Tensor ? state[j].tensor : fresh("carried");
      if (state[j].kind != TypeKind::Tensor)
        items_[stand] = state[j];
      map[body.inputs[2 + j]] = stand;
    }
    instantiate(body, n, map, i);
    cond_value = map.at(body.outputs[0]);
    const Tensor *c = known_value(cond_value);
    if (!c)
      node_fail(n,
                "its condition is computed at run time in iteration {}; a loop carrying a "
                "sequence or optional is unrolled at compile time and needs a known condition "
                "(run-time sequences are issue 8)",
                i);
    cond = c->int_at(0) != 0;
    for (size_t j = 0; j < carried; ++j)
      state[j] = item(map.at(body.outputs[1 + j]));
  }
  for (size_t j = 0; j < carried && j < n.outputs.size(); ++j)
    bind(n, n.outputs[j], state[j]);
}

} // namespace onnxc::desugar
