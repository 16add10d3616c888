// Readable textual dump of the IR (`onnxc inspect --ir`, `--print-after=PASS`):
//
//   graph main_graph (inputs: %x: float[1x1x28x28]) {
//     %w: float[8x1x5x5] = constant
//     %y: float[1x8x28x28] = Conv(%x, %w) {kernel_shape=[5,5], strides=[1,1]}  # node 'conv1'
//     return %y
//   }
#pragma once

#include "compiler/ir/ir.h"

#include <string>

namespace onnxc {

/// The whole graph, subgraphs indented inside their node's attribute list.
std::string print_graph(const Graph &g, int indent = 0);
/// One node on one line (no trailing newline).
std::string print_node(const Node &n, int indent = 0);
/// "%name: float[1x3x224x224]"
std::string print_value(const Value &v);

} // namespace onnxc
