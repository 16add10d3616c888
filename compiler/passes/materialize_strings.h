// Pass: materialize-strings.
// Expects: a graph after dce (static types; constants that remain are read at run time).
// Guarantees: no string constant is read by a node or is a graph output: each became the output
// of an onnxc.StringConstant node (at the front of the graph) that unpacks a packed string
// table (a uint8 weight, templates/cpu/string_params.h) into `const char *` slots at run time,
// so every string tensor a kernel sees is an array of pointers. Top-level graph only: a string
// constant inside an If/Loop/Scan body is refused by the CPU backend.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of string constants materialized.
int materialize_strings(Graph &g);

} // namespace onnxc
