// FlexAttention (ai.onnx.preview) with score_mod / prob_mod subgraphs: expanded into standard
// ops with the modifiers inlined, because the fused attention kernel has no hooks for them.
//
//   scores = (Q @ K^T) * scale          (grouped-query heads through Reshape, no copies of K/V)
//   scores = score_mod(scores)          (the subgraph's nodes, on the scores)
//   probs  = Softmax(scores, axis=-1)
//   probs  = prob_mod(probs)
//   Y      = probs @ V
//
// in softmax_precision (float, or double for double inputs by default), with Casts from and to
// the inputs' type. Called by infer-shapes on each node before inferring it (the inputs' types
// are known then); the new nodes are inferred next, so shape subgraphs inside the modifiers
// fold like any other. A FlexAttention without modifiers keeps its fused kernel.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// If g.nodes[i] is a FlexAttention with score_mod or prob_mod, replaces it by its expansion
/// (the original output keeps its name) and returns true; g.nodes[i] is then the expansion's
/// first node, not yet inferred.
bool expand_flex_attention(Graph &g, size_t i);

} // namespace onnxc
