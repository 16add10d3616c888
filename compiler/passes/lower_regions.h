// Pass: lowering the backend-neutral regions to one backend's kernel calls.
// Expects: ExecutionPlan::regions (form-regions).
// Guarantees: ExecutionPlan::calls holds each region's call in region order, each knowing its
// region, the node it came from (for run-time messages) and its profile description. Tensor
// storage is not assigned yet (plan-memory).
#pragma once

#include "compiler/ops/op_def.h"
#include "compiler/passes/execution_plan.h"

#include <functional>
#include <map>

namespace onnxc {

/// A backend's lowering of one region to one kernel call (kernel, tensors, typed params,
/// scratch size). Algorithm choices, operand swaps and tuning constants belong here, not in the
/// regions.
using RegionLowering = std::function<KernelCall(const Region &)>;

/// The CPU kernels' lowering (templates/cpu): an Op region through its OpDef::lower, a copy
/// through onnxc_k_copy. Also what the reference evaluator runs natively.
KernelCall lower_region_cpu(const Region &r);

/// An If/Loop/Scan region becomes control markers around its bodies' calls, lowered with the
/// CPU kernels (compiler/passes/lower_control_flow.h); every other region goes through `lower`.
/// Constants a lowering derived (KernelCall::derived, e.g. pre-packed weights) become weights of
/// `g`, the graph whose nodes it lowers.
void lower_regions(Graph &g, ExecutionPlan &plan, const RegionLowering &lower);

/// Turns call.derived into constants of g and puts them in their argument slots. With
/// `attached`, a tensor already made a constant (by an earlier call: lower-extent's variants
/// share packed weights) is reused, and new ones are recorded there.
void attach_derived(Graph &g, KernelCall &call,
                    std::map<const Tensor *, Value *> *attached = nullptr);

} // namespace onnxc
