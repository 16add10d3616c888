// The compilation pipeline: model → ExecutionPlan. One function, in order; see pipeline.cpp.
#pragma once

#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/execution_plan.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/lower_regions.h"
#include "compiler/passes/plan_memory.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace onnxc {

struct PipelineOptions {
  std::string model_name = "model"; ///< C identifier for the artifact
  ShapeBindings bindings;
  InferOptions infer;
  PlanOptions plan;
  RegionLowering lower; ///< the backend's lowering of regions; empty: lower_region_cpu
  /// A run-time extent (passes/lower_extent.h): the one symbol bind-shapes keeps symbolic
  /// (bindings.keep_symbolic) and lower-regions lowers for every value of its range; empty:
  /// every dim is static.
  std::string extent_symbol;
  /// GEMM micro-tile rows for Conv/Gemm/MatMul (1, 2, 4, 6 or 8: the target's, see
  /// gemm_tile_rows in templates/cpu/gemm_params.h); 0: the kernels' default (8)
  int64_t gemm_tile_rows = 0;
  std::string print_after; ///< pass name, or "all": dump the IR after it
  /// Optional passes not to run (--disable-pass): names from optional_pass_names(), or
  /// "all-fusion" for every fusion pass.
  std::vector<std::string> disabled_passes;
  bool time_passes = false; ///< print a table of pass timings
#ifndef NDEBUG
  bool verify_each = true; ///< run the IR verifier after every pass
#else
  bool verify_each = false;
#endif
  std::ostream *log = nullptr; ///< where dumps and timings go (std::cerr if null)
};

struct PassTiming {
  std::string pass;
  double seconds;
  int64_t rss = -1;      ///< resident bytes after the step (with --time-passes; -1: unknown)
  int64_t peak_rss = -1; ///< the process's peak resident bytes so far
};

/// The names of the passes, in order (for --print-after and docs).
std::vector<std::string> pipeline_pass_names();

/// The passes that --disable-pass accepts (optimisations; the others are needed to compile).
std::vector<std::string> optional_pass_names();

/// The CPU backend's optional pass that specialises parallel loop bodies per node; not a fusion
/// pass, so `all-fusion` leaves it on.
inline constexpr char kSpecialiseParallelPass[] = "specialise-parallel";
/// The CPU backend's inlining of kernels into their nodes and folding of the nodes' params
/// before LLVM's pipeline, which then simplifies kernel template code only inside nodes
/// (CpuCodegenOptions::specialise_first); a compile-time saving, not a fusion pass.
inline constexpr char kSpecialiseFirstPass[] = "specialise-first";
/// plan-memory's in-place reuse of element-wise inputs (PlanOptions::inplace); not a fusion
/// pass either.
inline constexpr char kInplacePass[] = "inplace";
/// plan-memory's Concats computed in place (PlanOptions::concat_in_place); not a fusion pass.
inline constexpr char kConcatInPlacePass[] = "concat-in-place";
/// conv-paths' Winograd path for 3x3 stride-1 Convs (compiler/passes/conv_paths.h); not a fusion
/// pass either.
inline constexpr char kWinogradPass[] = "winograd";
/// conv-paths' F(4x4, 3x3) form of Winograd (kConvWinograd4; without it those Convs run as
/// F(2x2, 3x3)); not a fusion pass either.
inline constexpr char kWinograd4Pass[] = "winograd-4x4";
/// conv-paths' channel-vector path for float depthwise Convs (kConvDwChannels); not a fusion
/// pass either.
inline constexpr char kDwChannelsPass[] = "dw-channels";
/// conv-paths' direct path for float Convs with few input channels (kConvFewChannels); not a
/// fusion pass either.
inline constexpr char kFewChannelsPass[] = "few-channels";
/// conv-paths' direct path on output-channel vectors for strided float Convs, and on 32-register
/// targets the stride-1 3x3 ones Winograd leaves to im2col (kConvChanVec); not a fusion pass
/// either.
inline constexpr char kChanVecPass[] = "chan-vec";

/// Whether `pass` runs under opts (false if disabled by name or by "all-fusion").
bool pass_enabled(const PipelineOptions &opts, const std::string &pass);

/// Runs every pass on m.graph and returns the plan for a backend. Throws Error.
ExecutionPlan run_pipeline(Model &m, const PipelineOptions &opts,
                           std::vector<PassTiming> *timings = nullptr);

} // namespace onnxc
