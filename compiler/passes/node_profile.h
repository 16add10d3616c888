// What a profile build (`onnxc compile --profile`) embeds about each kernel call: the node's
// name, op type, shapes and an estimate of its floating-point operations.
#pragma once

#include "compiler/ir/ir.h"

#include <cstdint>
#include <string>

namespace onnxc {

/// Static description of one kernel call for profiles (see onnxc_profile_node_info).
struct NodeProfile {
  std::string name;          ///< ONNX node name, or the node's description if it has none
  std::string op_type;       ///< ONNX op type
  std::string input_shapes;  ///< "1x1x28x28, 8x1x5x5" (absent optional inputs skipped)
  std::string output_shapes; ///< "1x8x28x28"
  uint64_t flops = 0;        ///< estimated floating-point operations of one call
};

/// Estimated floating-point operations of `n` (static shapes): 2·MACs for Conv, ConvTranspose,
/// Gemm and MatMul; 0 for ops that only move or reinterpret data (Reshape, Transpose, Concat,
/// Gather, ...); otherwise one per element of the largest input or output.
uint64_t estimate_flops(const Node &n);

/// The profile description of `n`.
NodeProfile describe_for_profile(const Node &n);

} // namespace onnxc
