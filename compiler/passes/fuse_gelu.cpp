#include "compiler/passes/fuse_gelu.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/fusion_util.h"

#include <cmath>
#include <map>
#include <unordered_set>

namespace onnxc {
namespace {

/// Most nodes in one decomposition (the tanh form has 9).
constexpr size_t kMaxChainNodes = 16;

bool chain_op(const Node &n) {
  static const char *ops[] = {"Mul", "Add", "Sub", "Div", "Pow", "Erf", "Tanh"};
  if (!n.domain.empty() || n.outputs.size() != 1)
    return false;
  for (const char *op : ops)
    if (n.op_type == op)
      return n.inputs.size() == (n.op_type == "Erf" || n.op_type == "Tanh" ? 1u : 2u);
  return false;
}

bool scalar_constant(const Value *v) { return v->constant && v->constant->numel() == 1; }

/// The chain ending at `last`: every node reached backwards through chain ops whose output is
/// used once (inside the chain); the stops must be scalar constants or one value x.
struct Chain {
  std::vector<Node *> nodes; ///< last first
  Value *x = nullptr;
  bool transcendental = false; ///< holds an Erf or a Tanh
};

bool collect(Node *n, Chain &c, std::unordered_set<const Node *> &seen) {
  if (seen.count(n))
    return true;
  if (c.nodes.size() >= kMaxChainNodes)
    return false;
  seen.insert(n);
  c.nodes.push_back(n);
  c.transcendental |= n->op_type == "Erf" || n->op_type == "Tanh";
  for (Value *in : n->inputs) {
    if (scalar_constant(in))
      continue;
    Node *p = in->producer;
    if (p && chain_op(*p) && in->uses.size() == 1 && !in->is_graph_output) {
      if (!collect(p, c, seen))
        return false;
      continue;
    }
    if (c.x && c.x != in)
      return false;
    c.x = in;
  }
  return true;
}

/// The chain's value at x = xv, in double.
double eval(const Value *v, const Chain &c, double xv, std::map<const Value *, double> &memo) {
  if (v == c.x)
    return xv;
  if (scalar_constant(v))
    return v->constant->float_at(0);
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  const Node &n = *v->producer;
  const double a = eval(n.inputs[0], c, xv, memo);
  const double b = n.inputs.size() > 1 ? eval(n.inputs[1], c, xv, memo) : 0.0;
  double r = 0;
  if (n.op_type == "Mul")
    r = a * b;
  else if (n.op_type == "Add")
    r = a + b;
  else if (n.op_type == "Sub")
    r = a - b;
  else if (n.op_type == "Div")
    r = a / b;
  else if (n.op_type == "Pow")
    r = std::pow(a, b);
  else if (n.op_type == "Erf")
    r = std::erf(a);
  else
    r = std::tanh(a);
  memo[v] = r;
  return r;
}

/// "none" or "tanh" if the chain computes that Gelu of x, else "".
std::string gelu_kind(const Chain &c, const Value *out) {
  static const double points[] = {-4.0, -2.5, -1.3, -0.7, -0.2, -0.01,
                                  0.0,  0.03, 0.4,  0.9,  1.7,  3.2};
  for (const char *kind : {"none", "tanh"}) {
    bool all = true;
    for (double xv : points) {
      std::map<const Value *, double> memo;
      const double got = eval(out, c, xv, memo);
      const double want = kind[0] == 'n' ? 0.5 * xv * (1 + std::erf(xv / std::sqrt(2.0)))
                                         : 0.5 * xv *
                                               (1 + std::tanh(std::sqrt(2 / std::acos(-1.0)) *
                                                              (xv + 0.044715 * xv * xv * xv)));
      if (!(std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)))) {
        all = false;
        break;
      }
    }
    if (all)
      return kind;
  }
  return "";
}

} // namespace

int fuse_gelu(Graph &g) {
  std::unordered_set<const Node *> dead;
  int fused = 0;
  for (auto &np : g.nodes) {
    Node &last = *np;
    if (dead.count(&last) || !chain_op(last))
      continue;
    const DType dt = last.outputs[0]->type.dtype;
    if (dt != DType::Float && dt != DType::Double)
      continue;
    Chain c;
    std::unordered_set<const Node *> seen;
    if (!collect(&last, c, seen) || !c.x || !c.transcendental || c.x->type.dtype != dt ||
        !c.x->type.is_known() || !last.outputs[0]->type.is_known() ||
        c.x->type.sym_dims() != last.outputs[0]->type.sym_dims())
      continue;
    const std::string kind = gelu_kind(c, last.outputs[0]);
    if (kind.empty())
      continue;
    // `last` becomes Gelu(x); it keeps its output value, the rest of the chain goes.
    for (size_t i = 1; i < last.inputs.size(); ++i)
      g.set_input(&last, i, nullptr);
    last.inputs.resize(1);
    g.set_input(&last, 0, c.x);
    last.op_type = "Gelu";
    last.def = find_op("", "Gelu");
    last.opset = 20;
    Attribute approx;
    approx.kind = Attribute::Kind::String;
    approx.s = kind;
    last.attrs.clear();
    last.attrs["approximate"] = approx;
    for (size_t i = 1; i < c.nodes.size(); ++i) {
      record_fused(last, *c.nodes[i]);
      dead.insert(c.nodes[i]);
    }
    ++fused;
  }
  erase_fused(g, dead);
  return fused;
}

} // namespace onnxc
