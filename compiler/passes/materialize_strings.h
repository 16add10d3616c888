// Pass: materialize-strings.
// Expects: a graph after dce (static types; constants that remain are read at run time).
// Guarantees: no string constant is read by a node or is a graph output: each became the output
// of an onnxc.StringConstant node (at the front of the graph) that unpacks a packed string
// table (a uint8 weight, templates/cpu/string_params.h) into `const char *` slots at run time,
// so every string tensor a kernel sees is an array of pointers; and every string graph output
// computed by a node that passes strings through (Identity, Gather, StringNormalizer without a
// case change, ...) is the output of an onnxc.StringCopy into the run's dynamic memory, so the
// caller reads strings the context owns. Top-level graph only (bodies of If/Loop/Scan keep
// their constants; a string graph output that is a graph input is not copied).
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of string constants materialized.
int materialize_strings(Graph &g);

} // namespace onnxc
