// Where: out = cond ? x : y with multidirectional broadcasting of all three inputs.
#include "compiler/ops/op_util.h"
#include "compiler/ops/sym_util.h"

namespace onnxc {

const OpDef &op_Where() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Where";
    d.max_inputs = 3;
    d.max_outputs = 1;
    d.min_opset = 9;
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Bool});
      if (input_dtype(n, 1) != input_dtype(n, 2))
        node_fail(n, "x and y have different element types ({} and {})",
                  dtype_name(input_dtype(n, 1)), dtype_name(input_dtype(n, 2)));
      if (has_symbolic_input(n)) { // run-time dims broadcast as element-wise ops do
        set_output_sym(n, 0, input_dtype(n, 1),
                       broadcast_sym_shapes(
                           n, {input_sym_dims(n, 0), input_sym_dims(n, 1), input_sym_dims(n, 2)}));
        return;
      }
      set_output(n, 0, input_dtype(n, 1),
                 broadcast_shapes(n, {input_dims(n, 0), input_dims(n, 1), input_dims(n, 2)}));
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> out = output_dims(n, 0);
      int bits = dtype_slot_bits(input_dtype(n, 1));
      if (bits < 8 || bits > 64)
        node_fail(n, "element type {} is not supported", dtype_name(input_dtype(n, 1)));
      std::vector<int64_t> params{bits / 8, static_cast<int64_t>(out.size())};
      params.insert(params.end(), out.begin(), out.end());
      for (size_t i = 0; i < 3; ++i) {
        std::vector<int64_t> s = broadcast_strides(input_dims(n, i), out);
        params.insert(params.end(), s.begin(), s.end());
      }
      return call_on_all(n, "onnxc_k_where", params);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
