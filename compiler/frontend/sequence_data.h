// Test data for sequence- and optional-typed graph inputs and outputs (ONNX stores them as
// serialized SequenceProto / OptionalProto files), flattened into the element tensors that
// desugar-sequences (compiler/passes/desugar_sequences.h) makes of such a value: a sequence NAME
// gives NAME.0, NAME.1, ...; a present optional gives its element under NAME, an absent one
// nothing.
#pragma once

#include "compiler/frontend/tensor_proto.h"
#include "compiler/ir/ir.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace onnxc {

/// A value read from a test-data file, flattened.
struct FlatValue {
  std::vector<NamedTensor> tensors;       ///< element tensors, named as the library's I/O
  std::map<std::string, int64_t> lengths; ///< each sequence's length (for --seq-length)
  std::set<std::string> absent;           ///< each absent optional (for --absent)
};

/// Reads `path` as the value `name` of type `t`: a TensorProto (named `name`) for a tensor, a
/// SequenceProto / OptionalProto otherwise. Throws Error naming the file if it does not parse or
/// does not hold that kind of value.
FlatValue read_value_file(const std::string &path, const std::string &name, const Type &t);

} // namespace onnxc
