// Helpers for the signal ops whose outputs depend only on constant inputs (the window functions,
// MelWeightMatrix): they are computed at compile time in double and stored in the output type.
#ifndef ONNXC_OPS_SIGNAL_UTIL_H
#define ONNXC_OPS_SIGNAL_UTIL_H

#include "compiler/ops/op_util.h"
#include "templates/cpu/dft_params.h"

namespace onnxc {

/// A tensor of dtype and shape holding values converted from double (float and double by
/// rounding, integer types by truncation, as numpy's astype). Other types fail naming the node.
Tensor tensor_from_doubles(const Node &n, DType dtype, std::vector<int64_t> shape,
                           const std::vector<double> &values);


/// Input i as a scalar integer; it must be a compile-time constant with one element.
int64_t constant_scalar_int(const Node &n, size_t i, const char *what);

/// The call of onnxc_k_dft_<dtype> (DFT and STFT) on signal x, an optional window, output y.
KernelCall dft_call(const Node &n, const onnxc_k::DftParams &p, Value *window);

} // namespace onnxc

#endif
