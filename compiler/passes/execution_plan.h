// What the passes hand to a backend, in two layers:
//  - regions: the backend-neutral plan (form-regions): each a fused group of ops in execution
//    order, with its operands (Values: dtype, static shape) and its typed epilogue;
//  - calls: the regions lowered to one backend's kernels (lower-regions, through the backend's
//    RegionLowering), whose tensors get storage from plan-memory (arena offsets, weights, I/O).
// Backends read nothing else.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/node_profile.h"

#include <optional>
#include <string>
#include <vector>

namespace onnxc {

/// An activation fused into a region's root op as its epilogue (fuse-activation).
struct FusedActivation {
  std::string op; ///< ONNX op name ("Relu", "Clip", "Silu", ...); empty: none
  double a = 0, b = 0; ///< its attributes (Clip: min, max; LeakyRelu: alpha; ...)
};

/// A fused group of ops: the unit a backend lowers.
struct Region {
  enum class Kind {
    Op,         ///< `root` with everything fused into it
    OutputCopy, ///< copies `src` into the graph output `dst` (an input, constant or repeat)
  };
  Kind kind = Kind::Op;
  Node *root = nullptr;                 ///< Op: the node (inputs, outputs, attributes, OpDef)
  Value *src = nullptr, *dst = nullptr; ///< OutputCopy
  std::vector<std::string> fused;       ///< the nodes merged into root (describe()), in order
  FusedActivation activation;           ///< Op: the epilogue, if any
  std::string desc;                     ///< what run-time errors name (Node::describe())
  NodeProfile profile;                  ///< name, op, shapes, FLOP estimate
};

/// A structured control-flow marker (If/Loop/Scan, compiler/passes/lower_control_flow.h) in
/// the call list; the backend emits branches and loops for them. Operands are call.args:
/// - IfBegin {cond}: runs the calls up to the matching Else when cond (bool) is true, else those
///   from Else to EndIf.
/// - LoopBegin {iteration, trip_count, cond} and LoopEnd {same}: sets iteration (int64 scalar) to
///   0, then runs the calls between them while iteration < trip_count and cond is true (a null
///   operand: no such test); LoopEnd adds 1 to iteration and goes back to the test.
enum class ControlMark { None, IfBegin, Else, EndIf, LoopBegin, LoopEnd };

struct PlannedCall {
  KernelCall call;
  std::string node_desc;      ///< Node::describe() of the node it lowers (for run-time errors)
  int64_t scratch_offset = 0; ///< arena offset of the scratch buffer (if call.scratch_bytes > 0)
  NodeProfile profile;        ///< name, op, shapes, FLOP estimate (embedded by --profile builds)
  size_t region = 0;          ///< index of the region it lowers
  ControlMark control = ControlMark::None; ///< not None: a marker, no kernel is called
};

/// Every Value referenced here has storage Arena (offset into the arena), Weight (offset into
/// the weight blob), GraphInput or GraphOutput (io_index into the caller's buffers).
struct ExecutionPlan {
  std::string model_name;            ///< C identifier used for the header and symbol aliases
  std::vector<Value *> inputs;       ///< graph inputs in signature order (static types)
  std::vector<Value *> outputs;      ///< graph outputs in signature order (static types)
  std::vector<Region> regions;       ///< in execution order (form-regions)
  std::vector<PlannedCall> calls;    ///< in execution order (lower-regions)
  std::vector<Value *> weights;      ///< constants the calls read, each with its offset
  int64_t arena_size = 0;            ///< bytes, a multiple of kArenaAlignment
  int64_t intermediates_size = 0;    ///< bytes of all arena tensors and scratch buffers, unshared
  int64_t inplace_values = 0;        ///< outputs that took over their input's buffer
  int64_t weights_size = 0;          ///< bytes of the weight blob
  /// A run-time batch (passes/sample_wise.h): the plan is for one sample (the batch dim of
  /// `inputs`/`outputs` is 1) and onnxc_run runs it once per sample.
  struct RunTimeBatch {
    std::string symbol;                ///< the model's dim_param
    SymRange range;                    ///< values onnxc_run accepts
    std::vector<bool> inputs, outputs; ///< per graph input / output: dim 0 is the batch
    /// Tiles: the same model compiled for `tile` samples (a plan of its own graph, which the
    /// caller keeps alive); onnxc_run runs whole tiles with it and the rest one by one.
    int64_t tile = 0;
    const ExecutionPlan *tile_plan = nullptr;
  };
  std::optional<RunTimeBatch> batch;
  /// True if graph input / output i has the run-time batch as dim 0.
  bool batched_input(size_t i) const { return batch && i < batch->inputs.size() && batch->inputs[i]; }
  bool batched_output(size_t i) const {
    return batch && i < batch->outputs.size() && batch->outputs[i];
  }
  static constexpr int64_t kArenaAlignment = 64;
};

} // namespace onnxc
