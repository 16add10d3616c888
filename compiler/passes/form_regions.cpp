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

/// After a node whose input is shaped at run time (infer-shapes admits only element-wise ops
/// of it, Value::run_time_bounded): its outputs get that input's shape. (An element-wise op of
/// a value whose data lives in run-scoped memory records its outputs' shape as it takes their
/// memory: RunTimeData::Kind::Like.)
void add_shape_copies(ExecutionPlan &plan, const Node &n) {
  const Value *src = shape_copy_source(n);
  if (!src)
    return;
  for (Value *o : n.outputs) {
    if (!o)
      continue;
    Region r;
    r.kind = Region::Kind::ShapeCopy;
    r.src = const_cast<Value *>(src);
    r.dst = o;
    r.desc = n.describe();
    r.profile = {r.desc, "ShapeCopy", shape_to_string(src->type), shape_to_string(o->type), 0};
    plan.regions.push_back(std::move(r));
  }
}

/// The values shaped at run time in g and the bodies of its nodes, and whether a node reads
/// the run's table for one (an element-wise op of it, Shape, Slice...: any use).
void count_shaped(const Graph &g, std::set<const Value *> &shaped, bool &read) {
  for (const auto &n : g.nodes) {
    for (const Value *v : n->inputs)
      read = read || (v && !v->run_time_shape_from.empty());
    for (const Value *o : n->outputs)
      if (o && !o->run_time_shape_from.empty())
        shaped.insert(o);
    for (const auto &[name, a] : n->attrs) {
      if (a.g)
        count_shaped(*a.g, shaped, read);
      for (const auto &body : a.graphs)
        if (body)
          count_shaped(*body, shaped, read);
    }
  }
}

} // namespace

Value *shape_copy_source(const Node &n) {
  Value *src = first_run_time_shaped_input(n);
  if (!src || src->run_time_data() ||
      (n.def && (n.def->run_time_shaped_input || n.def->run_time_shaped_inputs)))
    return nullptr; // (Shape, Slice, SelectShaped... report their outputs' shapes themselves)
  return src;
}

ExecutionPlan form_regions(Graph &g, const std::string &model_name) {
  ExecutionPlan plan;
  plan.model_name = model_name;
  for (auto &n : g.nodes) {
    plan.regions.push_back(op_region(*n));
    add_shape_copies(plan, *n);
  }
  // The run keeps the newest kMaxRunTimeShapes shapes (and where the data of values with no
  // bound is) by buffer, for the nodes that read them (ONNXC_MAX_RUN_TIME_SHAPES,
  // runtime_stub/stub_internal.h): every value shaped at run time, in bodies too, takes one.
  constexpr size_t kMaxRunTimeShapes = 64;
  std::set<const Value *> shaped;
  bool read = false;
  count_shaped(g, shaped, read);
  if (read && shaped.size() > kMaxRunTimeShapes)
    fail("{} values have shapes that values computed at run time decide, and nodes use some of "
         "them: onnxc supports {} at most; give the inputs that decide them as "
         "constants (--const-input)",
         shaped.size(), kMaxRunTimeShapes);
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
