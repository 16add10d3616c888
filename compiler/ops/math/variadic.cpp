// Sum, Mean, Max, Min over any number of inputs with multidirectional broadcasting (opset 8+;
// opset 6 required equal shapes, which broadcasting covers). Integer Max/Min from opset 12.
#include "compiler/ops/op_util.h"

namespace onnxc {

static OpDef variadic(const char *name, int64_t code) {
  OpDef d;
  d.name = name;
  d.min_opset = 6;
  d.infer = [](Node &n) {
    size_t k = num_inputs(n);
    if (k == 0)
      node_fail(n, "needs at least one input");
    DType t = input_dtype(n, 0);
    require_dtype(n, t,
                  {DType::Float, DType::Double, DType::Int8, DType::Int16, DType::Int32,
                   DType::Int64, DType::Uint8, DType::Uint16, DType::Uint32, DType::Uint64});
    std::vector<std::vector<int64_t>> shapes;
    for (size_t i = 0; i < k; ++i) {
      if (input_dtype(n, i) != t)
        node_fail(n, "input {} has element type {} but input 0 has {}", i,
                  dtype_name(input_dtype(n, i)), dtype_name(t));
      shapes.push_back(input_dims(n, i));
    }
    set_output(n, 0, t, broadcast_shapes(n, shapes));
  };
  d.lower = [code](const Node &n) {
    size_t k = num_inputs(n);
    std::vector<int64_t> out = output_dims(n, 0);
    std::vector<int64_t> params{code, static_cast<int64_t>(k), static_cast<int64_t>(out.size())};
    params.insert(params.end(), out.begin(), out.end());
    KernelCall c{kernel_name(n, "variadic", input_dtype(n, 0)), {}, {}};
    for (size_t i = 0; i < k; ++i) {
      std::vector<int64_t> s = broadcast_strides(input_dims(n, i), out);
      params.insert(params.end(), s.begin(), s.end());
      c.args.push_back(n.inputs[i]);
    }
    c.args.push_back(n.outputs[0]);
    c.params = std::move(params);
    return c;
  };
  return d;
}

const OpDef &op_Sum() {
  static const OpDef def = variadic("Sum", 0);
  return def;
}
const OpDef &op_Mean() {
  static const OpDef def = variadic("Mean", 1);
  return def;
}
const OpDef &op_Max() {
  static const OpDef def = variadic("Max", 2);
  return def;
}
const OpDef &op_Min() {
  static const OpDef def = variadic("Min", 3);
  return def;
}

} // namespace onnxc
