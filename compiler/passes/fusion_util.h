// Graph edits shared by the fusion passes (fold_batchnorm.cpp, fuse_activation.cpp).
#pragma once

#include "compiler/ir/ir.h"

#include <optional>
#include <unordered_set>
#include <vector>

namespace onnxc {

/// The node that uses v, if v has exactly one use and is not a graph output; else nullptr.
Node *sole_user(const Value *v);

/// Whether n is an ONNX-domain node of type op.
bool is_op(const Node &n, const char *op);

/// Makes `producer` compute `consumer`'s first output in its place: the two output values are
/// swapped, so the value consumer produced (its name, uses, graph-output role) stays and is now
/// produced earlier. `consumer` is recorded in producer's kFusedNodesAttr; the caller erases it.
/// consumer's other outputs must be unused.
void take_over_output(Node &producer, Node &consumer);

/// Makes `producer` compute `consumer`'s output with `operand` as its input `slot`, marked by the
/// Int attribute `marker` = 1 (fuse-bias's bias, fuse-residual's residual): sets the input and
/// the marker, then take_over_output. The caller erases `consumer`.
void absorb_operand(Graph &g, Node &producer, size_t slot, Value *operand, const char *marker,
                    Node &consumer);

/// Records `fused` (by describe()) in n's kFusedNodesAttr without moving any value.
void record_fused(Node &n, const Node &fused);

/// Replaces input `slot` of n with a new constant holding t, named after the old input.
void set_constant_input(Graph &g, Node &n, size_t slot, Tensor t);

/// A float/double tensor of dtype dt and the given shape holding `v` (rounded to dt).
Tensor make_float_tensor(DType dt, std::vector<int64_t> shape, const std::vector<double> &v);

/// Elements of a constant as doubles.
std::vector<double> to_doubles(const Tensor &t);

/// If c broadcasts against a value of shape `out` (rank >= 2, channel axis 1) without enlarging
/// it, and varies at most along the channel axis, its out[1] per-channel values; else nullopt.
/// The dims of t, -1 for a symbolic one (run-time extents); empty if the rank is unknown.
std::vector<int64_t> dims_or_unknown(const Type &t);

std::optional<std::vector<double>> per_channel_values(const Tensor &c,
                                                      const std::vector<int64_t> &out);

/// Erases the nodes in `dead` and every value nothing uses any more.
void erase_fused(Graph &g, const std::unordered_set<const Node *> &dead);

} // namespace onnxc
