// Pass: constant folding.
// Expects: infer_shapes ran, so values computable at compile time carry Value::constant.
// Guarantees: no node remains whose outputs are all constants; those outputs become constants
// of the graph (initializers), later embedded as read-only weights where still used.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of nodes folded away.
int fold_constants(Graph &g);

} // namespace onnxc
