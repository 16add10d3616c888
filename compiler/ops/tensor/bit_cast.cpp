// BitCast (opset 26): reinterprets each element's bits as the type `to` of the same width (a
// byte copy; the shape is unchanged).
#include "compiler/ops/op_util.h"

namespace onnxc {

const OpDef &op_BitCast() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "BitCast";
    d.min_opset = 26;
    d.attrs = {{"to", Attribute::Kind::Int, true}};
    d.infer = [](Node &n) {
      DType from = input_dtype(n, 0);
      auto to = static_cast<DType>(attr_int(n, "to", 0));
      if (to == DType::String || from == DType::String || dtype_bits(to) == 0)
        node_fail(n, "cannot bit-cast {} to {}", dtype_name(from), dtype_name(to));
      if (dtype_bits(to) != dtype_bits(from))
        node_fail(n, "'to' ({}, {} bits) must have the width of the input type ({}, {} bits)",
                  dtype_name(to), dtype_bits(to), dtype_name(from), dtype_bits(from));
      set_output(n, 0, to, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      return KernelCall{
          "onnxc_k_copy", {n.inputs[0], n.outputs[0]}, {type_bytes(n.outputs[0]->type)}};
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
