// Nodes whose form onnxc's kernels do not cover, expanded into standard ops before they are
// inferred. Called by infer-shapes on each node (its inputs' types are known then); the new
// nodes take its place and are inferred next, so shape subgraphs among them fold like any
// other, and they are then fused and lowered like any other nodes.
//
// - FlexAttention (ai.onnx.preview) with score_mod / prob_mod subgraphs (the fused attention
//   kernel has no hooks for them):
//     scores = (Q @ K^T) * scale        (grouped-query heads through Reshape, no copies of K/V)
//     scores = score_mod(scores)        (the subgraph's nodes, on the scores)
//     probs  = Softmax(scores, axis=-1)
//     probs  = prob_mod(probs)
//     Y      = probs @ V
//   in softmax_precision (float, or double for double inputs by default), with Casts from and
//   to the inputs' type. Without modifiers it keeps its fused kernel.
// - BatchNormalization with training_mode=1 (opset 14+): the batch's mean and (population)
//   variance per channel normalise X, and the running statistics are updated with `momentum`:
//   running = input * momentum + batch * (1 - momentum).
// - Dropout with a constant true training_mode and a ratio > 0: mask = RandomUniformLike(X) >=
//   ratio (the random ops' generator, `seed` passed on), Y = X * mask / (1 - ratio).
// - Scan opset 8 (inputs and outputs carry a batch dim before the sequence): a Scan over the
//   batch whose body is a Scan-11 over the sequence with the original body; sequence_lens must
//   be absent or a constant of full lengths.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// If g.nodes[i] is one of the nodes above, replaces it by its expansion (its outputs keep
/// their names, as Identities of the expansion's results) and returns true; g.nodes[i] is then
/// the expansion's first node, not yet inferred.
bool expand_node(Graph &g, size_t i);

} // namespace onnxc
