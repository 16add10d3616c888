// onnxc.CheckShape: a value shaped at run time given the static shape its model declares, checked
// during the run.
#pragma once

#include "compiler/ops/op_def.h"

namespace onnxc {

/// Node attribute (ints): the declared dims the run's shape must equal.
inline constexpr char kCheckShapeDimsAttr[] = "shape";

const OpDef &op_CheckShape();

} // namespace onnxc
