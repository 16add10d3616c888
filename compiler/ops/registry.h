// The table of all operators onnxc knows. Ops are listed once in compiler/ops/op_list.def
// (X-macro) and element-wise ops in templates/cpu/elementwise.def.
#pragma once

#include "compiler/ops/op_def.h"

#include <string_view>
#include <vector>

namespace onnxc {

/// The definition of (domain, op_type), or nullptr if onnxc does not implement it. The domain
/// "ai.onnx" is the same as "".
const OpDef *find_op(std::string_view domain, std::string_view op_type);
/// All definitions, sorted by name (for docs and `onnxc inspect`).
std::vector<const OpDef *> all_ops();

} // namespace onnxc
