#include "compiler/passes/lower_regions.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/lower_control_flow.h"

namespace onnxc {

KernelCall lower_region_cpu(const Region &r) {
  if (r.kind == Region::Kind::OutputCopy)
    return KernelCall{"onnxc_k_copy", {r.src, r.dst}, {type_bytes(r.src->type)}};
  if (r.kind == Region::Kind::ShapeCopy) // templates/cpu/shaped.cpp
    return KernelCall{"onnxc_k_copy_run_time_shape", {r.src, r.dst}, {}};
  return r.root->def->lower(*r.root);
}

void attach_derived(Graph &g, KernelCall &call, std::map<const Tensor *, Value *> *attached) {
  for (const KernelCall::Derived &d : call.derived) { // e.g. pre-packed weights
    Value *v = attached && attached->count(d.tensor.get()) ? attached->at(d.tensor.get()) : nullptr;
    if (!v) {
      v = g.add_constant("", d.tensor);
      v->name = d.name;
      if (attached)
        (*attached)[d.tensor.get()] = v;
    }
    call.args.at(d.slot) = v;
  }
  call.derived.clear();
}

void lower_regions(Graph &g, ExecutionPlan &plan, const RegionLowering &lower) {
  plan.calls.clear();
  for (size_t i = 0; i < plan.regions.size(); ++i) {
    const Region &r = plan.regions[i];
    if (r.kind == Region::Kind::Op && is_control_flow(*r.root)) { // markers around its bodies
      size_t first = plan.calls.size();
      lower_control_flow(*r.root, plan.calls);
      for (size_t c = first; c < plan.calls.size(); ++c)
        plan.calls[c].region = i;
      continue;
    }
    PlannedCall pc;
    pc.call = lower(r);
    attach_derived(g, pc.call);
    pc.node_desc = r.desc;
    pc.profile = r.profile;
    pc.region = i;
    plan.calls.push_back(std::move(pc));
  }
}

} // namespace onnxc
