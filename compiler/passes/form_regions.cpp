#include "compiler/passes/form_regions.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/op_util.h"

#include <set>

namespace onnxc {
namespace {

Region op_region(Node &n) {
  Region r;
  r.root = &n;
  if (const Attribute *a = n.attr(kFusedNodesAttr))
    r.fused = a->strings;
  if (has_attr(n, kActivationAttr)) {
    r.activation.op = attr_string(n, kActivationAttr, "");
    if (has_attr(n, kActivationParamsAttr)) {
      std::vector<float> ab = attr_floats(n, kActivationParamsAttr);
      ab.resize(2, 0.0f);
      r.activation.a = ab[0], r.activation.b = ab[1];
    }
  }
  r.desc = n.describe();
  r.profile = describe_for_profile(n);
  return r;
}

Region copy_region(Graph &g, Value *src) {
  Region r;
  r.kind = Region::Kind::OutputCopy;
  r.src = src;
  r.dst = g.add_value("", src->type);
  r.dst->name = src->name;
  r.desc = fmt::format("graph output '{}'", src->name);
  r.profile = {r.desc, "Copy", shape_to_string(src->type), shape_to_string(src->type), 0};
  return r;
}

} // namespace

ExecutionPlan form_regions(Graph &g, const std::string &model_name) {
  ExecutionPlan plan;
  plan.model_name = model_name;
  for (auto &n : g.nodes)
    plan.regions.push_back(op_region(*n));
  plan.inputs = g.inputs;
  std::set<Value *> direct; // outputs computed straight into the caller's buffer
  for (Value *v : g.outputs) {
    if (v->producer && direct.insert(v).second) {
      plan.outputs.push_back(v);
      continue;
    }
    plan.regions.push_back(copy_region(g, v));
    plan.outputs.push_back(plan.regions.back().dst);
  }
  return plan;
}

} // namespace onnxc
