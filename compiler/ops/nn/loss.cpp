// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12+): input [N, C, d1, ...],
// target [N, d1, ...] (int32/int64), optional per-class weight [C]; reduction none/sum/mean,
// optional ignore_index. SoftmaxCrossEntropyLoss takes the log-softmax over C first and may
// output it (log_prob). float/double; kernel templates/cpu/loss.cpp, params loss_params.h.
#include "compiler/ops/op_util.h"
#include "templates/cpu/loss_params.h"

namespace onnxc {
namespace {

onnxc_k::LossReduction loss_reduction(const Node &n) {
  const std::string r = attr_string(n, "reduction", "mean");
  if (r == "none")
    return onnxc_k::kLossNone;
  if (r == "sum")
    return onnxc_k::kLossSum;
  if (r == "mean")
    return onnxc_k::kLossMean;
  node_fail(n, "reduction must be 'none', 'sum' or 'mean', got '{}'", r);
}

/// Checks the inputs' types and shapes and returns the kernel's parameters.
onnxc_k::LossParams loss_params(const Node &n, bool softmax) {
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  require_dtype(n, input_dtype(n, 1), {DType::Int32, DType::Int64});
  require_inputs_dtype(n, dt, 2, 3);
  const std::vector<int64_t> x = input_dims(n, 0), t = input_dims(n, 1);
  if (x.size() < 2)
    node_fail(n, "input must have shape [N, C, d1, ...], got rank {}", x.size());
  std::vector<int64_t> want_t{x[0]};
  want_t.insert(want_t.end(), x.begin() + 2, x.end());
  if (t != want_t)
    node_fail(n, "target has shape {} but the input {} needs {}", dims_to_string(t),
              dims_to_string(x), dims_to_string(want_t));
  if (n.has_input(2) && input_dims(n, 2) != std::vector<int64_t>{x[1]})
    node_fail(n, "weight must have shape [{}] (one per class), got {}", x[1],
              dims_to_string(input_dims(n, 2)));
  onnxc_k::LossParams p{};
  p.N = x[0], p.C = x[1], p.D = product({x.begin() + 2, x.end()});
  p.reduction = loss_reduction(n);
  p.has_ignore = has_attr(n, "ignore_index");
  p.ignore_index = attr_int(n, "ignore_index", 0);
  p.softmax = softmax;
  p.has_log_prob = softmax && n.outputs.size() > 1 && n.outputs[1] &&
                   (!n.outputs[1]->uses.empty() || n.outputs[1]->is_graph_output);
  return p;
}

OpDef loss_def(const char *name, bool softmax) {
  OpDef d;
  d.name = name;
  d.min_opset = 12;
  d.attrs = {{"reduction", Attribute::Kind::String}, {"ignore_index", Attribute::Kind::Int}};
  d.infer = [softmax](Node &n) {
    const onnxc_k::LossParams p = loss_params(n, softmax);
    const DType dt = input_dtype(n, 0);
    set_output(n, 0, dt,
               p.reduction == onnxc_k::kLossNone ? input_dims(n, 1) : std::vector<int64_t>{});
    if (softmax && n.outputs.size() > 1 && n.outputs[1])
      set_output(n, 1, dt, input_dims(n, 0));
  };
  d.lower = [softmax](const Node &n) {
    const onnxc_k::LossParams p = loss_params(n, softmax);
    const DType dt = input_dtype(n, 0);
    KernelCall call;
    call.kernel = kernel_name(n, "loss", dt) + "_" + std::string(dtype_suffix(input_dtype(n, 1)));
    call.args = {n.inputs[0], n.inputs[1], n.input(2), n.outputs[0],
                 p.has_log_prob ? n.outputs[1] : nullptr};
    set_params(call, p);
    call.scratch_bytes = onnxc_k::loss_scratch_bytes(p, dtype_bits(dt) / 8);
    return call;
  };
  return d;
}

} // namespace

const OpDef &op_NegativeLogLikelihoodLoss() {
  static const OpDef def = loss_def("NegativeLogLikelihoodLoss", false);
  return def;
}

const OpDef &op_SoftmaxCrossEntropyLoss() {
  static const OpDef def = loss_def("SoftmaxCrossEntropyLoss", true);
  return def;
}

} // namespace onnxc
