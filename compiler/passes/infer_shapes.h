// Pass: shape and type inference, with constant propagation.
// Expects: supported ops; graph inputs with static shapes (bind_input_shapes ran).
// Guarantees: every value has a dtype and a static shape. Every node whose inputs are all
// constant (and whose op is foldable), and every Shape/Size-like node (whose outputs depend only
// on input types), has its outputs computed by the reference evaluator and attached as
// Value::constant — this is what makes shape subgraphs (Shape → Gather → Concat →
// Reshape) constant before their consumers are inferred. Errors name the node and the op.
#pragma once

#include "compiler/ir/ir.h"

#include <map>
#include <string>

namespace onnxc {

struct InferOptions {
  bool propagate_constants = true;
  int64_t max_folded_bytes = int64_t(256) << 20; ///< larger results stay run-time computations
  /// The symbols' ranges (set by infer_shapes from the graph): an op without a symbolic shape
  /// rule whose symbolic dims are over one symbol is probed at every value of its range.
  const std::map<std::string, SymRange> *symbols = nullptr;
};

void infer_shapes(Graph &g, const InferOptions &opts = {});

} // namespace onnxc
