// Expand: broadcasts the input to the (constant) `shape` input, bidirectionally as numpy does.
// Lowers to the broadcasting copy kernel.
#include "compiler/ops/op_util.h"
#include "compiler/ops/tensor/broadcast_call.h"

namespace onnxc {

KernelCall broadcast_call(const Node &n, const std::vector<int64_t> &in) {
  std::vector<int64_t> out = output_dims(n, 0);
  int bits = dtype_slot_bits(input_dtype(n, 0));
  if (bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(input_dtype(n, 0)));
  std::vector<int64_t> params{bits / 8, static_cast<int64_t>(out.size())};
  params.insert(params.end(), out.begin(), out.end());
  params.insert(params.end(), in.begin(), in.end());
  return KernelCall{"onnxc_k_broadcast", {n.inputs[0], n.outputs[0]}, params};
}

const OpDef &op_Expand() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Expand";
    d.min_opset = 8;
    d.infer = [](Node &n) {
      std::vector<int64_t> shape = require_constant(n, 1, "shape").to_int64_vector();
      for (int64_t s : shape)
        if (s < 0)
          node_fail(n, "shape {} has a negative dimension", dims_to_string(shape));
      set_output(n, 0, input_dtype(n, 0), broadcast_shapes(n, {input_dims(n, 0), shape}));
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> in = input_dims(n, 0);
      in.insert(in.begin(), output_dims(n, 0).size() - in.size(), 1);
      return broadcast_call(n, in);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
