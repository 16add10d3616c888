// Shared by the attention-family lowerings (attention.cpp, linear_attention.cpp,
// causal_conv_with_state.cpp).
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Output i when something reads it (a node or the graph's outputs), else nullptr: the kernel
/// then skips it (an omitted optional output still has a value, see the frontend).
inline Value *used_output(const Node &n, size_t i) {
  Value *v = i < n.outputs.size() ? n.outputs[i] : nullptr;
  return v && (!v->uses.empty() || v->is_graph_output) ? v : nullptr;
}

} // namespace onnxc
