// Lowering of a graph's nodes to planned calls, with If/Loop/Scan as structured regions.
//
// A control-flow node becomes markers (ControlMark, execution_plan.h) around the calls of its
// bodies, which are lowered recursively into the same list, so the memory planner places the
// bodies' values in the same arena, inside the node's live range:
// - If: IfBegin{cond}, then_branch's calls, copies of its outputs into the If's outputs, Else,
//   the same for else_branch, EndIf.
// - Loop: copies of the initial condition and loop-carried values into the body's input
//   buffers; LoopBegin{iteration, M, cond}; the body's calls; scan outputs stored at the
//   iteration's slot (scan_slice kernel); the body's new condition and carried values copied
//   back into its input buffers (through a temporary where a body output is a body input);
//   LoopEnd; copies of the final carried values into the Loop's outputs.
// - Scan: like Loop with a constant trip count and no condition; each scan input's slice is
//   copied into its body input at the start of an iteration.
// The body's outer-scope stand-ins are replaced by the outer values themselves, so the calls
// read them where they live.
#pragma once

#include "compiler/passes/execution_plan.h"

#include <utility>

namespace onnxc {

/// Appends the planned calls of g's nodes, in order, to `calls` (the CPU kernels' lowering; the
/// bodies of control-flow nodes are not formed into regions yet).
void lower_nodes(Graph &g, std::vector<PlannedCall> &calls);

/// Appends the markers and calls of one If/Loop/Scan node (is_control_flow(n)) to `calls`.
void lower_control_flow(Node &n, std::vector<PlannedCall> &calls);

/// [LoopBegin, LoopEnd] index pairs of the loops in `calls`, inner loops first. A buffer live
/// at some but not all calls of a loop must be kept for the whole loop (later iterations
/// revisit the earlier calls).
std::vector<std::pair<int, int>> loop_ranges(const std::vector<PlannedCall> &calls);

} // namespace onnxc
