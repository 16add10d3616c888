// CausalConvWithState (opset 27): depthwise causal 1-D convolution of input [B, C, L] with
// weight [C, 1, K] and optional bias [C], continuing from past_state [B, C, K-1] (zeros when
// omitted); outputs the result (optionally through SiLU: activation "silu" or "swish") and
// present_state. float, double, float16. Kernel: templates/cpu/causal_conv_state.cpp.
#include "compiler/ops/nn/attention_util.h"
#include "compiler/ops/op_util.h"
#include "templates/cpu/attention_params.h"

namespace onnxc {
namespace {

onnxc_k::CausalConvStateParams causal_conv_params(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0), w = input_dims(n, 1);
  if (x.size() != 3)
    node_fail(n, "input must be [batch, channels, length], got {}", dims_to_string(x));
  if (w.size() != 3 || w[0] != x[1] || w[1] != 1 || w[2] < 1)
    node_fail(n, "weight must be {}x1xK with K >= 1, got {}", x[1], dims_to_string(w));
  onnxc_k::CausalConvStateParams p{x[0], x[1], x[2], w[2], 0};
  if (n.has_input(2) && input_dims(n, 2) != std::vector<int64_t>{p.C})
    node_fail(n, "bias must have {} entries (one per channel), got shape {}", p.C,
              dims_to_string(input_dims(n, 2)));
  if (n.has_input(3) && input_dims(n, 3) != std::vector<int64_t>{p.B, p.C, p.K - 1})
    node_fail(n, "past_state must be {}x{}x{}, got {}", p.B, p.C, p.K - 1,
              dims_to_string(input_dims(n, 3)));
  const std::string act = attr_string(n, "activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    node_fail(n, "activation '{}' is not one of none, silu, swish", act);
  p.silu = act != "none";
  return p;
}

} // namespace

const OpDef &op_CausalConvWithState() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "CausalConvWithState";
    d.min_opset = 27;
    d.attrs = {{"activation", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      const DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double, DType::Float16});
      require_inputs_dtype(n, dt, 1, 4);
      const onnxc_k::CausalConvStateParams p = causal_conv_params(n);
      set_output(n, 0, dt, {p.B, p.C, p.L});
      set_output(n, 1, dt, {p.B, p.C, p.K - 1});
    };
    d.lower = [](const Node &n) {
      KernelCall call;
      call.kernel = kernel_name(n, "causal_conv_with_state", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1],  n.input(2),
                   n.input(3),  n.outputs[0], used_output(n, 1)};
      set_params(call, causal_conv_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
