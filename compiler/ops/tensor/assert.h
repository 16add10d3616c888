// onnxc.Assert: a condition computed at run time that the compiler could not prove, checked
// during the run.
#pragma once

#include "compiler/ops/op_def.h"

namespace onnxc {

/// Node attribute (string): what the run failed on, when the condition is false.
inline constexpr char kAssertMessageAttr[] = "message";

/// onnxc.Assert(ok, x) -> y: y is x; the run fails with the node's message when ok (a bool
/// scalar) is false.
const OpDef &op_Assert();

} // namespace onnxc
