#include "compiler/passes/pipeline.h"
#include "compiler/ir/error.h"
#include "compiler/ir/memory_usage.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/check_supported.h"
#include "compiler/passes/conv_paths.h"
#include "compiler/passes/desugar_sequences.h"
#include "compiler/passes/eliminate_dead_code.h"
#include "compiler/passes/fold_batchnorm.h"
#include "compiler/passes/fold_constants.h"
#include "compiler/passes/form_regions.h"
#include "compiler/passes/fuse_activation.h"
#include "compiler/passes/fuse_bias.h"
#include "compiler/passes/fuse_channel_scale.h"
#include "compiler/passes/fuse_gelu.h"
#include "compiler/passes/fuse_qdq.h"
#include "compiler/passes/fuse_residual.h"
#include "compiler/passes/fuse_causal_mask.h"
#include "compiler/passes/fuse_scale.h"
#include "compiler/passes/fuse_transpose.h"
#include "compiler/passes/lower_extent.h"
#include "compiler/passes/lower_regions.h"
#include "compiler/passes/materialize_strings.h"
#include "compiler/passes/pack_weights.h"
#include "compiler/passes/promote_half.h"
#include "compiler/passes/verify_graph.h"

#include <chrono>
#include <iostream>

namespace onnxc {
namespace {

/// Runs one pass: times it, verifies the IR after it if asked, dumps it if asked.
class PassRunner {
public:
  PassRunner(Graph &g, const PipelineOptions &o, std::vector<PassTiming> *t)
      : g_(g), o_(o), timings_(t), log_(o.log ? *o.log : std::cerr) {}

  template <typename F> void operator()(const std::string &name, F &&pass) {
    if (!pass_enabled(o_, name))
      return;
    auto start = std::chrono::steady_clock::now();
    pass();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timings_)
      timings_->push_back({name, s, o_.time_passes ? current_rss_bytes() : -1,
                           o_.time_passes ? peak_rss_bytes() : -1});
    if (o_.verify_each)
      verify_graph(g_, name);
    if (o_.print_after == name || o_.print_after == "all")
      log_ << "// IR after " << name << "\n" << print_graph(g_);
  }

private:
  Graph &g_;
  const PipelineOptions &o_;
  std::vector<PassTiming> *timings_;
  std::ostream &log_;
};

} // namespace

std::vector<std::string> pipeline_pass_names() {
  return {"check-supported",     "desugar-sequences",
          "bind-shapes",         "infer-shapes",
          "fuse-half-casts",     "fuse-qdq",
          "fold-constants",      "fold-batchnorm",
          "fuse-gelu",           "fuse-scale",
          "fuse-causal-mask",    "fuse-transpose",
          "fuse-bias",
          "fuse-residual",       "fuse-activation",
          "fuse-channel-scale",
          "dce",                 "pack-weights",
          "conv-paths",
          "materialize-strings", "form-regions",
          "lower-regions",       "plan-memory"};
}

std::vector<std::string> optional_pass_names() {
  return {"fuse-half-casts",    "fuse-qdq",         "fold-batchnorm",      "fuse-gelu",
          "fuse-scale",         "fuse-causal-mask", "fuse-transpose",   "fuse-bias",        "fuse-residual",       "fuse-activation",
          "fuse-channel-scale", "pack-weights",     "conv-paths",          kWinogradPass,
          kWinograd4Pass,       kDwChannelsPass,    kFewChannelsPass,      kChanVecPass,
          kInplacePass,         kConcatInPlacePass, kSpecialiseParallelPass,
          kSpecialiseFirstPass};
}

bool pass_enabled(const PipelineOptions &opts, const std::string &pass) {
  auto optional = optional_pass_names();
  if (std::find(optional.begin(), optional.end(), pass) == optional.end())
    return true;
  // The optional passes that are not fusions: `all-fusion` leaves them on.
  static const std::vector<std::string> kNotFusion = {
      kSpecialiseParallelPass, kSpecialiseFirstPass, kInplacePass,
      kConcatInPlacePass,      "pack-weights",       "conv-paths",
      kWinogradPass,           kWinograd4Pass,       kDwChannelsPass,
      kFewChannelsPass,        kChanVecPass};
  const bool fusion = std::find(kNotFusion.begin(), kNotFusion.end(), pass) == kNotFusion.end();
  for (const std::string &d : opts.disabled_passes)
    if (d == pass || (d == "all-fusion" && fusion))
      return false;
  return true;
}

namespace {

/// Rejects unknown names in --print-after and --disable-pass.
void check_pass_names(const PipelineOptions &opts) {
  auto names = pipeline_pass_names();
  if (!opts.print_after.empty() && opts.print_after != "all" &&
      std::find(names.begin(), names.end(), opts.print_after) == names.end())
    fail("--print-after={}: no such pass (passes: {})", opts.print_after, fmt::join(names, ", "));
  auto optional = optional_pass_names();
  for (const std::string &d : opts.disabled_passes) {
    if (d == "all-fusion" || std::find(optional.begin(), optional.end(), d) != optional.end())
      continue;
    if (std::find(names.begin(), names.end(), d) != names.end())
      fail("--disable-pass={}: this pass is required and cannot be disabled (optional passes: "
           "{}, all-fusion)",
           d, fmt::join(optional, ", "));
    fail("--disable-pass={}: no such pass (optional passes: {}, all-fusion)", d,
         fmt::join(optional, ", "));
  }
}

/// The plan's run-time extent: the driver's (a run-time dim of the inputs), or a run-time count
/// that infer-shapes found (Graph::counts); one at most.
std::string run_time_extent(const Graph &g, const std::string &given) {
  if (g.counts.empty())
    return given;
  if (g.counts.size() > 1)
    fail("the model has the run-time counts '{}': onnxc runs one value-dependent count per "
         "model (give the inputs of all but one of the ops that count as constants)",
         fmt::join(g.counts, "', '"));
  const std::string &count = *g.counts.begin();
  if (!given.empty())
    fail("the model has the run-time dim '{}' and the run-time count '{}': onnxc runs one of "
         "them; bind '{}' with --dim {}=N",
         given, count, given, given);
  return count;
}

} // namespace

ExecutionPlan run_pipeline(Model &m, const PipelineOptions &opts,
                           std::vector<PassTiming> *timings) {
  Graph &g = *m.graph;
  PassRunner run(g, opts, timings);
  check_pass_names(opts);
  // Every op must be implemented before anything else looks at the graph.
  run("check-supported", [&] { check_supported_ops(g); });
  // Sequences and optionals known at compile time become lists of tensors (or nothing).
  run("desugar-sequences", [&] { desugar_sequences(g, opts.bindings); });
  // Symbolic input dims are bound by --shape/--dim; all shapes become static from here on.
  run("bind-shapes", [&] { bind_input_shapes(g, opts.bindings); });
  // Types and shapes of every value; constant values propagated (shape subgraphs fold here).
  // float16/bfloat16 nodes without a half kernel run in float between Casts (promote_half.h).
  run("infer-shapes", [&] { infer_shapes(g, opts.infer); });
  // Consecutive promoted nodes pass float values on instead of rounding to half in between.
  run("fuse-half-casts", [&] { fuse_half_casts(g); });
  // DequantizeLinear -> Conv/MatMul/Gemm -> QuantizeLinear runs as integer QLinearConv/...
  run("fuse-qdq", [&] { fuse_qdq(g); });
  // Nodes whose outputs are all known become weights.
  run("fold-constants", [&] { fold_constants(g); });
  // Conv/Gemm followed by BatchNormalization or a per-channel Mul/Add: folded into the weights.
  run("fold-batchnorm", [&] { fold_batchnorm(g); });
  // Conv/Gemm followed by an activation: one node, the activation applied as the tile is stored.
  // Gelu written out as element-wise ops (exporters below opset 20): one Gelu node.
  run("fuse-gelu", [&] { fuse_gelu(g); });
  // MatMul followed by the Add of a per-column constant (a Linear layer's bias): one GEMM.
  run("fuse-scale", [&] { fuse_scale(g); });
  // Where(causal mask, -inf, scores) -> Softmax: the Softmax skips the masked keys (CPU
  // kernels only: the CUDA backend's Softmax has no causal form).
  if (!opts.lower)
    run("fuse-causal-mask", [&] { fuse_causal_mask(g); });
  // MatMul(a, Transpose(b) of its last two axes): the GEMM reads b transposed (CPU kernels only:
  // the CUDA backend's MatMul reads B as stored).
  if (!opts.lower)
    run("fuse-transpose", [&] { fuse_transpose(g); });
  run("fuse-bias", [&] { fuse_bias(g); });
  run("fuse-residual", [&] { fuse_residual(g); });
  run("fuse-activation", [&] { fuse_activation(g); });
  // A per-channel Mul (squeeze-excite) before a pointwise Conv: W's columns scaled instead.
  // CPU kernels only (the CUDA backend's Conv has no input scale).
  if (!opts.lower)
    run("fuse-channel-scale", [&] { fuse_channel_scale(g); });
  // Nodes that no graph output depends on are removed.
  run("dce", [&] { eliminate_dead_code(g); });
  // Constant GEMM weights (Conv, Gemm, MatMul) are packed in the kernels' layout when lowered.
  run("pack-weights", [&] { pack_weights(g); });
  // Conv may use its depthwise, pointwise and Winograd paths (else im2col + GEMM for all).
  run("conv-paths", [&] {
    mark_conv_paths(g, pass_enabled(opts, kWinogradPass), pass_enabled(opts, kWinograd4Pass),
                    pass_enabled(opts, kDwChannelsPass), pass_enabled(opts, kFewChannelsPass),
                    pass_enabled(opts, kChanVecPass));
  });
  // The GEMM micro-tile height the target's vector registers allow (not an optimisation).
  mark_gemm_tile_rows(g, opts.gemm_tile_rows);
  // String constants read at run time are unpacked from a packed table into pointer slots.
  run("materialize-strings", [&] { materialize_strings(g); });
  // The backend-neutral plan: one region per (fused) node, plus output copies.
  ExecutionPlan plan;
  run("form-regions", [&] { plan = form_regions(g, opts.model_name); });
  // The backend's kernels for each region (CPU unless the caller gives another lowering).
  run("lower-regions", [&] {
    const RegionLowering lower = opts.lower ? opts.lower : RegionLowering(lower_region_cpu);
    const std::string extent = run_time_extent(g, opts.extent_symbol);
    if (extent.empty())
      lower_regions(g, plan, lower);
    else { // once per value of the run-time extent, merged exactly (lower_extent.h)
      for (const auto &v : g.values)
        if (v->run_time_data() && !v->uses.empty())
          fail("'{}' has a shape that values computed at run time decide with no bound ({}), "
               "and nodes use it: onnxc does not combine that with the run-time dim or count "
               "'{}' yet; give '{}' as a constant (--const-input)",
               v->name, v->run_time_shape_trace, extent, v->run_time_shape_from);
      lower_regions_extent(g, plan, lower, extent);
    }
  });
  // Every intermediate tensor and scratch buffer placed in one arena by liveness.
  run("plan-memory", [&] {
    PlanOptions popts = opts.plan;
    popts.inplace = popts.inplace && pass_enabled(opts, kInplacePass);
    popts.concat_in_place = popts.concat_in_place && pass_enabled(opts, kConcatInPlacePass);
    plan_memory(plan, popts);
  });
  return plan;
}

} // namespace onnxc
