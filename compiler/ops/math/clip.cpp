// Clip: y = min(max(x, min), max). Before opset 11 min/max are float attributes (float types
// only); from 11 they are optional one-element inputs, constant or computed at run time
// (integer types from opset 12). If min > max every element becomes max.
#include "compiler/ops/op_util.h"

#include <limits>

namespace onnxc {

const OpDef &op_Clip() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Clip";
    d.min_opset = 6;
    d.attrs = {{"min", Attribute::Kind::Float}, {"max", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      DType t = input_dtype(n, 0);
      require_dtype(n, t,
                    {DType::Float, DType::Double, DType::Int8, DType::Int16, DType::Int32,
                     DType::Int64, DType::Uint8, DType::Uint16, DType::Uint32, DType::Uint64});
      if (n.opset < 11 && !dtype_is_float(t))
        node_fail(n, "element type {} is not supported before opset 11", dtype_name(t));
      for (size_t i = 1; n.opset >= 11 && i < 3; ++i) {
        if (!n.has_input(i))
          continue;
        if (input_dtype(n, i) != t)
          node_fail(n, "input {} ('{}') has element type {} but the data has {}", i,
                    i == 1 ? "min" : "max", dtype_name(input_dtype(n, i)), dtype_name(t));
        if (product(input_dims(n, i)) != 1)
          node_fail(n, "input '{}' must have exactly one element", i == 1 ? "min" : "max");
      }
      set_output(n, 0, t, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> params{product(output_dims(n, 0)), 0, 0, 0, 0};
      if (n.opset < 11) {
        params[1] = has_attr(n, "min");
        params[2] = param_f64(attr_float(n, "min", -std::numeric_limits<float>::max()));
        params[3] = has_attr(n, "max");
        params[4] = param_f64(attr_float(n, "max", std::numeric_limits<float>::max()));
      }
      Value *lo = n.opset >= 11 ? n.input(1) : nullptr, *hi = n.opset >= 11 ? n.input(2) : nullptr;
      return KernelCall{
          kernel_name(n, "clip", input_dtype(n, 0)), {n.inputs[0], lo, hi, n.outputs[0]}, params};
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
