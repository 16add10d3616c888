// onnxc.SelectShaped: a choice among static tensors of different shapes by a run-time index.
#pragma once

#include "compiler/ops/op_def.h"

namespace onnxc {

const OpDef &op_SelectShaped();

} // namespace onnxc
