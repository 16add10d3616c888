// Pass: fold a per-channel Mul of a computed scale into the pointwise Conv it feeds (the
// squeeze-excite block of EfficientNet and MobileNet v3: x * Sigmoid(...) of shape 1 x C x 1 x 1,
// then a 1x1 projection conv).
// Expects: static shapes; fuse-residual and fuse-activation done (it keeps their inputs).
// Guarantees: a float Conv with a 1x1 window, stride 1, no padding, one group, batch 1, a
// constant W and at most half as many output channels as its plane has pixels, whose input is the output of a Mul used only by it, one of whose operands X has
// the Conv input's shape and the other S the shape 1 x C x 1 x 1 (not a constant: constants
// are fold-batchnorm's), computes W (S * X) + B as (W diag(S)) X: it reads X as input 0 and S as
// input 4 (input 3 is the residual or empty), marked by kInScaleAttr (compiler/ops/nn/nn_util.h);
// its kernel scales W's columns into its scratch (M x C products instead of a pass over X). The
// Mul is listed in kFusedNodesAttr and erased. Not run for the CUDA target (its Conv kernel
// has no input scale): run_pipeline skips it when a backend lowering is set.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of Mul nodes folded away.
int fuse_channel_scale(Graph &g);

} // namespace onnxc
