// The ai.onnx.preview.training optimizers Adagrad, Momentum (standard and nesterov) and Adam:
// one update step of n tensors at once, as the ONNX specs define it (inputs R, T, X..., G...,
// then the state tensors; outputs X_new..., then the new states). float/double. Kernel:
// templates/cpu/optimizer.cpp.
#include "compiler/ops/op_util.h"
#include "templates/cpu/optimizer_params.h"

namespace onnxc {
namespace {

using onnxc_k::OptimizerParams;

int64_t kind_of(const Node &n) {
  if (n.op_type == "Adagrad")
    return onnxc_k::kAdagrad;
  if (n.op_type == "Adam")
    return onnxc_k::kAdam;
  std::string mode = attr_string(n, "mode", "");
  if (mode != "standard" && mode != "nesterov")
    node_fail(n, "mode must be \"standard\" or \"nesterov\", not \"{}\"", mode);
  return mode == "nesterov" ? onnxc_k::kNesterov : onnxc_k::kMomentum;
}

OptimizerParams optimizer_params(const Node &n) {
  OptimizerParams p{};
  p.kind = kind_of(n);
  const int64_t per = 2 + onnxc_k::optimizer_states(p.kind);
  const auto inputs = static_cast<int64_t>(num_inputs(n));
  if (inputs < 2 + per || (inputs - 2) % per != 0)
    node_fail(n, "expects R, T and {} inputs per optimized tensor, got {} inputs", per, inputs);
  p.n = (inputs - 2) / per;
  if (p.n > onnxc_k::kMaxOptimizerTensors)
    node_fail(n, "updates {} tensors; onnxc supports at most {} per node", p.n,
              onnxc_k::kMaxOptimizerTensors);
  for (int64_t j = 0; j < p.n; ++j)
    p.sizes[j] = product(input_dims(n, size_t(2 + j)));
  bool adam = p.kind == onnxc_k::kAdam;
  p.alpha = attr_float(n, "alpha", adam ? 0.9f : 0.0f);
  p.beta = attr_float(n, "beta", adam ? 0.999f : 0.0f);
  p.epsilon = attr_float(n, "epsilon", adam ? 1e-6f : 0.0f);
  p.decay_factor = attr_float(n, "decay_factor", 0.0f);
  p.norm_coefficient = attr_float(n, "norm_coefficient", 0.0f);
  p.norm_coefficient_post = attr_float(n, "norm_coefficient_post", 0.0f);
  return p;
}

void infer_optimizer(Node &n) {
  OptimizerParams p = optimizer_params(n);
  DType t = input_dtype(n, 2);
  require_dtype(n, t, {DType::Float, DType::Double});
  if (input_dtype(n, 0) != t || product(input_dims(n, 0)) != 1)
    node_fail(n, "R must be a scalar of X's element type");
  if (input_dtype(n, 1) != DType::Int64 || product(input_dims(n, 1)) != 1)
    node_fail(n, "T must be an int64 scalar");
  const int64_t groups = 1 + onnxc_k::optimizer_states(p.kind);
  for (int64_t j = 0; j < p.n; ++j) {
    std::vector<int64_t> x = input_dims(n, size_t(2 + j));
    for (int64_t k = 1; k <= groups; ++k) {
      size_t i = size_t(2 + k * p.n + j);
      if (input_dtype(n, i) != t || input_dims(n, i) != x)
        node_fail(n, "input {} must have the type and shape of X{} ({} {})", i + 1, j + 1,
                  dtype_name(t), dims_to_string(x));
    }
    for (int64_t k = 0; k < groups; ++k)
      set_output(n, size_t(k * p.n + j), t, x);
  }
}

KernelCall lower_optimizer(const Node &n) {
  OptimizerParams p = optimizer_params(n);
  KernelCall call;
  call.kernel = kernel_name(n, "optimizer", input_dtype(n, 2));
  call.args.assign(n.inputs.begin(), n.inputs.end());
  const int64_t outs = p.n * (1 + onnxc_k::optimizer_states(p.kind));
  for (int64_t k = 0; k < outs; ++k)
    call.args.push_back(size_t(k) < n.outputs.size() ? n.outputs[size_t(k)] : nullptr);
  set_params(call, p);
  return call;
}

OpDef optimizer_op(const char *name, std::vector<AttrSpec> attrs) {
  OpDef d;
  d.name = name;
  d.domain = "ai.onnx.preview.training";
  d.attrs = std::move(attrs);
  d.infer = infer_optimizer;
  d.lower = lower_optimizer;
  return d;
}

} // namespace

const OpDef &op_Adagrad() {
  static const OpDef def = optimizer_op("Adagrad", {{"decay_factor", Attribute::Kind::Float},
                                                    {"epsilon", Attribute::Kind::Float},
                                                    {"norm_coefficient", Attribute::Kind::Float}});
  return def;
}

const OpDef &op_Momentum() {
  static const OpDef def =
      optimizer_op("Momentum", {{"alpha", Attribute::Kind::Float, true},
                                {"beta", Attribute::Kind::Float, true},
                                {"mode", Attribute::Kind::String, true},
                                {"norm_coefficient", Attribute::Kind::Float, true}});
  return def;
}

const OpDef &op_Adam() {
  static const OpDef def =
      optimizer_op("Adam", {{"alpha", Attribute::Kind::Float},
                            {"beta", Attribute::Kind::Float},
                            {"epsilon", Attribute::Kind::Float},
                            {"norm_coefficient", Attribute::Kind::Float},
                            {"norm_coefficient_post", Attribute::Kind::Float}});
  return def;
}

} // namespace onnxc
