// Pass: check that onnxc implements every op of the graph at the imported opset.
// Expects: nodes with `def` resolved by the frontend (nullptr if unknown).
// Guarantees: every node (including those in subgraphs) has a def whose opset range covers the
// node's opset, or an Error lists every unsupported node, op and opset with what to do.
#pragma once

#include "compiler/ir/ir.h"

#include <string>
#include <vector>

namespace onnxc {

/// Oldest and newest ai.onnx opset onnxc accepts.
constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 28;

/// One line per unsupported node ("node 'x' (Foo, #3): ..."), empty if all are supported.
std::vector<std::string> find_unsupported_ops(const Graph &g);
void check_supported_ops(const Graph &g);

} // namespace onnxc
