// Pass: let the CPU lowering pick a specialised convolution path.
// Expects: shapes are static.
// Guarantees: every float/double Conv in the default domain carries kConvPathsAttr
// (compiler/ops/nn/nn_util.h); its lowering (compiler/ops/nn/conv.cpp) then runs depthwise
// convolutions directly (output rows in vector registers), 1x1 stride-1 unpadded ones as a
// GEMM on the input plane and, when `winograd` is true (the value has kConvWinogradBit), 2-D 3x3
// stride-1 ones with a constant W as Winograd F(2x2, 3x3), and when `dw_channels` is true (the
// value has kConvDwChannelsBit) float depthwise ones on channel vectors (kConvDwChannels) where
// that path is the faster. Unmarked Convs run as im2col + GEMM.
// Optional: `--disable-pass=conv-paths` gives the im2col reference the differential tests
// compare with; `--disable-pass=winograd` keeps the other paths but not Winograd;
// `--disable-pass=winograd-4x4` keeps Winograd in its F(2x2, 3x3) form (kConvWinograd) where
// F(4x4, 3x3) (kConvWinograd4; the value's kConvWinograd4Bit) would run;
// `--disable-pass=dw-channels` keeps depthwise Convs on their row-vector path;
// `--disable-pass=few-channels` keeps Convs with few input channels (kConvFewChannels: direct,
// for a first layer on colour channels; the value's kConvFewChannelsBit) on im2col;
// `--disable-pass=chan-vec` keeps strided Convs with many channels, and the stride-1 3x3 ones
// Winograd leaves (kConvChanVec: direct on output-channel vectors; kConvChanVecBit), on the
// phase-row path or im2col.
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Marks the Convs (Winograd allowed when `winograd`, its F(4x4, 3x3) form when also
/// `winograd4`); returns the number of nodes marked.
int mark_conv_paths(Graph &g, bool winograd, bool winograd4, bool dw_channels, bool few_channels,
                    bool chan_vec);

} // namespace onnxc
