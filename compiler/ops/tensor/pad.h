// The call of the Pad kernel (templates/cpu/misc.cpp), shared by Pad and CenterCropPad.
#pragma once

#include "compiler/ops/op_util.h"

namespace onnxc {

/// A call of onnxc_k_pad from n's input 0 to its output 0 (types inferred): `begin` pads per
/// axis (negative crops; the end follows from the output dims), `mode` 0 constant / 1 reflect /
/// 2 edge / 3 wrap, the constant's bits (in the element type) or a one-element `value` tensor.
/// Throws naming the node for element types the kernel cannot copy.
KernelCall pad_call(const Node &n, const std::vector<int64_t> &begin, int64_t mode,
                    int64_t value_bits, Value *value);

} // namespace onnxc
