// The lowering Expand and Tile share: the broadcasting copy kernel (templates/cpu/expand.cpp).
#pragma once

#include "compiler/ops/op_def.h"

#include <vector>

namespace onnxc {

/// A call of onnxc_k_broadcast copying input 0 of `n` to its output 0, where the input is
/// read with dims `in` (same rank as the output; the kernel reads coordinate c % in[d]).
/// Throws naming the node for element types the kernel cannot copy.
KernelCall broadcast_call(const Node &n, const std::vector<int64_t> &in);
/// onnxc_k_broadcast_rt for an Expand (tile false) or Tile whose input 1 is computed at run
/// time (the output is shaped at run time: Value::run_time_shape_from).
KernelCall broadcast_rt_call(const Node &n, bool tile);

} // namespace onnxc
