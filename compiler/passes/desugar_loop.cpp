// desugar-sequences: a Loop that carries a sequence or an optional is unrolled at compile time
// (its trip count and condition must be known then), so each iteration's sequence has a length.
#include "compiler/ir/captured.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/tensor/assert.h"
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
    if (p->op_type == "Not" && p->inputs.size() == 1) { // Not(OptionalHasElement(x))
      if (auto it = folded_.find(v); it != folded_.end())
        return it->second.get();
      const Tensor *in = known_value(p->inputs[0]);
      if (!in || in->dtype() != DType::Bool || in->numel() != 1)
        return nullptr;
      Tensor t(DType::Bool, in->shape());
      t.data()[0] = in->int_at(0) != 0 ? 0 : 1;
      return (folded_[v] = std::make_shared<const Tensor>(std::move(t))).get();
    }
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

void Desugarer::inline_known_if(Node &n, bool then) {
  const Attribute *a = n.attr(then ? "then_branch" : "else_branch");
  if (!a || !a->g)
    node_fail(n, "the subgraph attribute '{}' is missing", then ? "then_branch" : "else_branch");
  const Graph &branch = *a->g;
  if (branch.outputs.size() != n.outputs.size())
    node_fail(n, "its {} gives {} outputs, the node has {}", then ? "then_branch" : "else_branch",
              branch.outputs.size(), n.outputs.size());
  std::map<const Value *, Value *> map;
  instantiate(branch, n, map, 0);
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    auto it = map.find(branch.outputs[k]);
    if (it == map.end())
      node_fail(n, "its branch output '{}' is not defined in the branch", branch.outputs[k]->name);
    if (n.outputs[k])
      bind(n, n.outputs[k], item(it->second));
  }
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

namespace {

/// The value of a bool scalar the compiler knows, else nullopt.
std::optional<bool> known_bool(const Tensor *t) {
  if (!t)
    return std::nullopt;
  return t->int_at(0) != 0;
}

} // namespace

/// Copies the body once per iteration: iteration i reads the constant i, the condition and the
/// carried values the previous one produced. Loop outputs are the last carried values.
///
/// When the trip count M or a condition is computed at run time (in the model's graph), the
/// iterations from the first whose running the compiler cannot decide are *guarded*: each is
/// still copied (at most kMaxRunTimeSequence of them), computed whatever the run, and `runs`
/// (i < M and every condition so far) decides what it contributes. Such a loop may carry
/// sequences that it only appends to (and tensors it passes through unchanged): an element
/// appended by a guarded iteration is a Slice of it to 0 rows when the iteration does not run
/// (Where(runs, [max], [0]): "outputs past NAME.length have no elements"), and the sequence's
/// length (Item::length) adds runs as 0/1 times the elements each appends. An onnxc.Assert on
/// that length fails the run when the iteration after the last copy would run.
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
  const Tensor *m_known = n.has_input(0) ? known_value(n.input(0)) : nullptr;
  Value *m_run_time = n.has_input(0) && !m_known ? n.input(0) : nullptr;
  const int64_t trips = m_known ? m_known->int_at(0) : kMaxUnrolledIterations + 1;
  if (!n.has_input(0) && !n.has_input(1))
    node_fail(n, "it has neither a trip count nor a condition: it never ends");
  if (m_known && trips > kMaxUnrolledIterations)
    node_fail(n,
              "it carries a sequence or optional, so onnxc unrolls it at compile time, which "
              "needs a trip count of at most {} (got {})",
              kMaxUnrolledIterations, trips);
  auto op = [&](const char *type, std::vector<Value *> ins, const std::string &what) {
    Value *o = fresh(n.outputs.empty() || !n.outputs[0] ? what : n.outputs[0]->name + "_" + what);
    emit(n, type, std::move(ins), {o});
    return o;
  };
  auto cast = [&](Value *v, DType to, const std::string &what) {
    Value *o = fresh(n.outputs[0]->name + "_" + what);
    Node *c = emit(n, "Cast", {v}, {o});
    c->attrs["to"].kind = Attribute::Kind::Int;
    c->attrs["to"].i = static_cast<int64_t>(to);
    return o;
  };
  std::vector<Item> state; // what the body reads: every earlier iteration ran
  for (size_t j = 0; j < carried; ++j)
    state.push_back(item(n.input(2 + j)));
  std::vector<Item> result = state; // what the loop gives: guarded elements
  std::vector<Value *> length(carried, nullptr);
  Value *cond_value = n.input(1);
  Value *active = nullptr; // iteration i runs when this bool is true (nullptr: it does)
  int64_t guarded = 0;
  Value *runs = nullptr;
  for (int64_t i = 0;; ++i) {
    std::optional<bool> cond = cond_value ? known_bool(known_value(cond_value)) : true;
    if ((cond && !*cond) || (m_known && i >= trips))
      break;
    runs = active;
    auto both = [&](Value *x, Value *y) { return x ? op("And", {x, y}, "runs") : y; };
    if (!cond)
      runs = both(runs, cond_value);
    if (m_run_time)
      runs = both(runs, op("Less", {constant(Tensor::scalar_i64(i), "iteration"), m_run_time},
                           "below_trip_count"));
    if (!runs && i >= kMaxUnrolledIterations)
      node_fail(n,
                "it carries a sequence or optional, so onnxc unrolls it at compile time, and "
                "its conditions keep it running past {} iterations",
                kMaxUnrolledIterations);
    if (runs && owner_)
      node_fail(n,
                "its {} is computed at run time inside the body of {}; a loop carrying a "
                "sequence or optional runs as many iterations as the run decides only in the "
                "model's graph",
                !cond ? "condition" : "trip count", owner_->describe());
    if (runs && guarded == kMaxRunTimeSequence) { // the run must not need another copy
      Node *check = nullptr;
      for (size_t j = 0; j < carried; ++j)
        if (length[j]) {
          Value *checked = fresh(n.outputs[j]->name + "_length_checked");
          check = emit(n, "Assert", {op("Not", {runs}, "stops"), length[j]}, {checked});
          check->domain = "onnxc";
          check->def = &op_Assert();
          check->attrs[kAssertMessageAttr].kind = Attribute::Kind::String;
          check->attrs[kAssertMessageAttr].s = fmt::format(
              "the run takes the Loop past {} iterations, the most onnxc copies a Loop that "
              "carries a sequence into when its trip count or condition is computed at run "
              "time",
              kMaxRunTimeSequence);
          Attribute &origin = check->attrs[kFusedNodesAttr]; // the failure names the Loop
          origin.kind = Attribute::Kind::Strings;
          origin.strings.push_back(n.describe());
          length[j] = checked;
        }
      if (!check)
        node_fail(n, "internal error: a guarded Loop with no sequence to check");
      break;
    }
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
    for (size_t j = 0; j < carried; ++j) {
      Item out = item(map.at(body.outputs[1 + j]));
      if (!runs) {
        state[j] = result[j] = out;
        continue;
      }
      // An optional that an iteration turns into a sequence (test_loop16_seq_none: the body
      // starts one when the optional is empty) counts as that sequence, or none: an empty one.
      auto as_sequence = [&](const Item &it) {
        if (it.kind != TypeKind::Optional || out.kind != TypeKind::Sequence ||
            (!it.elems.empty() && it.elems[0].kind != TypeKind::Sequence))
          return it;
        Item seq = it.elems.empty() ? Item{} : it.elems[0];
        seq.kind = TypeKind::Sequence;
        return seq;
      };
      state[j] = as_sequence(state[j]);
      if (!length[j])
        result[j] = as_sequence(result[j]);
      const Item &in = state[j];
      const bool appends =
          in.kind == TypeKind::Sequence && out.kind == TypeKind::Sequence &&
          out.elems.size() >= in.elems.size() &&
          std::equal(in.elems.begin(), in.elems.end(), out.elems.begin(),
                     [](const Item &x, const Item &y) { return x.tensor && x.tensor == y.tensor; });
      const bool passes =
          in.kind == TypeKind::Tensor && out.kind == TypeKind::Tensor && in.tensor == out.tensor;
      if (!appends && !passes)
        node_fail(n,
                  "its {} is computed at run time, so onnxc copies its body for every iteration "
                  "the run may take, which supports carried sequences that each iteration "
                  "appends tensors to and carried tensors it passes on unchanged; carried value "
                  "{} ('{}') is not one",
                  !cond ? "condition" : "trip count", j, body.inputs[2 + j]->name);
      if (passes)
        continue;
      const size_t added = out.elems.size() - in.elems.size();
      Value *big = constant(Tensor::vector_i64({INT64_MAX}), "all_rows");
      Value *none = constant(Tensor::vector_i64({0}), "no_rows");
      Value *zero = constant(Tensor::vector_i64({0}), "zero");
      Value *rows = added ? op("Where", {runs, big, none}, "rows") : nullptr;
      for (size_t k = in.elems.size(); k < out.elems.size(); ++k) {
        const Item &e = out.elems[k];
        if (e.kind != TypeKind::Tensor)
          node_fail(n,
                    "its body appends {} to a sequence; a loop whose trip count or condition "
                    "is computed at run time may append tensors only",
                    a_kind(e.kind));
        if (auto d = known_dims(e.tensor); d && d->empty())
          node_fail(n, "its body appends scalars to a sequence; a loop whose trip count or "
                       "condition is computed at run time gives each element it may append as an "
                       "output, with no rows when its iteration does not run, which needs elements "
                       "of rank 1 or more");
        Item g;
        g.tensor = op("Slice", {e.tensor, zero, rows, zero}, "element");
        result[j].elems.push_back(g);
      }
      Value *count = op("Mul",
                        {cast(runs, DType::Int64, "ran"),
                         constant(Tensor::scalar_i64(static_cast<int64_t>(added)), "appended")},
                        "appended");
      length[j] =
          op("Add",
             {length[j]
                  ? length[j]
                  : constant(Tensor::scalar_i64(static_cast<int64_t>(in.elems.size())), "length"),
              count},
             "length");
      state[j] = out;
    }
    if (runs)
      ++guarded;
    active = runs;
  }
  for (size_t j = 0; j < carried && j < n.outputs.size(); ++j) {
    if (length[j]) { // NAME.length is a scalar
      result[j].length = fresh(n.outputs[j]->name + "_count");
      emit(n, "Reshape", {length[j], constant(Tensor::vector_i64({}), "scalar")},
           {result[j].length});
    }
    bind(n, n.outputs[j], result[j]);
  }
}

} // namespace onnxc::desugar
