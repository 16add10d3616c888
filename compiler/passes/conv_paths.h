// Pass: let the CPU lowering pick a specialised convolution path.
// Expects: shapes are static.
// Guarantees: every float/double Conv in the default domain carries kConvPathsAttr
// (compiler/ops/nn/nn_util.h); its lowering (compiler/ops/nn/conv.cpp) then runs depthwise
// convolutions directly (output rows in vector registers) and 1x1 stride-1 unpadded ones as a
// GEMM on the input plane. Unmarked Convs run as im2col + GEMM. Optional:
// `--disable-pass=conv-paths` gives the im2col reference the differential tests compare with.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of nodes marked.
int mark_conv_paths(Graph &g);

} // namespace onnxc
