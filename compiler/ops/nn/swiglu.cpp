// SwiGLU (opset 28): Y = A * Sigmoid(alpha * A) * B over inputs of identical shape (no
// broadcasting). float, double, float16. Kernel: templates/cpu/swiglu.cpp. (Swish itself is
// element-wise: templates/cpu/elementwise.def.)
#include "compiler/ops/op_util.h"
#include "templates/cpu/attention_params.h"

namespace onnxc {

const OpDef &op_SwiGLU() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "SwiGLU";
    d.min_opset = 28;
    d.attrs = {{"alpha", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      const DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double, DType::Float16});
      require_inputs_dtype(n, dt, 1, 2);
      if (input_dims(n, 0) != input_dims(n, 1))
        node_fail(n, "A {} and B {} must have the same shape", dims_to_string(input_dims(n, 0)),
                  dims_to_string(input_dims(n, 1)));
      set_output(n, 0, dt, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      KernelCall call;
      call.kernel = kernel_name(n, "swiglu", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1], n.outputs[0]};
      set_params(call,
                 onnxc_k::SwiGluParams{product(input_dims(n, 0)), attr_float(n, "alpha", 1.0f)});
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
