#include "compiler/passes/expand_ops.h"
#include "compiler/ir/captured.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/control_flow.h"

#include <cmath>
#include <cstring>

namespace onnxc {
namespace {

/// The ai.onnx opset of the nodes the expansion makes (their semantics are those of opset 21).
constexpr int64_t kExpansionOpset = 21;

/// Builds the expansion of one node: new nodes named after it, in order.
class Expansion {
public:
  Expansion(Graph &g, const Node &n) : g_(g), n_(n) {}

  /// A new single-output node `op` on `ins`.
  Value *add(const char *op, std::vector<Value *> ins,
             std::map<std::string, Attribute> attrs = {}) {
    auto c = std::make_unique<Node>();
    c->name = n_.name;
    c->op_type = op;
    c->opset = kExpansionOpset;
    c->index = n_.index;
    c->def = find_op("", op);
    c->attrs = std::move(attrs);
    for (Value *v : ins) {
      v->uses.push_back({c.get(), static_cast<int>(c->inputs.size())});
      c->inputs.push_back(v);
    }
    Value *out = g_.add_value(g_.unique_name(n_.name.empty() ? "flex" : n_.name + "." + op));
    out->producer = c.get();
    c->outputs = {out};
    nodes_.push_back(std::move(c));
    return out;
  }

  Value *cast(Value *v, DType from, DType to) {
    return from == to ? v : add("Cast", {v}, {{"to", int_attr(static_cast<int64_t>(to))}});
  }

  Value *reshape(Value *v, const std::vector<int64_t> &dims) {
    return add("Reshape", {v, ints(dims)});
  }

  /// The modifier subgraph `attr` of the node applied to v (v itself without one).
  Value *modifier(const char *attr, Value *v) {
    const Attribute *a = n_.attr(attr);
    if (!a || !a->g)
      return v;
    const Graph &body = *a->g;
    if (body.inputs.size() != 1 || body.outputs.size() != 1)
      node_fail(n_, "{} must have one input and one output, not {} and {}", attr,
                body.inputs.size(), body.outputs.size());
    std::map<const Value *, Value *> map = map_branch_sources(n_, body, g_);
    map[body.inputs[0]] = v;
    for (const auto &b : body.nodes)
      nodes_.push_back(clone_into(g_, *b, map));
    return mapped(n_, map, body.outputs[0]);
  }

  /// Replaces the node (at index i of g) by the new nodes; results[k] becomes its output k
  /// (through an Identity that keeps the output's name; omitted outputs are skipped).
  void finish(size_t i, const std::vector<Value *> &results) {
    std::vector<std::pair<Value *, Node *>> outs;
    for (size_t k = 0; k < n_.outputs.size() && k < results.size(); ++k) {
      if (!n_.outputs[k])
        continue;
      auto id = std::make_unique<Node>();
      id->name = n_.name;
      id->op_type = "Identity";
      id->opset = kExpansionOpset;
      id->index = n_.index;
      id->def = find_op("", "Identity");
      results[k]->uses.push_back({id.get(), 0});
      id->inputs = {results[k]};
      id->outputs = {n_.outputs[k]};
      outs.emplace_back(n_.outputs[k], id.get());
      nodes_.push_back(std::move(id));
    }
    const Node *old = &n_;
    g_.erase_nodes_if([old](const Node &x) { return &x == old; });
    for (auto &[out, id] : outs) {
      out->producer = id;
      out->producer_index = 0;
    }
    g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(i),
                    std::make_move_iterator(nodes_.begin()), std::make_move_iterator(nodes_.end()));
  }

  /// An int64 vector constant.
  Value *ints(const std::vector<int64_t> &v) {
    return g_.add_constant(g_.unique_name("expansion_ints"),
                           std::make_shared<Tensor>(Tensor::vector_i64(v)));
  }

  static Attribute int_attr(int64_t v) {
    Attribute a;
    a.kind = Attribute::Kind::Int;
    a.i = v;
    return a;
  }
  static Attribute ints_attr(std::vector<int64_t> v) {
    Attribute a;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(v);
    return a;
  }

  /// A scalar constant of type t (float or double).
  Value *scalar(DType t, double v) {
    Tensor s(t, {});
    if (t == DType::Double)
      std::memcpy(s.data(), &v, sizeof v);
    else {
      float f = static_cast<float>(v);
      std::memcpy(s.data(), &f, sizeof f);
    }
    return g_.add_constant(g_.unique_name("expansion_scalar"),
                           std::make_shared<Tensor>(std::move(s)));
  }

private:
  Graph &g_;
  const Node &n_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

void expand_flex_attention(Graph &g, size_t i) {
  const Node &n = *g.nodes[i];
  if (has_attr(n, "mask_mod"))
    node_fail(n, "the graph attribute 'mask_mod' is not part of FlexAttention (opset 1)");
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double, DType::Float16});
  require_inputs_dtype(n, dt, 1, 3);
  const std::vector<int64_t> q = input_dims(n, 0), k = input_dims(n, 1), v = input_dims(n, 2);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4 || k[0] != q[0] || v[0] != q[0] ||
      k[3] != q[3] || v[1] != k[1] || v[2] != k[2] || k[1] < 1 || q[1] % k[1] != 0)
    node_fail(n,
              "Q {}, K {} and V {} must be 4-D with equal batches, equal K/V heads and lengths, "
              "equal Q/K head sizes, and Q's heads a multiple of K's",
              dims_to_string(q), dims_to_string(k), dims_to_string(v));
  const DType prec = static_cast<DType>(attr_int(
      n, "softmax_precision", static_cast<int64_t>(dt == DType::Double ? dt : DType::Float)));
  if (prec != DType::Float && prec != DType::Double)
    node_fail(n, "softmax_precision {} is not supported (float or double)", dtype_name(prec));
  const double scale =
      has_attr(n, "scale") ? attr_float(n, "scale", 1.0f) : 1.0 / std::sqrt(double(q[3]));
  const int64_t B = q[0], Hq = q[1], L = q[2], Hkv = k[1], S = k[2], G = Hq / Hkv;

  Expansion e(g, n);
  // Query heads h = j * G + r share K/V head j: [B, Hq, L, E] is [B, Hkv, G * L, E].
  Value *qc = e.cast(n.inputs[0], dt, prec), *kc = e.cast(n.inputs[1], dt, prec),
        *vc = e.cast(n.inputs[2], dt, prec);
  if (G > 1)
    qc = e.reshape(qc, {B, Hkv, G * L, q[3]});
  Value *kt = e.add("Transpose", {kc}, {{"perm", Expansion::ints_attr({0, 1, 3, 2})}});
  Value *scores = e.add("MatMul", {qc, kt});
  if (G > 1)
    scores = e.reshape(scores, {B, Hq, L, S});
  scores = e.add("Mul", {scores, e.scalar(prec, scale)});
  scores = e.modifier("score_mod", scores);
  Value *probs = e.add("Softmax", {scores}, {{"axis", Expansion::int_attr(-1)}});
  probs = e.modifier("prob_mod", probs);
  if (G > 1)
    probs = e.reshape(probs, {B, Hkv, G * L, S});
  Value *y = e.add("MatMul", {probs, vc});
  if (G > 1)
    y = e.reshape(y, {B, Hq, L, v[3]});
  e.finish(i, {e.cast(y, prec, dt)});
}

void expand_batchnorm_training(Graph &g, size_t i) {
  const Node &n = *g.nodes[i];
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  require_inputs_dtype(n, dt, 1, 5);
  const std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() < 2)
    node_fail(n, "X must have a channel dim (rank >= 2), not {}", dims_to_string(x));
  const int64_t C = x[1];
  for (size_t k = 1; k < 5; ++k)
    if (input_dims(n, k) != std::vector<int64_t>{C})
      node_fail(n, "input {} must have shape [{}] (X's channels), not {}", k, C,
                dims_to_string(input_dims(n, k)));
  std::vector<int64_t> axes{0}, per_channel(x.size(), 1);
  for (int64_t d = 2; d < static_cast<int64_t>(x.size()); ++d)
    axes.push_back(d);
  per_channel[1] = C;
  const double eps = attr_float(n, "epsilon", 1e-5f), momentum = attr_float(n, "momentum", 0.9f);
  Expansion e(g, n);
  auto reduce_mean = [&](Value *v) {
    return e.add("ReduceMean", {v, e.ints(axes)}, {{"keepdims", Expansion::int_attr(1)}});
  };
  auto running = [&](Value *old, Value *batch) { // old * momentum + batch * (1 - momentum)
    return e.add("Add", {e.add("Mul", {old, e.scalar(dt, momentum)}),
                         e.add("Mul", {e.reshape(batch, {C}), e.scalar(dt, 1.0 - momentum)})});
  };
  Value *mean = reduce_mean(n.inputs[0]);
  Value *centred = e.add("Sub", {n.inputs[0], mean});
  Value *var = reduce_mean(e.add("Mul", {centred, centred}));
  Value *inv_std = e.add("Reciprocal", {e.add("Sqrt", {e.add("Add", {var, e.scalar(dt, eps)})})});
  Value *y = e.add("Mul", {centred, e.add("Mul", {inv_std, e.reshape(n.inputs[1], per_channel)})});
  y = e.add("Add", {y, e.reshape(n.inputs[2], per_channel)});
  e.finish(i, {y, running(n.inputs[3], mean), running(n.inputs[4], var)});
}

Attribute graph_attr(std::shared_ptr<Graph> body) {
  Attribute a;
  a.kind = Attribute::Kind::Graph;
  a.g = std::move(body);
  return a;
}

/// A Scan node (opset 11) in `owner` on `ins` making `outs`, with body and attributes.
std::unique_ptr<Node> scan_node(const Node &like, std::vector<Value *> ins,
                                std::vector<Value *> outs, std::map<std::string, Attribute> attrs) {
  auto s = std::make_unique<Node>();
  s->name = like.name;
  s->op_type = "Scan";
  s->opset = 11;
  s->index = like.index;
  s->def = find_op("", "Scan");
  s->attrs = std::move(attrs);
  for (Value *v : ins) {
    v->uses.push_back({s.get(), static_cast<int>(s->inputs.size())});
    s->inputs.push_back(v);
  }
  for (Value *o : outs) {
    o->producer = s.get();
    o->producer_index = static_cast<int>(s->outputs.size());
    s->outputs.push_back(o);
  }
  return s;
}

/// Scan-8 runs its body over [batch, sequence, ...] inputs per batch entry: an outer Scan over
/// the batch (every input a scan input, every output a scan output stacked on axis 0) whose
/// body is a Scan-11 over the sequence with the original body.
void expand_scan8(Graph &g, size_t i) {
  Node &n = *g.nodes[i];
  const size_t total = explicit_input_count(n);
  const int64_t m = attr_int(n, "num_scan_inputs", 0);
  if (total < 2 || m < 1 || static_cast<size_t>(m) > total - 1)
    node_fail(n, "num_scan_inputs is {} but the node has {} inputs after sequence_lens", m,
              total ? total - 1 : 0);
  const size_t states = total - 1 - static_cast<size_t>(m);
  const std::vector<int64_t> first = input_dims(n, 1 + states);
  if (first.size() < 2)
    node_fail(n, "scan inputs must be [batch, sequence, ...], not {}", dims_to_string(first));
  if (n.has_input(0)) { // only full lengths: shorter ones would need per-entry trip counts
    const Tensor &lens = require_constant(n, 0, "sequence_lens");
    for (int64_t b = 0; b < lens.numel(); ++b)
      if (lens.int_at(b) != first[1])
        node_fail(n,
                  "sequence_lens[{}] is {}, not the full length {} (shorter sequences are not "
                  "supported)",
                  b, lens.int_at(b), first[1]);
  }
  const Attribute *cap = n.attr(kCapturedAttr);
  const std::vector<std::string> captured = cap ? cap->strings : std::vector<std::string>{};
  auto outer = std::make_shared<Graph>();
  outer->name = subgraph(n, "body").name + "_per_batch";
  outer->parent = &g;
  subgraph(n, "body").parent = outer.get();
  std::vector<Value *> inner_ins, inner_outs;
  for (size_t j = 0; j < states + static_cast<size_t>(m); ++j) {
    Value *s = outer->add_value(outer->unique_name(n.inputs[1 + j]->name + "_entry"));
    s->is_graph_input = true;
    outer->inputs.push_back(s);
    inner_ins.push_back(s);
  }
  for (const std::string &name : captured) // stand-ins of the captured values, passed on
    inner_ins.push_back(outer->add_value(name));
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    Value *o = outer->add_value(outer->unique_name("entry_out"));
    o->is_graph_output = true;
    outer->outputs.push_back(o);
    inner_outs.push_back(o);
  }
  std::map<std::string, Attribute> inner_attrs{{"body", n.attrs.at("body")},
                                               {"num_scan_inputs", Expansion::int_attr(m)}};
  if (has_attr(n, "directions"))
    inner_attrs["scan_input_directions"] = Expansion::ints_attr(attr_ints(n, "directions"));
  std::map<std::string, Attribute> outer_attrs{
      {"body", graph_attr(outer)},
      {"num_scan_inputs", Expansion::int_attr(static_cast<int64_t>(states) + m)}};
  if (cap) {
    inner_attrs[kCapturedAttr] = *cap;
    outer_attrs[kCapturedAttr] = *cap;
  }
  outer->nodes.push_back(scan_node(n, inner_ins, inner_outs, std::move(inner_attrs)));
  std::vector<Value *> ins(n.inputs.begin() + 1, n.inputs.end());
  std::vector<Value *> outs = n.outputs;
  auto node = scan_node(n, ins, outs, std::move(outer_attrs));
  const Node *old = &n;
  g.erase_nodes_if([old](const Node &x) { return &x == old; });
  for (size_t k = 0; k < outs.size(); ++k) { // erase_nodes_if cleared the producers
    outs[k]->producer = node.get();
    outs[k]->producer_index = static_cast<int>(k);
  }
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i), std::move(node));
}

/// RandomUniformLike's attributes for a Dropout's draws: its seed (Dropout's seed is an int,
/// the op's a float).
std::map<std::string, Attribute> random_seed(const Node &n) {
  std::map<std::string, Attribute> attrs;
  if (const Attribute *seed = n.attr("seed")) {
    Attribute f;
    f.kind = Attribute::Kind::Float;
    f.f = static_cast<float>(seed->i);
    attrs["seed"] = f;
  }
  return attrs;
}

/// True for a Dropout (opset 12+) whose training_mode is computed at run time, or is a true
/// constant with a ratio computed at run time or a constant ratio that is not 0 (with ratio 0
/// it is a copy, which its own kernel does).
bool is_training_dropout(const Node &n) {
  if (n.op_type != "Dropout" || !n.domain.empty() || n.opset < 12 || !n.has_input(2))
    return false;
  if (!n.inputs[2]->constant)
    return true;
  if (n.inputs[2]->constant->int_at(0) == 0)
    return false;
  return n.has_input(1) && !n.inputs[1]->constant
             ? true
             : (n.has_input(1) ? n.inputs[1]->constant->float_at(0) : 0.5) != 0.0;
}

/// Dropout whose training_mode or ratio is computed at run time: mask = !training_mode ||
/// RandomUniformLike(X) >= ratio, Y = X * mask * (training_mode ? 1 / (1 - ratio) : 1), so that
/// it is a copy (mask all true) in inference mode and with ratio 0.
void expand_run_time_dropout(Graph &g, size_t i) {
  const Node &n = *g.nodes[i];
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  for (size_t k : {size_t{1}, size_t{2}})
    if (n.has_input(k) && !n.inputs[k]->type.is_static())
      node_fail(n, "input {} must be a scalar", k);
  if (n.has_input(1) && product(input_dims(n, 1)) != 1)
    node_fail(n, "ratio must be a scalar, it is {}", shape_to_string(n.inputs[1]->type));
  if (product(input_dims(n, 2)) != 1 || input_dtype(n, 2) != DType::Bool)
    node_fail(n, "training_mode must be a bool scalar, it is {}",
              shape_to_string(n.inputs[2]->type));
  Expansion e(g, n);
  std::map<std::string, Attribute> attrs = random_seed(n);
  Value *ratio = n.has_input(1) ? e.reshape(e.cast(n.inputs[1], input_dtype(n, 1), dt), {})
                                : e.scalar(dt, 0.5);
  Value *training = e.reshape(n.inputs[2], {});
  Value *u = e.add("RandomUniformLike", {n.inputs[0]}, std::move(attrs));
  Value *mask = e.add("Or", {e.add("Not", {training}), e.add("GreaterOrEqual", {u, ratio})});
  Value *scale =
      e.add("Where",
            {training, e.add("Div", {e.scalar(dt, 1.0), e.add("Sub", {e.scalar(dt, 1.0), ratio})}),
             e.scalar(dt, 1.0)});
  Value *kept = e.add("Mul", {n.inputs[0], e.cast(mask, DType::Bool, dt)});
  e.finish(i, {e.add("Mul", {kept, scale}), mask});
}

/// Dropout in training mode: mask = RandomUniformLike(X) >= ratio, Y = X * mask / (1 - ratio).
void expand_training_dropout(Graph &g, size_t i) {
  const Node &n = *g.nodes[i];
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  const double ratio = n.has_input(1) ? require_constant(n, 1, "ratio").float_at(0) : 0.5;
  if (!(ratio > 0.0 && ratio < 1.0))
    node_fail(n, "ratio {} must be in [0, 1)", ratio);
  Expansion e(g, n);
  std::map<std::string, Attribute> attrs = random_seed(n);
  Value *u = e.add("RandomUniformLike", {n.inputs[0]}, std::move(attrs));
  Value *mask = e.add("GreaterOrEqual", {u, e.scalar(dt, ratio)});
  Value *kept = e.add("Mul", {n.inputs[0], e.cast(mask, DType::Bool, dt)});
  e.finish(i, {e.add("Mul", {kept, e.scalar(dt, 1.0 / (1.0 - ratio))}), mask});
}

} // namespace

bool expand_node(Graph &g, size_t i) {
  const Node &n = *g.nodes[i];
  if (n.op_type == "FlexAttention" && n.domain == "ai.onnx.preview" &&
      (has_attr(n, "score_mod") || has_attr(n, "prob_mod"))) {
    expand_flex_attention(g, i);
    return true;
  }
  if (is_training_dropout(n)) {
    const bool run_time = !n.inputs[2]->constant || (n.has_input(1) && !n.inputs[1]->constant);
    run_time ? expand_run_time_dropout(g, i) : expand_training_dropout(g, i);
    return true;
  }
  if (n.op_type == "Scan" && n.domain.empty() && n.opset == 8) {
    expand_scan8(g, i);
    return true;
  }
  if (n.op_type == "BatchNormalization" && n.domain.empty() && n.opset >= 14 &&
      attr_int(n, "training_mode", 0) != 0) {
    expand_batchnorm_training(g, i);
    return true;
  }
  return false;
}

} // namespace onnxc
