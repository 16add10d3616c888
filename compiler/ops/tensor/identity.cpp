// Identity (a byte copy) and Dropout at inference (a copy; the optional mask output is all true).
#include "compiler/ops/sym_util.h"

namespace onnxc {

const OpDef &op_Identity() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Identity";
    d.infer = [](Node &n) { set_output_sym(n, 0, input_dtype(n, 0), input_sym_dims(n, 0)); };
    d.lower = [](const Node &n) {
      return rename_call(n);
    };
    return d;
  }();
  return def;
}

/// Dropout in training mode (a constant true training_mode input) is random; onnxc rejects it.
static void check_inference_mode(const Node &n) {
  if (n.opset < 12 || !n.has_input(2))
    return;
  const Tensor &training = require_constant(n, 2, "training_mode");
  if (training.int_at(0) == 0)
    return;
  double ratio = n.has_input(1) ? require_constant(n, 1, "ratio").float_at(0) : 0.5;
  if (ratio != 0.0)
    node_fail(n, "training mode (random dropout) is not supported; set training_mode to false");
}

/// Bits of the value 1 (true) in the mask's dtype: bool before opset 10 was the input type.
static int64_t one_bits(const Node &n, DType t) {
  switch (t) {
  case DType::Float:
    return 0x3f800000;
  case DType::Double:
    return 0x3ff0000000000000;
  case DType::Float16:
    return 0x3c00;
  case DType::BFloat16:
    return 0x3f80;
  default:
    (void)n;
    return 1;
  }
}

const OpDef &op_Dropout() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Dropout";
    d.min_opset = 7;
    d.attrs = {{"ratio", Attribute::Kind::Float}, {"seed", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      check_inference_mode(n);
      std::vector<SymInt> dims = input_sym_dims(n, 0);
      set_output_sym(n, 0, input_dtype(n, 0), dims);
      set_output_sym(n, 1, n.opset >= 10 ? DType::Bool : input_dtype(n, 0), dims);
    };
    d.lower = [](const Node &n) {
      Value *mask = n.outputs.size() > 1 ? n.outputs[1] : nullptr;
      KernelCall c{"onnxc_k_dropout",
                   {n.inputs[0], n.outputs[0], mask},
                   {type_bytes(n.outputs[0]->type), 0, 1, 0}};
      if (mask) {
        c.params[1] = product(output_dims(n, 1));
        c.params[2] = dtype_bits(mask->type.dtype) / 8;
        c.params[3] = one_bits(n, mask->type.dtype);
      }
      return c;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
