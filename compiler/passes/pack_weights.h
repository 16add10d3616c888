// Pass: let the CPU lowering pre-pack constant GEMM weights.
// Expects: shapes are static; constants are folded.
// Guarantees: every float/double Conv, Gemm and MatMul whose weight operand (Conv's W, the B of
// Gemm/MatMul) is a constant carries kPackWeightsAttr (compiler/ops/nn/nn_util.h); its lowering
// then stores that operand in the GEMM kernel's panel layout (templates/cpu/gemm_params.h), or a
// depthwise Conv on channel vectors its W as one vector per channel block and tap
// (conv_dwc_pack_weights), as a new weight, so the kernel never repacks it at run time. Optional:
// `--disable-pass=pack-weights` keeps the run-time packing (the differential tests compare both).
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of nodes marked.
int pack_weights(Graph &g);

/// Gives every Conv, ConvTranspose, Gemm, MatMul, LSTM, GRU and RNN kGemmTileRowsAttr = `rows`
/// (their GEMM micro-tile height, chosen from the target); rows <= 0 marks nothing (the kernels'
/// default).
void mark_gemm_tile_rows(Graph &g, int64_t rows);

} // namespace onnxc
