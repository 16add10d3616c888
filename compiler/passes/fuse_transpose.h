// Pass: fold a Transpose of the last two axes into the MatMul that reads it as B (attention's
// Q K^T, exported as MatMul(q, Transpose(k, perm=[.., -1, -2]))).
// Expects: constants folded (a constant B is transposed at compile time already), shapes static.
// Guarantees: every float/double MatMul whose B (rank >= 2, not constant) is the output of a
// Transpose that swaps only its last two axes and that nothing else reads, reads that
// Transpose's input instead and carries kTransBAttr = 1: its GEMM reads B with row stride 1
// and column stride K, so the transposed copy is never made. The Transpose is listed in
// kFusedNodesAttr. CPU target only (the CUDA backend's MatMul reads B as stored).
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of Transpose nodes folded away.
int fuse_transpose(Graph &g);

} // namespace onnxc
