// How an ONNX operator is defined — once, in one place.
//
// An OpDef holds the schema (name, domain, opset range, typed attributes with defaults), the
// shape/type rule, and the lowering to a KernelCall: which kernel template to call, on which
// tensors, with which constant parameters. The same KernelCall drives
//   - the CPU backend (codegen/cpu emits `kernel(rt, tensors, params)` with params as a constant
//     global, and LLVM specialises the inlined kernel for them), and
//   - the reference evaluator used by constant folding (compiler/ops/evaluate.cpp runs the same
//     kernel compiled natively into onnxc), unless the op supplies its own `eval`.
// Element-wise ops are not written here at all: each is one line in templates/cpu/elementwise.def.
//
// Kernel calling convention (templates/cpu/kernel_abi.h):
//   int32_t kernel(onnxc_rt *rt, void *const *tensors, const int64_t *params);
// `tensors` holds KernelCall::args in order (nullptr for an omitted optional input), then the
// scratch buffer if scratch_bytes > 0. Returns 0 or an ONNXC_STATUS_* code after onnxc_rt_fail().
#pragma once

#include "compiler/ir/ir.h"
#include "templates/cpu/params.h"

#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onnxc {

/// Node attribute (string) naming the run-time count symbol of an op with OpDef::count_bound.
inline constexpr char kCountSymbolAttr[] = "onnxc.count_symbol";
/// The index of a run-time count among the model's symbols (onnxc_rt_set_count): a model with
/// a run-time count has no other symbol (lower-extent and the driver refuse one).
inline constexpr int64_t kCountSymbolIndex = 0;

/// A call of one kernel template with constant parameters.
/// A params word that the run's shape of a tensor argument decides (a value shaped at run
/// time, Value::run_time_shape_from): value + scale * (dim `dim` of args[arg]'s recorded shape,
/// or its element count for dim -1). The backend computes it before the call.
struct ShapeWord {
  size_t word = 0, arg = 0;
  int64_t dim = -1;
  int64_t value = 0, scale = 1;
};

struct KernelCall {
  std::string kernel;          ///< entry point, e.g. "onnxc_k_conv_f32"
  std::vector<Value *> args;   ///< tensor arguments (inputs then outputs, as the kernel expects)
  std::vector<int64_t> params; ///< constants: a typed struct (set_params) or, in older
                               ///< kernels, a hand-laid list (doubles stored with param_f64())
  int64_t scratch_bytes = 0;   ///< temporary buffer the planner provides as the last tensor
  /// (input arg, output arg) pairs that may share storage when the input is not used after
  /// this call: the kernel reads each element of the input before it writes the output element
  /// at the same index, and nothing else (element-wise ops). plan-memory decides.
  std::vector<std::pair<int, int>> inplace{};
  /// Constants the lowering derives from constant inputs (weights pre-packed in a kernel's
  /// layout): args[slot] is nullptr in the lowering's result; plan-memory adds the tensor to the
  /// graph as a weight (named after `name`) and the evaluator passes it as is.
  struct Derived {
    size_t slot;
    TensorPtr tensor;
    std::string name;
  };
  std::vector<Derived> derived{};
  /// Params words the run's shapes of arguments decide (inputs shaped at run time).
  std::vector<ShapeWord> shape_words{};
};

/// Encodes a double as an int64 parameter (bit copy); kernels read it with onnxc_param_f64().
int64_t param_f64(double v);

/// Stores the kernel's typed parameter struct (templates/cpu/params.h) as call's params; the
/// kernel reads it with onnxc_k::params_of<P>().
template <typename P> void set_params(KernelCall &call, const P &p) {
  static_assert(onnxc_k::is_param_struct<P>(), "kernel params: 8-byte fields only");
  call.params.resize(sizeof(P) / sizeof(int64_t));
  std::memcpy(call.params.data(), &p, sizeof(P));
}

struct AttrSpec {
  std::string name;
  Attribute::Kind kind;
  bool required = false;
};

/// Sets the types of node's outputs from its inputs' types (and constant values where a shape
/// depends on them). Throws Error naming the node on invalid shapes.
using InferFn = std::function<void(Node &)>;
/// Lowers a node whose output types are inferred and static into one kernel call.
using LowerFn = std::function<KernelCall(const Node &)>;
/// Optional special evaluator: computes all outputs from constant inputs.
using EvalFn =
    std::function<std::vector<Tensor>(const Node &, const std::vector<const Tensor *> &)>;

struct OpDef {
  std::string name;
  std::string domain;     ///< "" for ai.onnx
  int64_t min_opset = 1;  ///< oldest opset version whose semantics we implement
  int64_t max_opset = 28; ///< newest
  std::vector<AttrSpec> attrs;
  InferFn infer;
  LowerFn lower;
  EvalFn eval;          ///< empty: evaluate by running the lowered kernel natively
  bool foldable = true; ///< may be constant-folded when all inputs are constant
  /// false: the outputs depend only on the inputs' types (Shape, Size), so they fold even when
  /// the inputs are computed at run time; `eval` then gets nullptr for those inputs.
  bool reads_input_values = true;
  /// true: `infer` and `lower` take input 0 shaped at run time (Value::run_time_shape_from),
  /// reading its shape from the run (KernelCall::shape_words): Shape, Size, Slice.
  bool run_time_shaped_input = false;
  /// true: as run_time_shaped_input, for every input (onnxc.SelectShaped).
  bool run_time_shaped_inputs = false;
  /// true: the op is also accepted from models importing an ai.onnx opset older than onnxc's
  /// general minimum (kMinOpset, compiler/passes/check_supported.h), down to min_opset: its
  /// semantics have not changed since then (Not).
  bool before_min_opset = false;
  /// true: outputs follow input 0's dim 0 (the batch of NCHW ops) or do not depend on it, and
  /// nothing else does: a symbolic batch passes through the static shape rule (infer-shapes
  /// runs it at two batch sizes and checks that).
  bool batch_transparent = false;
  /// true: each output element is computed from the inputs' elements at the same index, the
  /// inputs broadcast multidirectionally to the output shape (the ops of elementwise.def).
  bool elementwise = false;
  /// The most inputs / outputs the op takes in any opset (check-supported refuses more, also
  /// at opsets newer than libonnx's schemas): kernels take their operands by position, so an
  /// extra input would be read as an output.
  size_t max_inputs = SIZE_MAX;
  /// Ops whose output dims are a count their input values decide (NonZero, Compress,
  /// NonMaxSuppression, TopK's K): when an input it depends on is computed at run time, the
  /// largest count for the node's input types, else -1. infer-shapes then makes the count a
  /// run-time count (Graph::counts), names it in the node's kCountSymbolAttr, and `infer` and
  /// `lower` read that attribute.
  std::function<int64_t(const Node &)> count_bound;
  size_t max_outputs = SIZE_MAX;
  /// Inputs that libonnx's newest schema of the op requires but a newer opset made optional:
  /// (input index, the opset from which it may be ''). check-supported reads the schemas.
  std::vector<std::pair<size_t, int64_t>> optional_inputs_from;
};

} // namespace onnxc
