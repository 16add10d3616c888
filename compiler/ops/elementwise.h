// Element-wise op definitions, generated from templates/cpu/elementwise.def.
#pragma once

#include "compiler/ops/op_def.h"

#include <vector>

namespace onnxc {

/// One OpDef per line of elementwise.def.
std::vector<OpDef> elementwise_ops();

} // namespace onnxc
