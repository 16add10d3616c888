#include "compiler/ir/ir.h"
#include "compiler/ir/error.h"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_set>

namespace onnxc {

Dim::Dim(const SymInt &s) {
  if (auto c = s.as_const()) {
    if (*c < 0)
      fail("dimension {} is negative", *c);
    value = *c;
    return;
  }
  sym = s;
  auto names = s.symbols();
  if (names.size() == 1 && SymInt::symbol(*names.begin()) == s)
    param = *names.begin();
}

SymInt Dim::expr() const {
  if (is_static())
    return value;
  if (!is_known())
    fail("dimension '?' is unknown");
  return sym;
}

std::string Dim::str() const {
  if (is_static())
    return std::to_string(value);
  return is_known() ? sym.str() : "?";
}

bool Type::is_static() const {
  if (!shape)
    return false;
  return std::all_of(shape->begin(), shape->end(), [](const Dim &d) { return d.is_static(); });
}

bool Type::is_known() const {
  if (!shape)
    return false;
  return std::all_of(shape->begin(), shape->end(), [](const Dim &d) { return d.is_known(); });
}

std::vector<int64_t> Type::static_dims() const {
  if (!shape)
    fail("the rank of this value is unknown");
  std::vector<int64_t> out;
  for (const Dim &d : *shape) {
    if (!d.is_static())
      fail("dimension '{}' is symbolic", d.str());
    out.push_back(d.value);
  }
  return out;
}

std::vector<SymInt> Type::sym_dims() const {
  if (!shape)
    fail("the rank of this value is unknown");
  std::vector<SymInt> out;
  for (const Dim &d : *shape)
    out.push_back(d.expr());
  return out;
}

Type Type::of(DType dt, const std::vector<int64_t> &dims) {
  Type t;
  t.dtype = dt;
  t.shape.emplace(dims.begin(), dims.end());
  return t;
}

Type Type::of_sym(DType dt, const std::vector<SymInt> &dims) {
  Type t;
  t.dtype = dt;
  t.shape.emplace();
  for (const SymInt &d : dims)
    t.shape->push_back(Dim(d));
  return t;
}

std::string dims_to_string(const std::vector<int64_t> &dims) {
  if (dims.empty())
    return "scalar";
  return fmt::format("{}", fmt::join(dims, "x"));
}

std::string shape_to_string(const Type &t) {
  if (!t.shape)
    return "?";
  if (t.shape->empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < t.shape->size(); ++i) {
    const Dim &d = (*t.shape)[i];
    if (i)
      s += 'x';
    s += d.is_known() ? shape_dim_text(d.str()) : "?";
  }
  return s;
}

std::string_view attribute_kind_name(Attribute::Kind k) {
  static constexpr std::string_view names[] = {
      "undefined", "float",   "int",     "string", "tensor",        "graph",     "floats",
      "ints",      "strings", "tensors", "graphs", "sparse_tensor", "type_proto"};
  return names[static_cast<int>(k)];
}

const Attribute *Node::attr(const std::string &n) const {
  auto it = attrs.find(n);
  return it == attrs.end() ? nullptr : &it->second;
}

std::string Node::describe() const {
  std::string op = domain.empty() ? op_type : domain + "." + op_type;
  std::string s = name.empty() ? fmt::format("node #{} ({})", index, op)
                               : fmt::format("node '{}' ({}, #{})", name, op, index);
  if (const Attribute *f = attr(kFusedNodesAttr); f && !f->strings.empty())
    s += fmt::format(" fused with {}", fmt::join(f->strings, " and "));
  return s;
}

Value *Graph::add_value(std::string name, Type type) {
  auto v = std::make_unique<Value>();
  v->name = std::move(name);
  v->type = std::move(type);
  Value *raw = v.get();
  if (!raw->name.empty())
    by_name_[raw->name] = raw;
  values.push_back(std::move(v));
  return raw;
}

Value *Graph::add_constant(std::string name, TensorPtr t) {
  Value *v = add_value(std::move(name), Type::of(t->dtype(), t->shape()));
  v->constant = std::move(t);
  return v;
}

Node *Graph::add_node(std::string op_type, std::vector<Value *> ins, size_t num_outputs) {
  auto n = std::make_unique<Node>();
  n->op_type = std::move(op_type);
  n->index = static_cast<int>(nodes.size());
  Node *raw = n.get();
  for (size_t i = 0; i < ins.size(); ++i) {
    raw->inputs.push_back(ins[i]);
    if (ins[i])
      ins[i]->uses.push_back({raw, static_cast<int>(i)});
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    Value *o = add_value(unique_name(raw->op_type + "_out"));
    o->producer = raw;
    o->producer_index = static_cast<int>(i);
    raw->outputs.push_back(o);
  }
  nodes.push_back(std::move(n));
  return raw;
}

Value *Graph::find_value(const std::string &name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

void Graph::set_input(Node *n, size_t slot, Value *v) {
  if (slot >= n->inputs.size())
    n->inputs.resize(slot + 1, nullptr);
  if (Value *old = n->inputs[slot]) {
    auto &u = old->uses;
    u.erase(std::remove_if(u.begin(), u.end(),
                           [&](const Use &x) { return x.node == n && x.index == int(slot); }),
            u.end());
  }
  n->inputs[slot] = v;
  if (v)
    v->uses.push_back({n, static_cast<int>(slot)});
}

void Graph::replace_all_uses_with(Value *from, Value *to) {
  if (from == to)
    return;
  for (const Use &u : from->uses) {
    u.node->inputs[static_cast<size_t>(u.index)] = to;
    to->uses.push_back(u);
  }
  from->uses.clear();
  for (Value *&o : outputs) {
    if (o == from) {
      // A graph output keeps its ONNX name: the caller sees the same signature.
      o = to;
      to->is_graph_output = true;
    }
  }
}

void Graph::drop_uses(Node *n) {
  for (Value *in : n->inputs) {
    if (!in)
      continue;
    auto &u = in->uses;
    u.erase(std::remove_if(u.begin(), u.end(), [&](const Use &x) { return x.node == n; }), u.end());
  }
}

void Graph::erase_unused_values() {
  std::vector<std::unique_ptr<Value>> kept;
  std::unordered_set<const Value *> live;
  for (auto &v : values) {
    bool used = !v->uses.empty() || v->producer || v->is_graph_input ||
                std::find(outputs.begin(), outputs.end(), v.get()) != outputs.end();
    if (used) {
      live.insert(v.get());
      kept.push_back(std::move(v));
    } else if (!v->name.empty()) {
      auto it = by_name_.find(v->name);
      if (it != by_name_.end() && it->second == v.get())
        by_name_.erase(it);
    }
  }
  // Compare pointers only: the erased values are already freed.
  initializers.erase(std::remove_if(initializers.begin(), initializers.end(),
                                    [&](Value *v) { return !live.count(v); }),
                     initializers.end());
  values = std::move(kept);
}

std::string Graph::unique_name(const std::string &base) {
  for (;;) {
    std::string n = fmt::format("{}_{}", base, name_counter_++);
    if (!find_value(n))
      return n;
  }
}

std::shared_ptr<Graph> clone_graph(const Graph &g, Graph *parent) {
  auto c = std::make_shared<Graph>();
  c->name = g.name;
  c->parent = parent;
  c->symbols = g.symbols;
  std::map<const Value *, Value *> map;
  for (const auto &v : g.values) {
    Value *w = c->add_value(v->name, v->type);
    w->constant = v->constant;
    w->sym_value = v->sym_value;
    w->is_graph_input = v->is_graph_input;
    w->is_graph_output = v->is_graph_output;
    w->declared_dims = v->declared_dims;
    map[v.get()] = w;
  }
  auto mapped = [&](const Value *v) { return v ? map.at(v) : nullptr; };
  for (const Value *v : g.inputs)
    c->inputs.push_back(mapped(v));
  for (const Value *v : g.outputs)
    c->outputs.push_back(mapped(v));
  for (const Value *v : g.initializers)
    c->initializers.push_back(mapped(v));
  for (const auto &n : g.nodes) {
    auto m = std::make_unique<Node>();
    m->name = n->name;
    m->op_type = n->op_type;
    m->domain = n->domain;
    m->opset = n->opset;
    m->index = n->index;
    m->def = n->def;
    m->attrs = n->attrs;
    for (auto &[key, a] : m->attrs) { // nested bodies: copies too
      if (a.g)
        a.g = clone_graph(*a.g, c.get());
      for (auto &sub : a.graphs)
        if (sub)
          sub = clone_graph(*sub, c.get());
    }
    for (const Value *v : n->inputs) {
      Value *w = mapped(v);
      if (w)
        w->uses.push_back({m.get(), static_cast<int>(m->inputs.size())});
      m->inputs.push_back(w);
    }
    for (const Value *o : n->outputs) {
      Value *w = mapped(o);
      if (w) {
        w->producer = m.get();
        w->producer_index = static_cast<int>(m->outputs.size());
      }
      m->outputs.push_back(w);
    }
    c->nodes.push_back(std::move(m));
  }
  return c;
}

} // namespace onnxc
