// What the passes hand to a backend: the graph after memory planning, as an ordered list of
// kernel calls on values whose storage is assigned. Backends read nothing else.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/node_profile.h"

#include <string>
#include <vector>

namespace onnxc {

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
  ControlMark control = ControlMark::None; ///< not None: a marker, no kernel is called
};

/// Every Value referenced here has storage Arena (offset into the arena), Weight (offset into
/// the weight blob), GraphInput or GraphOutput (io_index into the caller's buffers).
struct ExecutionPlan {
  std::string model_name;            ///< C identifier used for the header and symbol aliases
  std::vector<Value *> inputs;       ///< graph inputs in signature order (static types)
  std::vector<Value *> outputs;      ///< graph outputs in signature order (static types)
  std::vector<PlannedCall> calls;    ///< in execution order
  std::vector<Value *> weights;      ///< constants the calls read, each with its offset
  int64_t arena_size = 0;            ///< bytes, a multiple of kArenaAlignment
  int64_t weights_size = 0;          ///< bytes of the weight blob
  static constexpr int64_t kArenaAlignment = 64;
};

} // namespace onnxc
