#include "compiler/passes/desugar_sequences.h"
#include "compiler/ir/captured.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/desugar_sequences_impl.h"

#include <functional>

#include <algorithm>

namespace onnxc {

bool is_sequence_op(const Node &n) {
  static const char *const kOps[] = {
      "SequenceConstruct", "SequenceEmpty",  "SequenceAt",         "SequenceInsert",
      "SequenceErase",     "SequenceLength", "SplitToSequence",    "ConcatFromSequence",
      "SequenceMap",       "Optional",       "OptionalHasElement", "OptionalGetElement"};
  if (!n.domain.empty())
    return false;
  return std::any_of(std::begin(kOps), std::end(kOps),
                     [&](const char *op) { return n.op_type == op; });
}

namespace desugar {

const char *kind_name(TypeKind k) {
  return k == TypeKind::Sequence ? "sequence" : k == TypeKind::Optional ? "optional" : "tensor";
}

const char *a_kind(TypeKind k) {
  return k == TypeKind::Sequence   ? "a sequence"
         : k == TypeKind::Optional ? "an optional"
                                   : "a tensor";
}

Desugarer::Desugarer(Graph &g, const ShapeBindings &b, const Node *owner)
    : g_(g), b_(b), owner_(owner) {}

Item Desugarer::item(Value *v) const {
  if (!v)
    return Item{};
  auto it = items_.find(v);
  if (it != items_.end())
    return it->second;
  Item t;
  t.tensor = v;
  return t;
}

Value *Desugarer::fresh(const std::string &base) { return g_.add_value(g_.unique_name(base)); }

Value *Desugarer::constant(Tensor t, const std::string &base) {
  Value *c = g_.add_constant(g_.unique_name(base), std::make_shared<const Tensor>(std::move(t)));
  g_.initializers.push_back(c);
  return c;
}

Node *Desugarer::emit(const Node &origin, const std::string &op, std::vector<Value *> ins,
                      std::vector<Value *> outs) {
  auto n = std::make_unique<Node>();
  n->name = origin.name;
  n->op_type = op;
  n->opset = std::max<int64_t>(origin.opset, 13); // Split/Squeeze/Unsqueeze take inputs from 13
  n->index = origin.index;
  n->def = find_op("", op);
  for (Value *v : ins) {
    if (v)
      v->uses.push_back({n.get(), static_cast<int>(n->inputs.size())});
    n->inputs.push_back(v);
  }
  for (Value *o : outs) {
    o->producer = n.get();
    o->producer_index = static_cast<int>(n->outputs.size());
    n->outputs.push_back(o);
  }
  Node *raw = n.get();
  out_.push_back(std::move(n));
  return raw;
}

void Desugarer::bind(const Node &n, Value *out, const Item &it) {
  if (!out)
    return;
  if (it.kind != TypeKind::Tensor) {
    items_[out] = it;
    return;
  }
  if (!it.tensor)
    node_fail(n, "internal error: output '{}' bound to nothing", out->name);
  out->type = Type{};
  emit(n, "Identity", {it.tensor}, {out});
}

void Desugarer::drop(std::unique_ptr<Node> n) {
  changed_ = true;
  for (Value *v : n->inputs)
    if (v)
      std::erase_if(v->uses, [&](const Use &u) { return u.node == n.get(); });
  for (Value *o : n->outputs)
    if (o && o->producer == n.get())
      o->producer = nullptr;
  dead_.push_back(std::move(n));
}

/// A node that is not a sequence op: it must read and produce tensors only; bodies of
/// If/Loop/Scan are desugared on their own.
void Desugarer::check_tensor_node(Node &n) {
  for (Value *v : n.inputs) {
    TypeKind k = items_.count(v) ? items_.at(v).kind : v ? v->type.kind : TypeKind::Tensor;
    if (k != TypeKind::Tensor)
      node_fail(n,
                "reads '{}', {}; onnxc compiles sequences and optionals only through the "
                "sequence ops, with lengths and positions known at compile time ({} carried "
                "by {} would need run-time shapes, issue 8)",
                v->name, a_kind(k), a_kind(k), n.op_type);
  }
  if (n.domain.empty() && n.op_type == "If") {
    desugar_if(n);
    return;
  }
  for (Value *o : n.outputs)
    if (o && o->type.kind != TypeKind::Tensor)
      node_fail(n,
                "produces '{}', {}; onnxc compiles sequences and optionals only through the "
                "sequence ops ({} produced by {} would need run-time shapes, issue 8)",
                o->name, a_kind(o->type.kind), a_kind(o->type.kind), n.op_type);
  for (auto &[key, a] : n.attrs) {
    if (a.g)
      desugar_body(*a.g, n, b_);
    for (auto &sub : a.graphs)
      desugar_body(*sub, n, b_);
  }
}

void Desugarer::handle(std::unique_ptr<Node> n) {
  const bool identity = n->domain.empty() && n->op_type == "Identity";
  for (Value *v : n->inputs) {
    auto it = v && !identity ? items_.find(v) : items_.end();
    if (it != items_.end() && it->second.present)
      node_fail(*n,
                "reads '{}', an optional whose presence the run decides (an If's branches differ "
                "in it), which onnxc supports as a graph output only",
                v->name);
    if (it != items_.end() && it->second.length)
      node_fail(*n,
                "reads '{}', a sequence whose length the run decides (SplitToSequence by a "
                "split computed at run time, a Loop by a trip count or condition computed at run "
                "time), which onnxc supports as a graph output only; give those inputs as "
                "constants (--const-input) to use it here",
                v->name);
  }
  if (identity && n->input(0) && items_.count(n->input(0))) {
    bind(*n, n->outputs[0], items_.at(n->input(0))); // Identity of a sequence / optional
    drop(std::move(n));
  } else if (n->domain.empty() && n->op_type == "If" && n->input(0) && known_value(n->input(0)) &&
             std::any_of(n->inputs.begin(), n->inputs.end(), [&](const Value *v) {
               return v && (items_.count(v) || v->type.kind != TypeKind::Tensor);
             })) { // an If on a known condition that reads a sequence or optional
    inline_known_if(*n, known_value(n->input(0))->int_at(0) != 0);
    drop(std::move(n));
  } else if (carries_sequences(*n)) {
    unroll_loop(*n);
    drop(std::move(n));
  } else if (is_sequence_op(*n)) {
    rewrite(*n);
    drop(std::move(n));
  } else {
    check_tensor_node(*n);
    out_.push_back(std::move(n));
  }
}

void Desugarer::walk() {
  std::vector<std::unique_ptr<Node>> nodes = std::move(g_.nodes);
  g_.nodes.clear();
  for (auto &n : nodes)
    handle(std::move(n));
}

void Desugarer::finish() {
  g_.nodes = std::move(out_);
  out_.clear();
  if (changed_) // a graph without sequences is left exactly as it was
    g_.erase_unused_values();
  dead_.clear();
}

// ---- graph inputs and outputs ----------------------------------------------------------------

Item Desugarer::expand_input(const std::string &name, const Type &t, Value *orig,
                             std::vector<Value *> &flat) {
  Item it;
  it.kind = t.kind;
  if (t.kind == TypeKind::Tensor) {
    if (!orig) {
      if (g_.find_value(name))
        fail("graph input '{}' of a sequence: the name is already used by another value", name);
      orig = g_.add_value(name, t);
    }
    orig->type = t;
    orig->is_graph_input = true;
    flat.push_back(orig);
    it.tensor = orig;
    return it;
  }
  if (!t.elem)
    fail("{}-typed graph input '{}': the model does not give its element type", kind_name(t.kind),
         name);
  if (t.kind == TypeKind::Optional) {
    if (!b_.absent_optionals.count(name))
      it.elems.push_back(expand_input(name, *t.elem, orig, flat));
    return it;
  }
  auto len = b_.sequence_lengths.find(name);
  if (len == b_.sequence_lengths.end())
    fail("sequence-typed graph input '{}': its length must be known at compile time; pass "
         "--seq-length {}=N (its elements become the inputs {}.0 ... {}.<N-1>)",
         name, name, name, name);
  for (int64_t k = 0; k < len->second; ++k)
    it.elems.push_back(expand_input(fmt::format("{}.{}", name, k), *t.elem, nullptr, flat));
  return it;
}

void Desugarer::expand_inputs() {
  for (const auto &[name, n] : b_.sequence_lengths)
    if (n < 0)
      fail("--seq-length {}={}: a length cannot be negative", name, n);
  std::vector<Value *> flat;
  for (Value *v : std::vector<Value *>(g_.inputs)) {
    if (v->type.kind == TypeKind::Tensor) {
      flat.push_back(v);
      continue;
    }
    v->is_graph_input = false;
    changed_ = true;
    bool reuse = v->type.kind == TypeKind::Optional && v->type.elem &&
                 v->type.elem->kind == TypeKind::Tensor;
    Type t = v->type;
    items_[v] = expand_input(v->name, t, reuse ? v : nullptr, flat);
    if (reuse && !items_[v].elems.empty())
      items_.erase(v); // the present optional tensor is the input itself
  }
  for (const auto &[name, n] : b_.sequence_lengths)
    if (!find_in_list(g_.inputs, name))
      fail("--seq-length {}=...: the model has no sequence input named '{}'", name, name);
  for (const std::string &name : b_.absent_optionals)
    if (!find_in_list(g_.inputs, name))
      fail("--absent {}: the model has no optional input named '{}'", name, name);
  g_.inputs = std::move(flat);
}

bool Desugarer::find_in_list(const std::vector<Value *> &list, const std::string &name) {
  return std::any_of(list.begin(), list.end(), [&](const Value *v) {
    return v->name == name && v->type.kind != TypeKind::Tensor;
  });
}

void Desugarer::expand_output(const std::string &name, const Item &it, Value *orig,
                              std::vector<Value *> &flat) {
  if (it.kind == TypeKind::Sequence) {
    if (it.length) { // NAME.length first: how many of the elements after it are elements
      Item len;
      len.tensor = it.length;
      expand_output(name + ".length", len, nullptr, flat);
    }
    for (size_t k = 0; k < it.elems.size(); ++k)
      expand_output(fmt::format("{}.{}", name, k), it.elems[k], nullptr, flat);
    return;
  }
  if (it.kind == TypeKind::Optional) {
    if (it.present) { // NAME.present first; the element's tensors empty when it is absent
      Item flag;
      flag.tensor = it.present;
      expand_output(name + ".present", flag, nullptr, flat);
      std::function<Item(const Item &)> guard = [&](const Item &e) {
        Item g = e;
        if (e.kind == TypeKind::Tensor) {
          Node origin;
          origin.name = name;
          origin.opset = 13;
          g.tensor = guard_rows(origin, e.tensor, it.present);
        }
        for (Item &sub : g.elems)
          sub = guard(sub);
        return g;
      };
      expand_output(name, guard(it.elems[0]), orig, flat);
      return;
    }
    if (!it.elems.empty())
      expand_output(name, it.elems[0], orig, flat);
    return;
  }
  if (!orig) {
    if (g_.find_value(name))
      fail("graph output '{}' of a sequence: the name is already used by another value", name);
    orig = g_.add_value(name);
  }
  Node origin;
  origin.name = name;
  origin.opset = 13;
  bind(origin, orig, it);
  orig->is_graph_output = true;
  flat.push_back(orig);
}

void Desugarer::expand_outputs() {
  std::vector<Value *> flat;
  for (Value *v : g_.outputs) {
    auto it = items_.find(v);
    if (it == items_.end()) {
      if (v->type.kind != TypeKind::Tensor)
        fail("graph output '{}' is {} that onnxc could not resolve at compile time", v->name,
             a_kind(v->type.kind));
      flat.push_back(v);
      continue;
    }
    v->is_graph_output = false;
    changed_ = true;
    Item item = it->second;
    items_.erase(it);
    expand_output(v->name, item, v, flat);
  }
  g_.outputs = std::move(flat);
}

// ---- bodies -------------------------------------------------------------------------------

void desugar_body(Graph &body, const Node &owner, const ShapeBindings &b) {
  for (const Value *v : body.inputs)
    if (v->type.kind != TypeKind::Tensor)
      node_fail(owner,
                "its body input '{}' is {}; {} carried through If/Loop/Scan would need "
                "run-time shapes (issue 8)",
                v->name, a_kind(v->type.kind), a_kind(v->type.kind));
  Desugarer d(body, b, &owner);
  d.walk();
  for (const Value *v : body.outputs)
    if (d.is_composite(v) || v->type.kind != TypeKind::Tensor)
      node_fail(owner,
                "its body output '{}' is a sequence or optional; one produced by "
                "If/Loop/Scan would need run-time shapes (issue 8)",
                v->name);
  d.finish();
}

// ---- If with sequence / optional outputs --------------------------------------------------

namespace {

/// "a sequence of 2", "an empty optional", ...: for messages.
std::string describe_item(const Item &it) {
  if (it.kind == TypeKind::Sequence)
    return fmt::format("a sequence of {}", it.elems.size());
  if (it.kind == TypeKind::Optional)
    return it.elems.empty() ? "an empty optional"
                            : "an optional holding " + describe_item(it.elems[0]);
  return "a tensor";
}

bool same_structure(const Item &a, const Item &b) {
  if (a.kind != b.kind || a.elems.size() != b.elems.size())
    return false;
  for (size_t k = 0; k < a.elems.size(); ++k)
    if (!same_structure(a.elems[k], b.elems[k]))
      return false;
  return true;
}

void flatten(const Item &it, std::vector<Value *> &out) {
  if (it.kind == TypeKind::Tensor)
    out.push_back(it.tensor);
  for (const Item &e : it.elems)
    flatten(e, out);
}

} // namespace

/// An item of `shape`'s structure on fresh outer values named after `base`, appended to `outs`.
Item Desugarer::rebuild(const Item &shape, const std::string &base, std::vector<Value *> &outs) {
  Item it;
  it.kind = shape.kind;
  if (shape.kind == TypeKind::Tensor) {
    it.tensor = fresh(base);
    outs.push_back(it.tensor);
    return it;
  }
  for (size_t k = 0; k < shape.elems.size(); ++k)
    it.elems.push_back(rebuild(shape.elems[k], fmt::format("{}.{}", base, k), outs));
  return it;
}

/// Desugars both branches of an If. When they give sequences / optionals of the same structure
/// (lengths, presence), the If gets one output per element tensor; otherwise it is refused.
void Desugarer::desugar_if(Node &n) {
  const char *names[] = {"then_branch", "else_branch"};
  std::vector<std::unique_ptr<Desugarer>> bodies;
  std::vector<std::vector<Item>> items(2);
  for (int b = 0; b < 2; ++b) {
    const Attribute *a = n.attr(names[b]);
    if (!a || !a->g)
      node_fail(n, "the subgraph attribute '{}' is missing", names[b]);
    bodies.push_back(std::make_unique<Desugarer>(*a->g, b_, &n));
    bodies.back()->walk();
    for (Value *v : a->g->outputs)
      items[b].push_back(bodies.back()->item(v));
  }
  if (items[0].size() != items[1].size() || items[0].size() != n.outputs.size())
    node_fail(n, "its branches give {} and {} outputs, the node has {}", items[0].size(),
              items[1].size(), n.outputs.size());
  bool composite = false;
  std::vector<int> present_in(items[0].size(), -1); // the branch that has the optional's element
  for (size_t j = 0; j < items[0].size(); ++j) {
    const Item &t = items[0][j], &e = items[1][j];
    const bool presence_differs = t.kind == TypeKind::Optional && e.kind == TypeKind::Optional &&
                                  t.elems.empty() != e.elems.empty();
    if (presence_differs && !owner_ && n.outputs[j] && n.outputs[j]->is_graph_output) {
      // Which branch runs is decided at run time: the output's presence too (Item::present).
      const int b = t.elems.empty() ? 1 : 0;
      Item zeros = zeros_of(n, n.outputs[j]->type, items[b][j], *n.attr(names[1 - b])->g);
      items[1 - b][j] = zeros;
      present_in[j] = b;
      composite = true;
      continue;
    }
    if (!same_structure(items[0][j], items[1][j]))
      node_fail(n,
                "output '{}' is {} in then_branch but {} in else_branch; which one is "
                "taken is decided at run time, so its length or presence would be too "
                "(issue 8)",
                n.outputs[j]->name, describe_item(items[0][j]), describe_item(items[1][j]));
    composite = composite || items[0][j].kind != TypeKind::Tensor;
  }
  if (composite)
    flatten_if_outputs(n, items, present_in);
  for (auto &d : bodies)
    d->finish();
}

/// Zeros of the declared type `t` in the structure of `shape` (an optional holding a sequence
/// of 2 tensors...), as constants of `branch`: what the branch without the element gives.
Item Desugarer::zeros_of(const Node &n, const Type &t, const Item &shape, Graph &branch) {
  Item it;
  it.kind = shape.kind;
  if (shape.kind == TypeKind::Tensor) {
    if (t.kind != TypeKind::Tensor || !t.is_static() || t.rank() == 0 || t.dtype == DType::String ||
        t.dtype == DType::Undefined)
      node_fail(n,
                "its branches differ in whether an optional output holds an element, which the "
                "run decides; onnxc then needs the element's tensors declared with a static "
                "shape of rank 1 or more in the model (the output's type), got {}",
                shape_to_string(t));
    Value *c =
        branch.add_constant(branch.unique_name(n.outputs.empty() ? "absent" : n.name + "_absent"),
                            std::make_shared<const Tensor>(Tensor(t.dtype, t.static_dims())));
    branch.initializers.push_back(c);
    it.tensor = c;
    return it;
  }
  if (t.kind != shape.kind || !t.elem)
    node_fail(n, "its branches differ in whether an optional output holds an element, which the "
                 "run decides; onnxc then needs the output's element type declared in the model");
  for (const Item &e : shape.elems)
    it.elems.push_back(zeros_of(n, *t.elem, e, branch));
  return it;
}

/// t with its first dim cut to 0 when `present` (a bool scalar) is false: an absent element.
Value *Desugarer::guard_rows(const Node &origin, Value *t, Value *present) {
  Value *rows = fresh(t->name + "_rows"), *out = fresh(t->name + "_if_present");
  emit(origin, "Where",
       {present, constant(Tensor::vector_i64({INT64_MAX}), "all_rows"),
        constant(Tensor::vector_i64({0}), "no_rows")},
       {rows});
  Value *zero = constant(Tensor::vector_i64({0}), "zero");
  emit(origin, "Slice", {t, zero, rows, zero}, {out});
  return out;
}

void Desugarer::flatten_if_outputs(Node &n, const std::vector<std::vector<Item>> &items,
                                   const std::vector<int> &present_in) {
  changed_ = true;
  const char *names[] = {"then_branch", "else_branch"};
  for (int b = 0; b < 2; ++b) {
    Graph &body = *n.attr(names[b])->g;
    std::vector<Value *> outs;
    for (size_t j = 0; j < items[b].size(); ++j) {
      flatten(items[b][j], outs);
      if (present_in[j] >= 0) { // then whether this branch has the element
        Tensor flag(DType::Bool, {});
        flag.data()[0] = present_in[j] == b ? 1 : 0;
        Value *c = body.add_constant(body.unique_name(n.name + "_present"),
                                     std::make_shared<const Tensor>(std::move(flag)));
        body.initializers.push_back(c);
        outs.push_back(c);
      }
    }
    for (Value *v : body.outputs)
      v->is_graph_output = false;
    for (Value *v : outs)
      v->is_graph_output = true;
    body.outputs = std::move(outs);
  }
  std::vector<Value *> outs;
  for (size_t j = 0; j < items[0].size(); ++j) {
    Value *o = n.outputs[j];
    if (items[0][j].kind == TypeKind::Tensor) {
      outs.push_back(o);
      continue;
    }
    items_[o] = rebuild(items[0][j], o->name, outs);
    if (present_in[j] >= 0) {
      items_[o].present = fresh(o->name + "_present");
      outs.push_back(items_[o].present);
    }
    o->producer = nullptr;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    outs[k]->producer = &n;
    outs[k]->producer_index = static_cast<int>(k);
  }
  n.outputs = std::move(outs);
}

} // namespace desugar

void desugar_sequences(Graph &g, const ShapeBindings &b) {
  desugar::Desugarer d(g, b, nullptr);
  d.expand_inputs();
  d.walk();
  d.expand_outputs();
  d.finish();
}

} // namespace onnxc
