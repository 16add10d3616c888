// Pass: lowering to kernel calls and static memory planning.
// Expects: a supported, fully inferred graph (all shapes static), folded and dead-code free.
// Guarantees: an ExecutionPlan where every node is one kernel call; graph inputs and outputs
// live in the caller's buffers (outputs that are constants, inputs or repeated get a copy
// call); constants live in the read-only weight blob; every other tensor and every kernel's
// scratch buffer gets an offset in one arena, reused by liveness (two buffers share bytes only
// if their lifetimes do not overlap). All offsets are 64-byte aligned.
#pragma once

#include "compiler/passes/execution_plan.h"
#include "compiler/ir/ir.h"

#include <string>

namespace onnxc {

struct PlanOptions {
  int64_t max_arena_bytes = int64_t(1) << 40; ///< compile error above this
  int64_t max_weight_bytes = int64_t(1) << 40;
};

ExecutionPlan plan_memory(Graph &g, const std::string &model_name, const PlanOptions &opts = {});

} // namespace onnxc
