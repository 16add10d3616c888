// The IR verifier, run after every pass in debug builds (and with --verify-each).
// Checks: nodes are in topological order; every input is a graph input, a constant or an
// output of an earlier node; use-lists match the inputs exactly; producers match outputs; no
// value is produced twice. Throws Error describing the first violation and the pass before it.
#pragma once

#include "compiler/ir/ir.h"

#include <string>

namespace onnxc {

void verify_graph(const Graph &g, const std::string &after_pass);

} // namespace onnxc
