// Pass: executes the QDQ pattern as integer arithmetic.
// Expects: shapes inferred and constants propagated (infer_shapes ran), not yet folded.
// Guarantees: every QuantizeLinear(Conv(DequantizeLinear(x), DequantizeLinear(w)[, bias])),
// QuantizeLinear(MatMul(DequantizeLinear(a), DequantizeLinear(b))) and
// QuantizeLinear(Gemm(DequantizeLinear(a), DequantizeLinear(b)[, bias])) whose scales and zero
// points are compile-time constants and fit the integer kernels (x/a and y per tensor, w per
// tensor or per output channel, b per tensor or per column, 8-bit types, float scales, the
// float intermediate used only by the QuantizeLinear; Gemm: transA = 0, a bias of N elements)
// is replaced in place by QLinearConv / QLinearMatMul / com.microsoft QGemm on the quantised
// inputs. A constant float bias is requantised to int32 with scale x_scale * w_scale. The
// now-unused float nodes are left for dce. Results agree with the float path to within one quantum
// (the float path rounds twice).
#pragma once

#include "compiler/ir/ir.h"

namespace onnxc {

/// Returns the number of patterns fused.
int fuse_qdq(Graph &g);

} // namespace onnxc
