// Pass: dead-code elimination.
// Expects: a valid graph.
// Guarantees: every remaining node contributes to a graph output; values nothing uses (and that
// are not graph inputs or outputs) are removed.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of nodes removed.
int eliminate_dead_code(Graph &g);

} // namespace onnxc
