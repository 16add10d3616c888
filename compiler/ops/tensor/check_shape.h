// onnxc.CheckShape: a value shaped at run time given the static shape its model declares, checked
// during the run.
#pragma once

#include "compiler/ops/op_def.h"

namespace onnxc {

/// Node attribute (ints): the declared dims the run's shape must equal.
inline constexpr char kCheckShapeDimsAttr[] = "shape";

const OpDef &op_CheckShape();

/// Whether CheckShape can take a value of type `t`: it copies whole bytes (not strings, not
/// 4-/2-bit types).
bool check_shape_supports(DType t);

} // namespace onnxc
