// Shape rules over symbolic dims (issue 8: run-time shapes). An op whose shape rule uses these
// instead of input_dims()/set_output() keeps dims symbolic ("batch", "seq*4") through shape
// inference; the others still require static dims and say which --dim to pass.
//
// Small integer tensors computed from shapes (Shape -> Gather -> Concat -> Reshape, as every
// exporter emits for dynamic axes) are followed as expressions too: Value::sym_value.
#pragma once

#include "compiler/ops/op_util.h"

#include <optional>
#include <vector>

namespace onnxc {

/// Dims of input i as expressions; throws naming the node if the rank or a dim is unknown.
std::vector<SymInt> input_sym_dims(const Node &n, size_t i);
/// Sets output i's type; a constant dim must not be negative.
void set_output_sym(Node &n, size_t i, DType dtype, const std::vector<SymInt> &dims);
/// The count dim `c - 1` of a node that counts at run time (its kCountSymbolAttr names c), or
/// nullopt.
std::optional<SymInt> run_time_count_dim(const Node &n);
/// Multidirectional broadcasting over expressions: equal dims, or 1 against anything; a
/// symbolic dim against a constant c > 1 gives c. Two different symbolic dims are refused
/// (which one is 1 is known only at run time): the error names them and the --dim flag.
std::vector<SymInt> broadcast_sym_shapes(const Node &n,
                                         const std::vector<std::vector<SymInt>> &shapes);
/// The values of input i when they are known at compile time as expressions: an int32/int64
/// constant of rank <= 1, or a value whose sym_value the shape rules computed. nullopt else.
std::optional<std::vector<SymInt>> input_sym_value(const Node &n, size_t i);
/// True if any present input has a dim that is not static.
bool has_symbolic_input(const Node &n);
/// e simplified where the symbols' declared ranges decide it: an expression over one symbol
/// that equals the symbol (or a constant) at every value of its range becomes that symbol (the
/// constant): min(seq, 128) is seq when seq ranges over 1..128 (--dim seq=1..128). Ranges of more
/// than 2^16 values are not searched.
SymInt simplify_in_ranges(const SymInt &e, const std::map<std::string, SymRange> &ranges);

} // namespace onnxc

namespace onnxc {

/// After a node's shape rule ran: computes Value::sym_value of its output for the ops that
/// carry shapes as values (Shape, Size, Gather, Unsqueeze, Squeeze, Concat, Slice, Cast,
/// Identity, Add, Sub, Mul, Div) when their inputs' values are known as expressions. An output
/// whose expressions are all constant becomes a constant instead.
void infer_sym_value(Node &n);

} // namespace onnxc
