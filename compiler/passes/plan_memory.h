// Pass: static memory planning of a lowered plan.
// Expects: ExecutionPlan::calls (lower-regions), whatever the backend.
// Guarantees: graph inputs and outputs live in the caller's buffers; constants the calls read
// live in the read-only weight blob; every other tensor and every call's scratch buffer gets an
// offset in one arena, reused by liveness (two buffers share bytes only if their lifetimes do
// not overlap). All offsets are 64-byte aligned. A Concat whose inputs are contiguous slices of
// its output (nothing but 1s before the axis), each an intermediate only the Concat reads, at
// 64-byte aligned offsets, costs nothing: its inputs are placed in its output's buffer and its
// call is dropped (PlanOptions::concat_in_place; plan.concats_in_place counts them).
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/passes/execution_plan.h"

#include <string>

namespace onnxc {

struct PlanOptions {
  int64_t max_arena_bytes = int64_t(1) << 40; ///< compile error above this
  int64_t max_weight_bytes = int64_t(1) << 40;
  /// Let an element-wise output take over the buffer of an input that dies at its call
  /// (KernelCall::inplace); off with --disable-pass=inplace.
  bool inplace = true;
  /// Let the producers of a Concat's inputs write them straight into their slices of its
  /// output, where those are contiguous, and drop the Concat's call; off with
  /// --disable-pass=concat-in-place.
  bool concat_in_place = true;
};

void plan_memory(ExecutionPlan &plan, const PlanOptions &opts = {});

} // namespace onnxc
