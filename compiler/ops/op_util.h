// Helpers every op definition uses: attributes with defaults, input types and constants, output
// types, axis normalisation, broadcasting, kernel names, and errors that name the node.
#pragma once

#include <optional>

#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"

#include <string>
#include <vector>

namespace onnxc {

/// Throws Error "<node description>: <message>".
template <typename... Args>
[[noreturn]] void node_fail(const Node &n, fmt::format_string<Args...> f, Args &&...args) {
  throw Error(n.describe() + ": " + fmt::format(f, std::forward<Args>(args)...));
}

// Attributes (the frontend keeps ONNX's types; these check the kind and apply defaults).
bool has_attr(const Node &n, const std::string &name);
int64_t attr_int(const Node &n, const std::string &name, int64_t def);
float attr_float(const Node &n, const std::string &name, float def);
std::string attr_string(const Node &n, const std::string &name, const std::string &def);
std::vector<int64_t> attr_ints(const Node &n, const std::string &name,
                               const std::vector<int64_t> &def = {});
std::vector<float> attr_floats(const Node &n, const std::string &name);
/// Attribute tensor (e.g. Constant's value, ConstantOfShape's value); nullptr if absent.
TensorPtr attr_tensor(const Node &n, const std::string &name);

// Inputs.
/// Number of inputs, counting omitted optional inputs in the middle but not trailing ones.
size_t num_inputs(const Node &n);
/// Type of input i; throws if the input is missing.
const Type &input_type(const Node &n, size_t i);
DType input_dtype(const Node &n, size_t i);
/// Static dims of input i; throws an error that says which --shape/--dim flag to pass.
std::vector<int64_t> input_dims(const Node &n, size_t i);
/// Constant value of input i, or nullptr if it is not known at compile time (or omitted).
const Tensor *input_constant(const Node &n, size_t i);
/// "it is computed at run time from 'v' (from the graph inputs 'a', 'b')": the end of every
/// "must be a compile-time constant" message; `onnxc verify` compiles those inputs in.
std::string computed_from(const Value *v);
/// Constant value of input i; throws "input '<what>' must be a compile-time constant".
const Tensor &require_constant(const Node &n, size_t i, const char *what);

// Outputs.
void set_output(Node &n, size_t i, DType dtype, const std::vector<int64_t> &dims);
/// Static dims of output i (after inference).
std::vector<int64_t> output_dims(const Node &n, size_t i);
/// Output i shaped at run time by the values of input `from` (Value::run_time_shape_from):
/// its type the largest result, `bound` (every dim at least 1, so its buffer exists).
/// `bounded`: the kernel always writes the result into the output's own buffer, never into
/// run-scoped memory (Value::run_time_bounded: element-wise ops may then follow it).
void set_run_time_shaped_output(Node &n, size_t i, DType dtype, std::vector<int64_t> bound,
                                size_t from, bool bounded = false);
/// The values of a small int64 1-D (or scalar) tensor that the compiler knows, nullopt where
/// the run decides: constants, and Concat / Unsqueeze / Squeeze / Reshape / Identity of them
/// (Concat(n, [2, 3]) with n computed at run time: [?, 2, 3]). Empty when its length is unknown.
std::vector<std::optional<int64_t>> partial_int_values(const Value *v);
/// True if input i is present, computed at run time and not known as expressions of the
/// model's symbols (Value::sym_value): its values decide a shape only at run time.
bool values_at_run_time(const Node &n, size_t i);
/// True when input i gives n only its element type (CastLike's second input): its values and
/// shape do not matter, even when the run decides that shape.
inline bool input_gives_only_type(const Node &n, size_t i) {
  return n.op_type == "CastLike" && i == 1;
}
/// n's first input whose shape the run decides (Value::run_time_shape_from), leaving out an
/// input that gives only a type; nullptr if none.
inline Value *first_run_time_shaped_input(const Node &n) {
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (Value *v = n.inputs[i];
        v && !v->run_time_shape_from.empty() && !input_gives_only_type(n, i))
      return v;
  return nullptr;
}
/// onnxc_k_shape_copy (templates/cpu/shaped_params.h) for a Reshape/Squeeze/Unsqueeze whose
/// output is shaped at run time by input 1; `mode` is an onnxc_k::ShapeCopyMode.
KernelCall shape_copy_call(const Node &n, int64_t mode);
/// onnxc_k_copy of input 0 into output 0 (same bytes) for the ops that only rename their input
/// (Reshape, Flatten, Squeeze, Unsqueeze, Identity), marked in place: plan-memory gives the
/// output the input's buffer when this is the input's last use, and the kernel then copies
/// nothing (a Reshape of attention's 384 KB qkv had been a 4.7 us copy per layer).
KernelCall rename_call(const Node &n);

/// Axis in [-rank, rank) → [0, rank); throws naming the node otherwise.
int64_t normalize_axis(const Node &n, int64_t axis, int64_t rank);
/// Multidirectional (numpy) broadcast of shapes; throws naming the node on mismatch.
std::vector<int64_t> broadcast_shapes(const Node &n, const std::vector<std::vector<int64_t>> &s);
/// Row-major strides of `dims` aligned right to an output of rank `out_rank`; broadcast dims
/// (size 1 where the output is larger) get stride 0.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t> &dims,
                                       const std::vector<int64_t> &out_dims);
int64_t product(const std::vector<int64_t> &dims);

/// "onnxc_k_<base>_<suffix of dtype>"; throws naming the node if no kernel supports the dtype.
std::string kernel_name(const Node &n, const std::string &base, DType dtype);
/// Throws naming the node unless every present input in [first, last) has element type `dtype`
/// (e.g. a Conv's W and B must match X).
void require_inputs_dtype(const Node &n, DType dtype, size_t first, size_t last);
/// Throws naming the node unless `dtype` is one of `allowed`.
void require_dtype(const Node &n, DType dtype, std::initializer_list<DType> allowed);
/// Bytes of a tensor of static type.
int64_t type_bytes(const Type &t);

/// The kernel call that writes t's bytes into the node's output 0 (onnxc_k_write_bytes): the
/// lowering of an op whose value is known at compile time.
KernelCall write_constant_call(const Node &n, const Tensor &t);

/// Convenience for lowerings: a KernelCall on the node's inputs then outputs (omitted optional
/// inputs stay nullptr), with the given params.
KernelCall call_on_all(const Node &n, std::string kernel, std::vector<int64_t> params);

/// While one is alive on this thread, derived_tensor() remembers what it made by key:
/// lower-extent (passes/lower_extent.h) lowers a node once per value of a run-time extent, and
/// the weights a lowering packs do not change with it.
class DerivedCache {
public:
  DerivedCache();
  ~DerivedCache();
  DerivedCache(const DerivedCache &) = delete;
  DerivedCache &operator=(const DerivedCache &) = delete;
};
/// A constant a lowering derives from constant inputs (KernelCall::derived): make(), or the
/// tensor an earlier call with the same key made while a DerivedCache is alive. The key must
/// name everything the tensor depends on (the source constant and the layout's parameters).
TensorPtr derived_tensor(const std::string &key, const std::function<TensorPtr()> &make);

} // namespace onnxc
