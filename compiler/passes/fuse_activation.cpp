#include "compiler/passes/fuse_activation.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/passes/fusion_util.h"

#include <limits>

namespace onnxc {
namespace {

/// An activation to attach: its name (activation_kind), parameters, and the nodes it replaces
/// (the last one produces the value the fused node takes over).
struct Activation {
  std::string name;
  float a = 0, b = 0;
  std::vector<Node *> nodes;
};

/// Whether v converts to float and back unchanged (params are stored as float attributes).
bool float_exact(double v) { return static_cast<double>(static_cast<float>(v)) == v; }

/// Clip's bounds, if constant or absent (then +-inf).
std::optional<Activation> clip_activation(Node &clip) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  Activation act{"Clip", -inf, inf, {&clip}};
  if (clip.opset < 11) {
    act.a = attr_float(clip, "min", -inf);
    act.b = attr_float(clip, "max", inf);
    return act;
  }
  for (size_t i = 1; i < 3; ++i) {
    const Value *v = clip.input(i);
    if (!v)
      continue;
    if (!v->constant || v->constant->numel() != 1)
      return std::nullopt;
    const double x = v->constant->float_at(0);
    if (!float_exact(x))
      return std::nullopt;
    (i == 1 ? act.a : act.b) = static_cast<float>(x);
  }
  return act;
}

/// x * Sigmoid(x): `sig` is a Sigmoid of x whose output only feeds one Mul by x.
std::optional<Activation> silu_activation(const Value *x, Node &sig) {
  Node *mul = sole_user(sig.outputs[0]);
  if (!mul || !is_op(*mul, "Mul") || mul->inputs.size() != 2)
    return std::nullopt;
  const Value *s = sig.outputs[0];
  if (!((mul->inputs[0] == x && mul->inputs[1] == s) ||
        (mul->inputs[0] == s && mul->inputs[1] == x)))
    return std::nullopt;
  return Activation{"Silu", 0, 0, {&sig, mul}};
}

/// The single-node activation `user` applies to x (its only input that matters).
std::optional<Activation> unary_activation(Node &user) {
  if (!user.domain.empty())
    return std::nullopt;
  const std::string &op = user.op_type;
  if (op == "Relu" || op == "Sigmoid" || op == "HardSwish")
    return Activation{op, 0, 0, {&user}};
  if (op == "LeakyRelu")
    return Activation{op, attr_float(user, "alpha", 0.01f), 0, {&user}};
  if (op == "HardSigmoid")
    return Activation{op, attr_float(user, "alpha", 0.2f), attr_float(user, "beta", 0.5f), {&user}};
  if (op == "Clip")
    return clip_activation(user);
  if (op == "Gelu") {
    const std::string a = attr_string(user, "approximate", "none");
    if (a == "none" || a == "tanh")
      return Activation{a == "tanh" ? "GeluTanh" : "Gelu", 0, 0, {&user}};
  }
  return std::nullopt;
}

/// The activation applied to x, if x's users are exactly one activation (or a SiLU pattern).
std::optional<Activation> activation_after(const Value *x) {
  if (x->is_graph_output)
    return std::nullopt;
  if (x->uses.size() == 1 && x->uses[0].index == 0)
    return unary_activation(*x->uses[0].node);
  if (x->uses.size() == 2)
    for (const Use &u : x->uses)
      if (is_op(*u.node, "Sigmoid") && u.index == 0)
        if (auto act = silu_activation(x, *u.node))
          return act;
  return std::nullopt;
}

bool fusable_producer(const Node &n) {
  const DType dt = n.outputs.empty() ? DType::Undefined : n.outputs[0]->type.dtype;
  return (is_op(n, "Conv") || is_op(n, "Gemm") || is_op(n, "MatMul")) &&
         (dt == DType::Float || dt == DType::Double) && !n.attr(kActivationAttr);
}

void attach(Node &n, const Activation &act) {
  Attribute name, params;
  name.kind = Attribute::Kind::String;
  name.s = act.name;
  params.kind = Attribute::Kind::Floats;
  params.floats = {act.a, act.b};
  n.attrs[kActivationAttr] = name;
  n.attrs[kActivationParamsAttr] = params;
  for (size_t i = 0; i + 1 < act.nodes.size(); ++i)
    record_fused(n, *act.nodes[i]);
  take_over_output(n, *act.nodes.back());
}

} // namespace

int fuse_activation(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (auto &np : g.nodes) {
    Node &n = *np;
    if (!fusable_producer(n)) // (absorbed nodes are activations, never producers)
      continue;
    auto act = activation_after(n.outputs[0]);
    if (!act || act->nodes.back()->outputs[0]->type.dtype != n.outputs[0]->type.dtype)
      continue;
    attach(n, *act);
    dead.insert(act->nodes.begin(), act->nodes.end());
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
