#include "compiler/passes/control_flow.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/eliminate_dead_code.h"
#include "compiler/passes/fold_constants.h"

#include <map>

namespace onnxc {
namespace {

bool is_op(const Node &n, const char *op) { return n.domain.empty() && n.op_type == op; }

/// Binds the body's stand-ins for the node's captured inputs: an outer constant becomes a body
/// constant (so the body can fold with it), any other outer value lends its type.
void bind_captured(const Node &n, Graph &body) {
  const Attribute *c = n.attr(kCapturedAttr);
  if (!c)
    return;
  size_t first = explicit_input_count(n);
  for (size_t k = 0; k < c->strings.size(); ++k) {
    Value *s = body.find_value(c->strings[k]);
    if (!s || !is_outer_stand_in(*s))
      continue;
    const Value *outer = n.inputs[first + k];
    if (outer->constant)
      body.replace_all_uses_with(s, body.add_constant(body.unique_name(s->name), outer->constant));
    else
      s->type = outer->type;
  }
}

/// Infers a body whose inputs have their types: the same passes as the enclosing graph.
void infer_body(const Node &n, Graph &body, const InferOptions &opts) {
  bind_captured(n, body);
  infer_shapes(body, opts);
  fold_constants(body);
  eliminate_dead_code(body);
}

void set_body_input(const Node &n, Graph &body, size_t i, DType dt,
                    const std::vector<int64_t> &dims) {
  if (i >= body.inputs.size())
    node_fail(n, "the body has {} inputs, fewer than the op needs", body.inputs.size());
  body.inputs[i]->type = Type::of(dt, dims);
}

void check_body_outputs(const Node &n, const Graph &body, size_t want) {
  if (body.outputs.size() != want)
    node_fail(n, "the body has {} outputs where {} are needed", body.outputs.size(), want);
}

std::vector<int64_t> dims_of(const Value *v) { return v->type.static_dims(); }

// ---- If -----------------------------------------------------------------------------------

/// Infers a branch; returns the error message if its shapes cannot be inferred.
std::string try_infer_branch(const Node &n, Graph &branch, const InferOptions &opts) {
  try {
    infer_body(n, branch, opts);
    check_body_outputs(n, branch, n.outputs.size());
  } catch (const Error &e) {
    return e.what();
  }
  return {};
}

/// True when dims `lo` are dims `hi` without some leading 1s (a scalar and [1], [3] and [1, 3]):
/// the same elements, and any broadcast with an input of at least hi's rank gives one result.
bool same_but_leading_ones(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi) {
  if (lo.size() >= hi.size())
    return false;
  const size_t pad = hi.size() - lo.size();
  return std::all_of(hi.begin(), hi.begin() + static_cast<std::ptrdiff_t>(pad),
                     [](int64_t d) { return d == 1; }) &&
         std::equal(lo.begin(), lo.end(), hi.begin() + static_cast<std::ptrdiff_t>(pad));
}

/// Gives `branch`'s output k the dims `dims` (a Reshape at the branch's end).
void pad_branch_output(const Node &n, Graph &branch, size_t k, const std::vector<int64_t> &dims) {
  Value *out = branch.outputs[k];
  Value *shape = branch.add_constant(branch.unique_name(out->name + "_padded_shape"),
                                     std::make_shared<const Tensor>(Tensor::vector_i64(dims)));
  branch.initializers.push_back(shape);
  Value *padded = branch.add_value(branch.unique_name(out->name + "_padded"));
  padded->type = Type::of(out->type.dtype, dims);
  auto r = std::make_unique<Node>();
  r->name = n.name;
  r->op_type = "Reshape";
  r->opset = std::max<int64_t>(n.opset, 13);
  r->index = n.index;
  r->def = find_op("", "Reshape");
  r->inputs = {out, shape};
  out->uses.push_back({r.get(), 0});
  shape->uses.push_back({r.get(), 1});
  r->outputs = {padded};
  padded->producer = r.get();
  padded->producer_index = 0;
  branch.nodes.push_back(std::move(r));
  branch.outputs[k] = padded;
  padded->is_graph_output = true;
  out->is_graph_output = std::count(branch.outputs.begin(), branch.outputs.end(), out) > 0;
}

void infer_if(Node &n, const InferOptions &opts) {
  Graph &then_g = subgraph(n, "then_branch"), &else_g = subgraph(n, "else_branch");
  std::string then_err = try_infer_branch(n, then_g, opts);
  std::string else_err = try_infer_branch(n, else_g, opts);
  if (!then_err.empty() && !else_err.empty())
    throw Error("then_branch: " + then_err);
  if (!then_err.empty() || !else_err.empty()) {
    Attribute a;
    a.kind = Attribute::Kind::Strings;
    a.strings = {then_err.empty() ? "else_branch" : "then_branch",
                 then_err.empty() ? else_err : then_err};
    n.attrs[kUncompiledBranchAttr] = a;
    const Graph &ok = then_err.empty() ? then_g : else_g;
    for (size_t k = 0; k < n.outputs.size(); ++k)
      set_output(n, k, ok.outputs[k]->type.dtype, ok.outputs[k]->type.static_dims());
    return;
  }
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const Type &a = then_g.outputs[k]->type, &b = else_g.outputs[k]->type;
    if (a.dtype == b.dtype && a.is_static() && b.is_static() &&
        (same_but_leading_ones(a.static_dims(), b.static_dims()) ||
         same_but_leading_ones(b.static_dims(), a.static_dims()))) {
      const bool then_low = a.rank() < b.rank();
      const std::vector<int64_t> hi = then_low ? b.static_dims() : a.static_dims();
      const int64_t lo = std::min(a.rank(), b.rank());
      pad_branch_output(n, then_low ? then_g : else_g, k, hi);
      set_output(n, k, a.dtype, hi);
      n.outputs[k]->broadcast_rank_from = lo;
      continue;
    }
    if (a.dtype != b.dtype || a.static_dims() != b.static_dims())
      node_fail(n,
                "output {} ('{}') is {} {} in then_branch but {} {} in else_branch; onnxc "
                "compiles an If with a run-time condition only when both branches produce the "
                "same type and static shape: the condition must be a compile-time constant "
                "here; {}",
                k, n.outputs[k]->name, dtype_name(a.dtype), shape_to_string(a), dtype_name(b.dtype),
                shape_to_string(b), computed_from(n.inputs[0]));
    set_output(n, k, a.dtype, a.static_dims());
  }
}

// ---- Loop ---------------------------------------------------------------------------------

/// True when every iteration's condition is known to be true (no early exit).
/// True if the body's condition output is its condition input or constant true.
static bool body_keeps_cond(const Graph &body) {
  const Value *out = body.outputs[0];
  while (out->producer && is_op(*out->producer, "Identity"))
    out = out->producer->inputs[0];
  return out == body.inputs[1] || (out->constant && out->constant->int_at(0) != 0);
}

bool loop_never_exits_early(const Node &n, const Graph &body) {
  const Value *cond = n.input(1);
  bool init_true = !cond || (cond->constant && cond->constant->int_at(0) != 0);
  return init_true && body_keeps_cond(body);
}

void infer_loop(Node &n, const InferOptions &opts) {
  Graph &body = subgraph(n, "body");
  size_t states = explicit_input_count(n) - 2;
  if (explicit_input_count(n) < 2 || body.inputs.size() != states + 2)
    node_fail(n, "the body has {} inputs; a Loop with {} loop-carried values needs {}",
              body.inputs.size(), states, states + 2);
  set_body_input(n, body, 0, DType::Int64, {});
  set_body_input(n, body, 1, DType::Bool, {});
  for (size_t j = 0; j < states; ++j)
    set_body_input(n, body, 2 + j, input_dtype(n, 2 + j), input_dims(n, 2 + j));
  infer_body(n, body, opts);
  if (body.outputs.size() < states + 1 || n.outputs.size() != body.outputs.size() - 1)
    node_fail(n, "the body has {} outputs, which does not match the Loop's {} outputs",
              body.outputs.size(), n.outputs.size());
  for (size_t j = 0; j < states; ++j) {
    const Value *in = body.inputs[2 + j], *out = body.outputs[1 + j];
    if (out->type.dtype != in->type.dtype || dims_of(out) != dims_of(in))
      node_fail(n,
                "loop-carried value '{}' is {} on entry but {} after an iteration; onnxc compiles "
                "only loops whose shapes stay the same across iterations (static shapes)",
                in->name, shape_to_string(in->type), shape_to_string(out->type));
    set_output(n, j, in->type.dtype, dims_of(in));
  }
  size_t scans = body.outputs.size() - 1 - states;
  if (scans == 0)
    return;
  if (!n.input(0) || !n.input(0)->constant || !loop_never_exits_early(n, body)) {
    // The run decides how many iterations there are: each scan output is shaped by the run,
    // its buffer grown as iterations append to it (lower_control_flow: onnxc_k_scan_append).
    const size_t from = n.input(0) && !n.input(0)->constant ? 0 : n.input(1) ? 1 : 0;
    if (!n.input(from))
      node_fail(n, "scan outputs (here {}) of a Loop with neither M nor cond are not supported",
                scans);
    for (size_t k = 0; k < scans; ++k) {
      const Value *out = body.outputs[1 + states + k];
      std::vector<int64_t> dims = dims_of(out);
      dims.insert(dims.begin(), 1);
      set_run_time_shaped_output(n, states + k, out->type.dtype, dims, from);
      if (out->type.dtype == DType::String || dtype_bits(out->type.dtype) % 8 != 0)
        node_fail(n, "scan output {} of type {} needs a trip count known at compile time", k,
                  dtype_name(out->type.dtype));
    }
    return;
  }
  int64_t trips = std::max<int64_t>(n.input(0)->constant->int_at(0), 0);
  for (size_t k = 0; k < scans; ++k) {
    const Value *out = body.outputs[1 + states + k];
    std::vector<int64_t> dims = dims_of(out);
    dims.insert(dims.begin(), trips);
    set_output(n, states + k, out->type.dtype, dims);
  }
}

// ---- Scan ---------------------------------------------------------------------------------

int64_t normalized_axis(const Node &n, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    node_fail(n, "axis {} is out of range for rank {}", axis, rank);
  return axis < 0 ? axis + rank : axis;
}

int64_t scan_input_axis(const Node &n, size_t k) {
  size_t first = explicit_input_count(n) - static_cast<size_t>(attr_int(n, "num_scan_inputs", 0));
  std::vector<int64_t> axes = attr_ints(n, "scan_input_axes", {});
  int64_t axis = k < axes.size() ? axes[k] : 0;
  return normalized_axis(n, axis, static_cast<int64_t>(input_dims(n, first + k).size()));
}

void infer_scan(Node &n, const InferOptions &opts) {
  Graph &body = subgraph(n, "body");
  int64_t m = attr_int(n, "num_scan_inputs", 0);
  size_t total = explicit_input_count(n);
  if (m < 1 || static_cast<size_t>(m) > total)
    node_fail(n, "num_scan_inputs is {} but the node has {} inputs", m, total);
  size_t states = total - static_cast<size_t>(m);
  if (body.inputs.size() != total)
    node_fail(n, "the body has {} inputs where {} are needed", body.inputs.size(), total);
  for (size_t j = 0; j < states; ++j)
    set_body_input(n, body, j, input_dtype(n, j), input_dims(n, j));
  int64_t trips = static_trip_count(n);
  for (size_t k = 0; k < static_cast<size_t>(m); ++k) {
    std::vector<int64_t> dims = input_dims(n, states + k);
    int64_t axis = scan_input_axis(n, k);
    if (dims[static_cast<size_t>(axis)] != trips)
      node_fail(n, "scan inputs have different lengths ({} and {})", trips,
                dims[static_cast<size_t>(axis)]);
    dims.erase(dims.begin() + axis);
    set_body_input(n, body, states + k, input_dtype(n, states + k), dims);
  }
  infer_body(n, body, opts);
  check_body_outputs(n, body, n.outputs.size());
  std::vector<int64_t> out_axes = attr_ints(n, "scan_output_axes", {});
  for (size_t j = 0; j < n.outputs.size(); ++j) {
    const Value *out = body.outputs[j];
    std::vector<int64_t> dims = dims_of(out);
    if (j < states) {
      if (out->type.dtype != input_dtype(n, j) || dims != input_dims(n, j))
        node_fail(n,
                  "state '{}' is {} on entry but {} after an iteration; onnxc needs static "
                  "shapes across iterations",
                  body.inputs[j]->name, shape_to_string(body.inputs[j]->type),
                  shape_to_string(out->type));
    } else {
      size_t k = j - states;
      int64_t axis = k < out_axes.size() ? out_axes[k] : 0;
      axis = normalized_axis(n, axis, static_cast<int64_t>(dims.size()) + 1);
      dims.insert(dims.begin() + axis, trips);
    }
    set_output(n, j, out->type.dtype, dims);
  }
}

} // namespace

// ---- If with a constant condition: inlined --------------------------------------------------

std::string fresh_name(Graph &g, const std::string &name) {
  return name.empty() || g.find_value(name) ? g.unique_name(name.empty() ? "v" : name) : name;
}

/// Maps the branch's captured stand-ins and constants to values of g.
std::map<const Value *, Value *> map_branch_sources(const Node &n, const Graph &branch, Graph &g) {
  std::map<const Value *, Value *> map;
  if (const Attribute *c = n.attr(kCapturedAttr))
    for (size_t k = 0; k < c->strings.size(); ++k)
      if (Value *s = branch.find_value(c->strings[k]))
        map[s] = n.inputs[explicit_input_count(n) + k];
  for (const auto &v : branch.values)
    if (v->constant && !map.count(v.get()))
      map[v.get()] = g.add_constant(fresh_name(g, v->name), v->constant);
  return map;
}

Value *mapped(const Node &n, const std::map<const Value *, Value *> &map, const Value *v) {
  auto it = map.find(v);
  if (it == map.end())
    node_fail(n, "internal error: branch value '{}' is not defined", v->name);
  return it->second;
}

/// A copy of branch node `b` in g, on the mapped values; its outputs are added to `map`.
std::unique_ptr<Node> clone_into(Graph &g, const Node &b, std::map<const Value *, Value *> &map) {
  auto c = std::make_unique<Node>();
  c->name = b.name;
  c->op_type = b.op_type;
  c->domain = b.domain;
  c->opset = b.opset;
  c->index = b.index;
  c->attrs = b.attrs;
  c->def = b.def;
  for (const Value *v : b.inputs) {
    Value *m = v ? mapped(b, map, v) : nullptr;
    if (m)
      m->uses.push_back({c.get(), static_cast<int>(c->inputs.size())});
    c->inputs.push_back(m);
  }
  for (const Value *o : b.outputs) {
    Value *m = g.add_value(fresh_name(g, o->name), o->type);
    m->producer = c.get();
    m->producer_index = static_cast<int>(c->outputs.size());
    c->outputs.push_back(m);
    map[o] = m;
  }
  for (auto &[key, a] : c->attrs) {
    if (a.g)
      a.g->parent = &g;
    for (auto &sub : a.graphs)
      sub->parent = &g;
  }
  return c;
}

bool is_control_flow(const Node &n) {
  return is_op(n, "If") || is_op(n, "Loop") || is_op(n, "Scan");
}

Graph &subgraph(const Node &n, const std::string &name) {
  const Attribute *a = n.attr(name);
  if (!a || !a->g)
    node_fail(n, "the subgraph attribute '{}' is missing", name);
  return *a->g;
}

int64_t static_trip_count(const Node &n) {
  if (is_op(n, "Loop"))
    return std::max<int64_t>(n.input(0)->constant->int_at(0), 0);
  size_t first = explicit_input_count(n) - static_cast<size_t>(attr_int(n, "num_scan_inputs", 0));
  return input_dims(n, first)[static_cast<size_t>(scan_input_axis(n, 0))];
}

void infer_control_flow(Node &n, const InferOptions &opts) {
  if (is_op(n, "If"))
    infer_if(n, opts);
  else if (is_op(n, "Loop"))
    infer_loop(n, opts);
  else
    infer_scan(n, opts);
}

bool inline_constant_if(Graph &g, size_t i) {
  Node *n = g.nodes[i].get();
  if (!is_op(*n, "If") || !n->input(0) || !n->input(0)->constant)
    return false;
  bool then = n->input(0)->constant->int_at(0) != 0;
  const Graph &branch = subgraph(*n, then ? "then_branch" : "else_branch");
  check_body_outputs(*n, branch, n->outputs.size());
  std::map<const Value *, Value *> map = map_branch_sources(*n, branch, g);
  std::vector<std::unique_ptr<Node>> fresh;
  for (const auto &b : branch.nodes)
    fresh.push_back(clone_into(g, *b, map));
  // Each If output becomes Identity(branch output): it keeps its name and its uses.
  std::vector<Value *> outs = n->outputs;
  std::vector<Node *> ids;
  for (size_t k = 0; k < outs.size(); ++k) {
    auto id = std::make_unique<Node>();
    id->name = n->name;
    id->op_type = "Identity";
    id->opset = n->opset;
    id->index = n->index;
    id->def = find_op("", "Identity");
    Value *src = mapped(*n, map, branch.outputs[k]);
    src->uses.push_back({id.get(), 0});
    id->inputs = {src};
    id->outputs = {outs[k]};
    ids.push_back(id.get());
    fresh.push_back(std::move(id));
  }
  g.erase_nodes_if([n](const Node &x) { return &x == n; });
  for (size_t k = 0; k < outs.size(); ++k) {
    outs[k]->producer = ids[k];
    outs[k]->producer_index = 0;
  }
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i),
                 std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
  return true;
}

} // namespace onnxc
