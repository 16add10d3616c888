// Pass: fuse a causal mask into the Softmax after it (the masked_fill(~tril, -inf) of a decoder's
// attention scores, exported as Where(mask, -inf, scores) or Where(keep, scores, -inf)).
// Expects: constants folded (the mask is a constant), shapes static where it applies.
// Guarantees: every float Softmax along the last axis whose input is used only by it and is a
// Where of a constant bool condition and a one-element constant -inf, whose masked positions
// over the last two axes [L, T] are exactly the keys j > i + off of each query row i (for one
// off >= 0, the same for every leading index), reads the Where's other operand instead and
// carries kCausalAttr {L, off}: its kernel normalises each row over its first i + off + 1
// positions and writes 0 to the rest (what Softmax of -inf gives), skipping the masked
// exponentials. The Where is listed in kFusedNodesAttr. CPU target only (the CUDA backend's
// Softmax has no causal form).
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of Where nodes fused away.
int fuse_causal_mask(Graph &g);

} // namespace onnxc
