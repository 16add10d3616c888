// Pass: bind graph-input shapes.
// Expects: graph inputs with the types the model declares (dims static or symbolic).
// Guarantees: every graph input has a static shape — from the model, from --shape NAME=AxB or
// from --dim PARAM=N — or an Error says which flag to pass. With keep_symbolic, unbound dims
// stay symbolic instead and Graph::symbols lists them with their ranges. Inputs given a value
// (--const-input NAME=FILE.pb) are no longer graph inputs but constants of that value.
#pragma once

#include "compiler/ir/ir.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace onnxc {

struct ShapeBindings {
  std::map<std::string, std::vector<int64_t>> input_shapes; ///< --shape NAME=1x3x224x224
  std::map<std::string, int64_t> dims;                      ///< --dim PARAM=N
  std::map<std::string, SymRange> ranges;                   ///< --dim PARAM=LO..HI
  /// Keep dims that no flag binds symbolic (named, ranged; unnamed ones get the name
  /// INPUT_dimK) instead of failing; `inspect` shows them. Compiling still needs static dims.
  bool keep_symbolic = false;
  std::map<std::string, TensorPtr> input_values;            ///< --const-input NAME=FILE.pb
  std::map<std::string, int64_t> sequence_lengths;          ///< --seq-length NAME=N
  std::set<std::string> absent_optionals;                   ///< --absent NAME
};

/// Parses "NAME=1x3x224x224" (for --shape) into the bindings; throws Error on bad syntax.
void parse_shape_flag(const std::string &flag, ShapeBindings &b);
/// Parses "PARAM=N" or "PARAM=LO..HI" (for --dim); throws Error on bad syntax.
void parse_dim_flag(const std::string &flag, ShapeBindings &b);

void bind_input_shapes(Graph &g, const ShapeBindings &b);

/// Throws Error for a graph input that is not a tensor (sequence, map, optional).
/// bind_input_shapes checks this too; `verify` calls it before reading test data, whose files
/// for such inputs are not TensorProtos.
void check_input_kinds(const Graph &g);

} // namespace onnxc
