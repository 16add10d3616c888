// Run-time batch by per-sample execution (issue 8, first strategy).
//
// A model whose only run-time dim is a leading batch symbol, and in which every node computes
// each sample of its outputs from the same sample of its inputs (plus batch-independent
// tensors), is compiled once at batch 1; onnxc_run then runs it once per sample on
// sample-sized slices of the caller's buffers. The arena is the batch-1 arena whatever the
// batch, and each sample runs the fully specialised code.
//
// This file decides whether a graph qualifies: find_batch_symbol() looks at the graph inputs,
// check_sample_wise() at every node of the graph with its shapes inferred symbolically.
#pragma once

#include "compiler/ir/ir.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace onnxc {

/// The one symbol that is, wherever g's inputs use it, their whole dim 0: the batch candidate
/// (other symbols, a sequence length, may appear in other dims); nullopt if there is none or
/// several. Shapes must have been bound (bind_input_shapes, keep_symbolic).
std::optional<std::string> find_batch_symbol(const Graph &g);
/// Every symbol in the dims of g's inputs.
std::set<std::string> input_symbols(const Graph &g);

/// Which graph inputs / outputs carry the batch at axis 0 (the others are batch-independent).
struct SampleWise {
  std::string reason;               ///< empty: the graph runs per sample; else why not
  std::vector<bool> batched_inputs; ///< per graph input
  std::vector<bool> batched_outputs;
  /// Matrix products whose rows are the batch: per sample they have fewer rows than a GEMM
  /// tile (often one: a matrix-vector product), much slower than one product over the batch.
  std::vector<const Node *> thin_products;
};

/// Checks that g, whose shapes were inferred with `batch` symbolic, computes each sample
/// independently (see the file comment). Inside the graph the batch may move to any axis
/// (attention's head transposes); graph inputs and outputs have it at axis 0. The reason names
/// the first node that does not.
SampleWise check_sample_wise(const Graph &g, const std::string &batch);

} // namespace onnxc
