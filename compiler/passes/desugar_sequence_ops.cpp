// desugar-sequences: one rewrite per sequence / optional op (see desugar_sequences.h).
#include "compiler/ir/captured.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/tensor/select_shaped.h"
#include "compiler/passes/desugar_sequences_impl.h"

namespace onnxc::desugar {

Item Desugarer::sequence_input(const Node &n, size_t i) {
  Item it = item(n.input(i));
  if (!n.input(i) || it.kind != TypeKind::Sequence)
    node_fail(n, "input {} ('{}') must be a sequence known at compile time", i,
              n.input(i) ? n.input(i)->name : "");
  return it;
}

const Tensor &Desugarer::constant_input(const Node &n, size_t i, const char *what) {
  Value *v = n.input(i);
  if (const Tensor *t = known_value(v))
    return *t;
  node_fail(n,
            "input '{}' must be a compile-time constant (onnxc desugars sequences at "
            "compile time; a run-time {} needs run-time shapes, issue 8); it is computed at "
            "run time from '{}'",
            what, what, v->name);
}

/// The constant position input i of n, normalised into [0, len] (insert) or [0, len).
int64_t Desugarer::position(const Node &n, size_t i, int64_t len, bool insert) {
  const Tensor &t = constant_input(n, i, "position");
  if (t.numel() != 1)
    node_fail(n, "the position must be a scalar, got shape {}", dims_to_string(t.shape()));
  int64_t p = t.int_at(0);
  int64_t hi = insert ? len : len - 1;
  if (p < -len || p > hi)
    node_fail(n, "position {} is out of range for a sequence of length {}", p, len);
  return p < 0 ? p + len : p;
}

/// True when position input i is computed at run time (SequenceAt/Insert/Erase then select
/// their elements with Where: rewrite_at_run_time_position).
bool Desugarer::run_time_position(const Node &n, size_t i) const {
  return n.has_input(i) && !known_value(n.input(i));
}

/// v's static dims: its type's, or a graph input's --shape (bind-shapes runs after this pass).
std::optional<std::vector<int64_t>> Desugarer::known_dims(const Value *v) const {
  if (auto it = selected_.find(v); it != selected_.end()) // a bound: shaped by the run
    return it->second;
  if (v->type.is_static())
    return v->type.static_dims();
  if (auto it = b_.input_shapes.find(v->name); v->is_graph_input && it != b_.input_shapes.end())
    return it->second;
  return std::nullopt;
}

/// Position input i computed at run time, checked and normalised into [0, len] (insert) or
/// [0, len) by a Gather from the table of positions: an index out of range fails the run, as
/// a constant one fails the compile.
Value *Desugarer::checked_position(const Node &n, size_t i, int64_t len, bool insert) {
  Value *pos = n.input(i);
  if (!pos->type.is_static() || product(pos->type.static_dims()) != 1 ||
      (pos->type.dtype != DType::Int64 && pos->type.dtype != DType::Int32))
    node_fail(n, "the position must be an int32 or int64 scalar");
  std::vector<int64_t> table(static_cast<size_t>(insert ? len + 1 : len));
  for (size_t k = 0; k < table.size(); ++k)
    table[k] = static_cast<int64_t>(k);
  Value *p = fresh(n.outputs[0]->name + "_position");
  emit(n, "Reshape", {pos, constant(Tensor::vector_i64({}), "scalar")}, {p});
  if (pos->type.dtype == DType::Int32) {
    Value *wide = fresh(p->name + "_int64");
    Attribute to;
    to.kind = Attribute::Kind::Int;
    to.i = static_cast<int64_t>(DType::Int64);
    emit(n, "Cast", {p}, {wide})->attrs["to"] = to;
    p = wide;
  }
  if (insert) { // -1 inserts before the last element: index -2 of the len + 1 positions
    Value *neg = fresh(n.outputs[0]->name + "_negative"), *shifted = fresh(p->name + "_shifted");
    emit(n, "Less", {p, constant(Tensor::scalar_i64(0), "zero")}, {neg});
    Value *minus = fresh(p->name + "_minus_one");
    emit(n, "Sub", {p, constant(Tensor::scalar_i64(1), "one")}, {minus});
    emit(n, "Where", {neg, minus, p}, {shifted});
    p = shifted;
  }
  Value *at = fresh(n.outputs[0]->name + "_index");
  Node *g = emit(n, "Gather", {constant(Tensor::vector_i64(table), "positions"), p}, {at});
  Attribute &origin = g->attrs[kFusedNodesAttr]; // a position out of range names the op
  origin.kind = Attribute::Kind::Strings;
  origin.strings.push_back(n.describe());
  return at;
}

/// choices[at] (at an int64 scalar computed at run time): a chain of Where on at == k when the
/// choices have one static type, else an onnxc.SelectShaped (one element type and rank:
/// rewrite_at_run_time_position checks), whose output is shaped by the run.
Value *Desugarer::select(const Node &n, Value *at, const std::vector<Value *> &choices) {
  if (std::any_of(choices.begin(), choices.end(), [&](const Value *c) {
        return known_dims(c) != known_dims(choices[0]) || selected_.count(c);
      })) {
    Value *v = fresh(n.outputs[0]->name + "_select");
    std::vector<int64_t> bound = *known_dims(choices[0]);
    for (const Value *c : choices)
      for (size_t k = 0; k < bound.size(); ++k)
        bound[k] = std::max(bound[k], known_dims(c)->at(k));
    selected_[v] = bound;
    std::vector<Value *> ins{at};
    ins.insert(ins.end(), choices.begin(), choices.end());
    Node *s = emit(n, "SelectShaped", ins, {v});
    s->domain = "onnxc";
    s->def = &op_SelectShaped();
    return v;
  }
  Value *v = choices.back();
  for (size_t k = choices.size() - 1; k-- > 0;) {
    Value *is_k = fresh(n.outputs[0]->name + "_is"), *w = fresh(n.outputs[0]->name + "_select");
    emit(n, "Equal", {at, constant(Tensor::scalar_i64(static_cast<int64_t>(k)), "k")}, {is_k});
    emit(n, "Where", {is_k, choices[k], v}, {w});
    w->type = choices[k]->type;
    v = w;
  }
  return v;
}

/// SequenceAt / SequenceInsert / SequenceErase whose position is computed at run time: each
/// element of the result is a Where chain over the elements it may be.
void Desugarer::rewrite_at_run_time_position(Node &n, const Item &seq) {
  const std::string &op = n.op_type;
  const int64_t len = static_cast<int64_t>(seq.elems.size());
  std::vector<Value *> elems;
  for (const Item &e : seq.elems) {
    if (!e.tensor || e.kind != TypeKind::Tensor)
      node_fail(n, "its position is computed at run time, which onnxc supports for sequences "
                   "of tensors only");
    elems.push_back(e.tensor);
  }
  // Each element of the result is one of several: the elements (and an inserted tensor) must
  // have one element type and rank and static shapes (Where chains when the shapes are equal,
  // else onnxc.SelectShaped), else the position must be known at compile time.
  std::vector<Value *> all = elems;
  if (op == "SequenceInsert")
    all.push_back(n.input(1));
  for (const Value *v : all)
    if (!known_dims(v) || v->type.dtype != all[0]->type.dtype ||
        known_dims(v)->size() != known_dims(all[0])->size() || !v->run_time_shape_from.empty() ||
        (known_dims(v) != known_dims(all[0]) &&
         (v->type.dtype == DType::String || dtype_bits(v->type.dtype) % 8 != 0)))
      constant_input(n, op == "SequenceInsert" ? 2 : 1, "position"); // fails, naming it
  if (op == "SequenceAt") {
    if (len == 0)
      node_fail(n, "the sequence '{}' is empty", n.input(0)->name);
    return bind(n, n.outputs[0], item(select(n, checked_position(n, 1, len, false), elems)));
  }
  Item out;
  out.kind = TypeKind::Sequence;
  if (op == "SequenceInsert") { // element k: the tensor at p, seq[k] before, seq[k - 1] after
    Value *p = checked_position(n, 2, len, true), *t = n.input(1);
    for (int64_t k = 0; k <= len; ++k) {
      std::vector<Value *> choices; // indexed by p: positions 0..len
      for (int64_t q = 0; q <= len; ++q)
        choices.push_back(q == k ? t : q > k ? elems[size_t(k)] : elems[size_t(k - 1)]);
      out.elems.push_back(item(select(n, p, choices)));
    }
  } else { // SequenceErase: element k is seq[k] before p, seq[k + 1] from p on
    if (len == 0)
      node_fail(n, "the sequence '{}' is empty; there is nothing to erase", n.input(0)->name);
    Value *p = checked_position(n, 1, len, false);
    for (int64_t k = 0; k + 1 < len; ++k) {
      std::vector<Value *> choices;
      for (int64_t q = 0; q < len; ++q)
        choices.push_back(q > k ? elems[size_t(k)] : elems[size_t(k + 1)]);
      out.elems.push_back(item(select(n, p, choices)));
    }
  }
  bind(n, n.outputs[0], out);
}

/// Dimension `axis` of x, which SplitToSequence without a 1-D split needs at compile time: from
/// x's type, --shape (a graph input) or --dim (a symbolic dim).
int64_t Desugarer::split_dim(const Node &n, const Value *x, int64_t axis) {
  auto bound = b_.input_shapes.find(x->name);
  bool from_flag = x->is_graph_input && bound != b_.input_shapes.end();
  if (!x->type.shape && !from_flag)
    node_fail(n,
              "needs the shape of '{}' at compile time to split it (run-time shapes are "
              "issue 8)",
              x->name);
  std::vector<Dim> dims =
      from_flag ? std::vector<Dim>(bound->second.begin(), bound->second.end()) : *x->type.shape;
  auto a = static_cast<size_t>(normalize_axis(n, axis, static_cast<int64_t>(dims.size())));
  auto param = b_.dims.find(dims[a].param);
  if (!dims[a].is_static() && !dims[a].param.empty() && param != b_.dims.end())
    return param->second;
  if (!dims[a].is_static())
    node_fail(n,
              "needs dimension {} of '{}' at compile time to split it; bind it with "
              "--shape/--dim (run-time shapes are issue 8)",
              a, x->name);
  return dims[a].value;
}

/// SplitToSequence by a scalar `split` s computed at run time, of dimension D: as many elements
/// as D (s = 1), element k of size clamp(D - k*s, 0, s) along `axis` (a Split with those sizes,
/// computed at run time: each element is shaped by the run, those past the end are empty), and
/// the length ceil(D / s) (Item::length: the count of nonzero sizes). An s below 1 makes the
/// sizes sum to 0, not D, which fails the run in the Split.
void Desugarer::split_to_sequence_run_time(Node &n, Value *x, Value *split, int64_t axis) {
  if (owner_)
    node_fail(n,
              "splits by '{}', computed at run time, inside the body of {}: a sequence "
              "whose length the run decides is supported as a graph output of the model "
              "only; give it as a constant (--const-input)",
              split->name, owner_->describe());
  const int64_t d = split_dim(n, x, axis);
  if (d > kMaxRunTimeSequence)
    node_fail(n,
              "splits {} elements by '{}', computed at run time: the sequence could have {} "
              "elements, above the {} that onnxc gives outputs to; give '{}' as a constant "
              "(--const-input)",
              d, split->name, d, kMaxRunTimeSequence, split->name);
  Item seq;
  seq.kind = TypeKind::Sequence;
  if (d == 0) { // no elements whatever the split
    seq.length = constant(Tensor::scalar_i64(0), "length");
    bind(n, n.outputs[0], seq);
    return;
  }
  const std::string base = n.outputs[0]->name;
  Value *s = split;
  if (split->type.dtype != DType::Int64) {
    s = fresh(base + "_split_i64");
    Node *c = emit(n, "Cast", {split}, {s});
    c->attrs["to"].kind = Attribute::Kind::Int;
    c->attrs["to"].i = static_cast<int64_t>(DType::Int64);
  }
  std::vector<int64_t> ks(static_cast<size_t>(d));
  for (int64_t k = 0; k < d; ++k)
    ks[static_cast<size_t>(k)] = k;
  auto op = [&](const char *type, std::vector<Value *> ins, const char *what) {
    Value *o = fresh(base + "_" + what);
    emit(n, type, std::move(ins), {o});
    return o;
  };
  Value *zero = constant(Tensor::scalar_i64(0), "zero");
  // s above D gives one element of D: clamped first, so that k * s cannot overflow.
  Value *dim = constant(Tensor::scalar_i64(d), "dim");
  s = op("Min", {s, dim}, "split_at_most_dim");
  Value *starts = op("Mul", {constant(Tensor::vector_i64(ks), "k"), s}, "starts");
  Value *left = op("Sub", {dim, starts}, "left");
  Value *sizes = op("Max", {op("Min", {left, s}, "capped"), zero}, "sizes");
  std::vector<Value *> parts;
  for (int64_t k = 0; k < d; ++k)
    parts.push_back(fresh(base + "_split"));
  Node *sp = emit(n, "Split", {x, sizes}, parts);
  sp->attrs["axis"].kind = Attribute::Kind::Int;
  sp->attrs["axis"].i = axis;
  Value *nonzero = fresh(base + "_nonzero");
  Node *c = emit(n, "Cast", {op("Greater", {sizes, zero}, "positive")}, {nonzero});
  c->attrs["to"].kind = Attribute::Kind::Int;
  c->attrs["to"].i = static_cast<int64_t>(DType::Int64);
  Value *length = fresh(base + "_length");
  Node *sum = emit(n, "ReduceSum", {nonzero}, {length});
  sum->attrs["keepdims"].kind = Attribute::Kind::Int;
  sum->attrs["keepdims"].i = 0;
  for (Value *p : parts) {
    Item e;
    e.tensor = p;
    seq.elems.push_back(e);
  }
  seq.length = length;
  bind(n, n.outputs[0], seq);
}

void Desugarer::split_to_sequence(Node &n) {
  Value *x = n.input(0);
  int64_t axis = attr_int(n, "axis", 0);
  bool keepdims = attr_int(n, "keepdims", 1) != 0;
  std::vector<int64_t> sizes;
  Value *given = n.input(1);
  if (given && !known_value(given) && given->type.is_static() && given->type.rank() == 1 &&
      given->type.static_dims()[0] >= 1) {
    // 1-D sizes computed at run time: as many elements as sizes, each shaped by the run
    // (a Split with run-time sizes).
    Item seq;
    seq.kind = TypeKind::Sequence;
    std::vector<Value *> parts;
    for (int64_t k = 0; k < given->type.static_dims()[0]; ++k)
      parts.push_back(fresh(n.outputs[0]->name + "_split"));
    Node *s = emit(n, "Split", {x, given}, parts);
    s->attrs["axis"].kind = Attribute::Kind::Int;
    s->attrs["axis"].i = axis;
    for (Value *p : parts) {
      Item e;
      e.tensor = p;
      seq.elems.push_back(e);
    }
    bind(n, n.outputs[0], seq);
    return;
  }
  if (given && !known_value(given) && given->type.is_static() && given->type.rank() == 0)
    return split_to_sequence_run_time(n, x, given, axis);
  const Tensor *split = n.has_input(1) ? &constant_input(n, 1, "split") : nullptr;
  if (!split || split->rank() == 0) {
    int64_t d = split_dim(n, x, axis);
    int64_t step = split ? split->int_at(0) : 1;
    if (step <= 0)
      node_fail(n, "split must be positive, got {}", step);
    for (int64_t k = 0; k < d; k += step)
      sizes.push_back(std::min(step, d - k));
  } else {
    sizes = split->to_int64_vector();
  }
  keepdims = keepdims || split; // ignored when split is given
  Item seq;
  seq.kind = TypeKind::Sequence;
  std::vector<Value *> parts;
  for (size_t k = 0; k < sizes.size(); ++k)
    parts.push_back(fresh(n.outputs[0]->name + "_split"));
  if (!sizes.empty()) {
    Node *s = emit(n, "Split", {x, constant(Tensor::vector_i64(sizes), "split_sizes")}, parts);
    s->attrs["axis"].kind = Attribute::Kind::Int;
    s->attrs["axis"].i = axis;
  }
  for (Value *p : parts) {
    Item e;
    e.tensor = p;
    if (!keepdims) {
      e.tensor = fresh(n.outputs[0]->name + "_elem");
      emit(n, "Squeeze", {p, constant(Tensor::vector_i64({axis}), "axes")}, {e.tensor});
    }
    seq.elems.push_back(e);
  }
  bind(n, n.outputs[0], seq);
}

void Desugarer::concat_from_sequence(Node &n) {
  Item seq = sequence_input(n, 0);
  if (!has_attr(n, "axis"))
    node_fail(n, "the attribute 'axis' is required");
  int64_t axis = attr_int(n, "axis", 0);
  bool new_axis = attr_int(n, "new_axis", 0) != 0;
  if (seq.elems.empty())
    node_fail(n, "the sequence '{}' is empty; there is nothing to concatenate", n.input(0)->name);
  std::vector<Value *> parts;
  for (const Item &e : seq.elems) {
    if (e.kind != TypeKind::Tensor)
      node_fail(n, "the sequence '{}' holds {}, not tensors", n.input(0)->name, a_kind(e.kind));
    Value *p = e.tensor;
    if (new_axis) {
      p = fresh(n.outputs[0]->name + "_unsqueezed");
      emit(n, "Unsqueeze", {e.tensor, constant(Tensor::vector_i64({axis}), "axes")}, {p});
    }
    parts.push_back(p);
  }
  Node *c = emit(n, "Concat", parts, {n.outputs[0]});
  c->attrs["axis"].kind = Attribute::Kind::Int;
  c->attrs["axis"].i = axis;
  n.outputs[0]->type = Type{};
}

/// Copies `body`'s nodes into the graph once (copy `k`), on `map` (body inputs already mapped;
/// body constants and outer stand-ins are mapped here); the copies are handled like the graph's
/// own nodes. A nested subgraph (an If in a Loop body) is deep-copied for each copy.
void Desugarer::instantiate(const Graph &body, const Node &n, std::map<const Value *, Value *> &map,
                            int64_t k) {
  for (const auto &v : body.values) {
    if (v->constant)
      map[v.get()] = constant(*v->constant, v->name);
    else if (is_outer_stand_in(*v)) {
      // The node's captured inputs follow its own, named in order by kCapturedAttr (an input
      // may since stand for another value: a copy's carried sequence).
      const Attribute *names = n.attr(kCapturedAttr);
      const size_t first = explicit_input_count(n);
      for (size_t c = first; c < n.inputs.size(); ++c)
        if (names && c - first < names->strings.size() ? names->strings[c - first] == v->name
                                                       : n.inputs[c]->name == v->name)
          map[v.get()] = n.inputs[c];
    }
  }
  for (const auto &bn : body.nodes) {
    auto c = std::make_unique<Node>();
    c->name = bn->name.empty() ? n.name : n.name + "/" + bn->name;
    c->op_type = bn->op_type;
    c->domain = bn->domain;
    c->opset = bn->opset;
    c->index = n.index;
    c->attrs = bn->attrs;
    for (auto &[key, a] : c->attrs) { // each copy gets its own nested bodies
      if (a.g)
        a.g = clone_graph(*a.g, &g_);
      for (auto &sub : a.graphs)
        if (sub)
          sub = clone_graph(*sub, &g_);
    }
    c->def = bn->def;
    for (Value *v : bn->inputs) {
      auto it = v ? map.find(v) : map.end();
      if (v && it == map.end())
        node_fail(n, "its body reads '{}', which onnxc cannot map into the copy", v->name);
      Value *m = v ? it->second : nullptr;
      if (m)
        m->uses.push_back({c.get(), static_cast<int>(c->inputs.size())});
      c->inputs.push_back(m);
    }
    for (Value *o : bn->outputs) {
      Value *m = fresh(fmt::format("{}_{}", o->name, k));
      m->type = o->type.kind == TypeKind::Tensor ? Type{} : o->type;
      m->producer = c.get();
      m->producer_index = static_cast<int>(c->outputs.size());
      c->outputs.push_back(m);
      map[o] = m;
    }
    handle(std::move(c));
  }
}

/// Copies SequenceMap's body once per element; the copies are handled like the graph's nodes.
void Desugarer::sequence_map(Node &n) {
  Graph &body = *n.attr("body")->g;
  size_t nin = explicit_input_count(n);
  Item first = sequence_input(n, 0);
  size_t len = first.elems.size();
  if (body.inputs.size() != nin || body.outputs.size() != n.outputs.size())
    node_fail(n, "its body takes {} inputs and gives {} outputs, the node has {} and {}",
              body.inputs.size(), body.outputs.size(), nin, n.outputs.size());
  std::vector<Item> outs(n.outputs.size(), Item{TypeKind::Sequence, nullptr, {}});
  for (size_t k = 0; k < len; ++k) {
    std::map<const Value *, Value *> map;
    for (size_t j = 0; j < nin; ++j) {
      Item in = item(n.input(j));
      if (in.kind == TypeKind::Sequence && in.elems.size() != len)
        node_fail(n, "its input sequences have different lengths ({} and {})", len,
                  in.elems.size());
      Item e = in.kind == TypeKind::Sequence ? in.elems[k] : in;
      if (e.kind != TypeKind::Tensor)
        node_fail(n, "input {} holds {}; only tensors can be mapped", j, a_kind(e.kind));
      map[body.inputs[j]] = e.tensor;
    }
    instantiate(body, n, map, static_cast<int64_t>(k));
    for (size_t j = 0; j < outs.size(); ++j) {
      auto m = map.find(body.outputs[j]);
      if (m == map.end())
        node_fail(n, "its body output '{}' is not defined in the body", body.outputs[j]->name);
      outs[j].elems.push_back(item(m->second));
    }
  }
  for (size_t j = 0; j < outs.size(); ++j)
    bind(n, n.outputs[j], outs[j]);
}

Item Desugarer::optional_input(const Node &n) {
  if (!n.has_input(0)) {
    Item empty;
    empty.kind = TypeKind::Optional;
    return empty;
  }
  return item(n.input(0));
}

namespace {

Tensor bool_scalar(bool b) {
  Tensor t(DType::Bool, {});
  t.data()[0] = b ? 1 : 0;
  return t;
}

} // namespace

/// Optional, OptionalHasElement, OptionalGetElement.
void Desugarer::rewrite_optional(Node &n) {
  const std::string &op = n.op_type;
  Value *out = n.outputs[0];
  Item opt = optional_input(n);
  if (op == "Optional") {
    Item wrapped{TypeKind::Optional, nullptr, {}};
    if (n.has_input(0))
      wrapped.elems.push_back(opt);
    bind(n, out, wrapped);
  } else if (op == "OptionalHasElement") {
    bool has = opt.kind != TypeKind::Optional || !opt.elems.empty();
    bind(n, out, Item{TypeKind::Tensor, constant(bool_scalar(has), "has_element"), {}});
  } else {
    if (opt.kind == TypeKind::Optional && opt.elems.empty())
      node_fail(n, "the optional '{}' is empty at compile time; it has no element to get",
                n.input(0) ? n.input(0)->name : "");
    bind(n, out, opt.kind == TypeKind::Optional ? opt.elems[0] : opt);
  }
}

/// SequenceConstruct, SequenceEmpty, SequenceAt, SequenceInsert, SequenceErase, SequenceLength.
void Desugarer::rewrite_list_op(Node &n) {
  const std::string &op = n.op_type;
  Value *out = n.outputs[0];
  Item seq;
  seq.kind = TypeKind::Sequence;
  if (op == "SequenceConstruct") {
    for (Value *v : n.inputs)
      seq.elems.push_back(item(v));
    bind(n, out, seq);
    return;
  }
  if (op == "SequenceEmpty")
    return bind(n, out, seq);
  seq = sequence_input(n, 0);
  int64_t len = static_cast<int64_t>(seq.elems.size());
  if ((op == "SequenceAt" && run_time_position(n, 1)) ||
      (op == "SequenceInsert" && run_time_position(n, 2)) ||
      (op == "SequenceErase" && run_time_position(n, 1)))
    return rewrite_at_run_time_position(n, seq);
  if (op == "SequenceAt") {
    bind(n, out, seq.elems[static_cast<size_t>(position(n, 1, len, false))]);
  } else if (op == "SequenceInsert") {
    int64_t p = n.has_input(2) ? position(n, 2, len, true) : len;
    seq.elems.insert(seq.elems.begin() + p, item(n.input(1)));
    bind(n, out, seq);
  } else if (op == "SequenceErase") {
    if (len == 0)
      node_fail(n, "the sequence '{}' is empty; there is nothing to erase", n.input(0)->name);
    int64_t p = n.has_input(1) ? position(n, 1, len, false) : len - 1;
    seq.elems.erase(seq.elems.begin() + p);
    bind(n, out, seq);
  } else { // SequenceLength
    bind(n, out, Item{TypeKind::Tensor, constant(Tensor::scalar_i64(len), "seq_length"), {}});
  }
}

void Desugarer::rewrite(Node &n) {
  const std::string &op = n.op_type;
  if (n.outputs.empty() || !n.outputs[0])
    node_fail(n, "has no output");
  if (op == "SplitToSequence")
    split_to_sequence(n);
  else if (op == "ConcatFromSequence")
    concat_from_sequence(n);
  else if (op == "SequenceMap")
    sequence_map(n);
  else if (op.rfind("Optional", 0) == 0)
    rewrite_optional(n);
  else
    rewrite_list_op(n);
}

} // namespace onnxc::desugar
