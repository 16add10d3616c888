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
  std::string op;      ///< ONNX op name ("Relu", "Clip", "Silu", ...); empty: none
  double a = 0, b = 0; ///< its attributes (Clip: min, max; LeakyRelu: alpha; ...)
};

/// A fused group of ops: the unit a backend lowers.
struct Region {
  enum class Kind {
    Op,         ///< `root` with everything fused into it
    OutputCopy, ///< copies `src` into the graph output `dst` (an input, constant or repeat)
    /// gives `dst` the run-time shape of `src` (Value::run_time_bounded): after an element-wise
    /// op that computed `dst` over `src`'s bound, element for element
    ShapeCopy,
  };
  Kind kind = Kind::Op;
  Node *root = nullptr;                 ///< Op: the node (inputs, outputs, attributes, OpDef)
  Value *src = nullptr, *dst = nullptr; ///< OutputCopy, ShapeCopy
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

/// A piece of a params word that depends on the run-time extent s (ExecutionPlan::extent): from
/// s = start on (until the next piece), the word is value + d1*t + d2*t*(t-1)/2 with t = s - start
/// (Newton's forward differences: exact for words affine or quadratic in s over the piece).
struct ExtentPiece {
  int64_t start, value, d1, d2;
};
/// Word `word` of a call's params as a function of the extent: pieces in increasing `start`,
/// the first at the call's lowest s.
struct ExtentWord {
  size_t word;
  std::vector<ExtentPiece> pieces;
};

/// An operand of a call whose data lives in run-scoped memory (Value::run_time_data): its
/// tensor pointer is the value's arena slot, which only names it in the run's shape table.
struct RunTimeData {
  enum class Kind {
    Produced, ///< the call's output, whose kernel takes memory with onnxc_rt_output_buffer
    Read,     ///< an input: the kernel gets the run's data pointer
    /// the call's output, computed element for element over arg `src` (an element-wise op of
    /// it): memory for src's element count times elem_bytes, src's shape recorded for it
    Like,
    /// the kernel gets the arena slot and finds the data itself (a Loop's scan output shaped by
    /// the run: onnxc_k_scan_append, onnxc_k_scan_finish)
    Key,
  };
  Kind kind = Kind::Read;
  size_t arg = 0;
  size_t src = 0;
  int64_t elem_bytes = 0;
};
struct PlannedCall {
  KernelCall call;
  std::string node_desc;      ///< Node::describe() of the node it lowers (for run-time errors)
  int64_t scratch_offset = 0; ///< arena offset of the scratch buffer (if call.scratch_bytes > 0)
  NodeProfile profile;        ///< name, op, shapes, FLOP estimate (embedded by --profile builds)
  size_t region = 0;          ///< index of the region it lowers
  ControlMark control = ControlMark::None; ///< not None: a marker, no kernel is called
  /// Run-time extent (lower-extent): the call runs only when the extent is in [lo, hi] (its
  /// region's other calls cover the other values); absent: always.
  std::optional<std::pair<int64_t, int64_t>> guard;
  /// Run-time extent: the params words that vary with it (call.params holds their values at the
  /// guard's lo, or the range's lo); call.scratch_bytes is the largest over the range.
  std::vector<ExtentWord> extent_words;
  /// Operands whose data lives in run-scoped memory (lower-regions: lower_run_time_data); the
  /// params words the run's shapes decide are call.shape_words.
  std::vector<RunTimeData> run_time_data;
};

/// Every Value referenced here has storage Arena (offset into the arena), Weight (offset into
/// the weight blob), GraphInput or GraphOutput (io_index into the caller's buffers).
struct ExecutionPlan {
  std::string model_name;         ///< C identifier used for the header and symbol aliases
  std::vector<Value *> inputs;    ///< graph inputs in signature order (static types)
  std::vector<Value *> outputs;   ///< graph outputs in signature order (static types)
  std::vector<Region> regions;    ///< in execution order (form-regions)
  std::vector<PlannedCall> calls; ///< in execution order (lower-regions)
  std::vector<Value *> weights;   ///< constants the calls read, each with its offset
  int64_t arena_size = 0;         ///< bytes, a multiple of kArenaAlignment
  int64_t intermediates_size = 0; ///< bytes of all arena tensors and scratch buffers, unshared
  int64_t inplace_values = 0;     ///< outputs that took over their input's buffer
  int64_t concats_in_place = 0;   ///< Concats whose inputs were computed in its output's buffer
  int64_t weights_size = 0;       ///< bytes of the weight blob
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
    /// Chunks (instead of tiles): the plan has the batch as its run-time extent, range
    /// 1..chunk, and onnxc_run runs the batch `chunk` samples at a time, the rest at once.
    int64_t chunk = 0;
  };
  std::optional<RunTimeBatch> batch;
  /// A run-time extent (passes/lower_extent.h): one symbol other than a per-sample batch whose
  /// value the code reads at run time. Types in the graph are at range.hi (the arena is planned
  /// for it); params words that depend on it are ExtentWords of their calls.
  struct RunTimeExtent {
    std::string symbol;
    SymRange range;
    /// Per graph input / output, per dim: true where the dim is the symbol (others are static).
    std::vector<std::vector<bool>> inputs, outputs;
    /// Its index in the model descriptor's symbols: 1 after a run-time batch (set by the
    /// driver, also in a tile plan), else 0.
    int32_t index = 0;
    /// A run-time count (Graph::counts): a kernel sets it during the run (the descriptor's
    /// symbol is the count, range.lo - 1..range.hi - 1); the code's extent is the count + 1,
    /// and `outputs` flags the output dims that are the count.
    bool count = false;
  };
  std::optional<RunTimeExtent> extent;
  int32_t extent_symbol_index() const { return extent ? extent->index : 0; }
  /// The extent is the run-time batch itself (RunTimeBatch::chunk).
  bool batch_is_extent() const { return batch && extent && extent->symbol == batch->symbol; }
  /// The model's run-time dims in descriptor order: a run-time batch, then an extent other
  /// than the batch (whose index is then 1).
  std::vector<std::pair<std::string, SymRange>> symbols() const {
    std::vector<std::pair<std::string, SymRange>> out;
    if (batch)
      out.emplace_back(batch->symbol, batch->range);
    if (extent && !batch_is_extent())
      out.emplace_back(extent->symbol, extent->count
                                           ? SymRange{extent->range.lo - 1, extent->range.hi - 1}
                                           : extent->range);
    return out;
  }
  /// True if graph input / output i has the run-time batch as dim 0.
  bool batched_input(size_t i) const {
    return batch && i < batch->inputs.size() && batch->inputs[i];
  }
  bool batched_output(size_t i) const {
    return batch && i < batch->outputs.size() && batch->outputs[i];
  }
  static constexpr int64_t kArenaAlignment = 64;
};

} // namespace onnxc
