// The compilation pipeline: model → ExecutionPlan. One function, in order; see pipeline.cpp.
#pragma once

#include "compiler/passes/execution_plan.h"
#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/plan_memory.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace onnxc {

struct PipelineOptions {
  std::string model_name = "model"; ///< C identifier for the artifact
  ShapeBindings bindings;
  InferOptions infer;
  PlanOptions plan;
  std::string print_after;  ///< pass name, or "all": dump the IR after it
  bool time_passes = false; ///< print a table of pass timings
  bool fuse_qdq = true;     ///< run the QDQ pattern as integer arithmetic (fuse_qdq.h)
#ifndef NDEBUG
  bool verify_each = true;  ///< run the IR verifier after every pass
#else
  bool verify_each = false;
#endif
  std::ostream *log = nullptr; ///< where dumps and timings go (std::cerr if null)
};

struct PassTiming {
  std::string pass;
  double seconds;
};

/// The names of the passes, in order (for --print-after and docs).
std::vector<std::string> pipeline_pass_names();

/// Runs every pass on m.graph and returns the plan for a backend. Throws Error.
ExecutionPlan run_pipeline(Model &m, const PipelineOptions &opts,
                           std::vector<PassTiming> *timings = nullptr);

} // namespace onnxc
