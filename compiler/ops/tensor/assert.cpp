// onnxc.Assert (internal, from desugar-sequences: a Loop carrying a sequence that the run
// would take past the iterations it was unrolled into). The kernel (onnxc_k_assert,
// templates/cpu/shaped.cpp) fails the run with the node's message when OK is false, else copies
// X to Y; the message travels in the params words.
#include "compiler/ops/tensor/assert.h"
#include "compiler/ops/op_util.h"

#include <cstring>

namespace onnxc {

const OpDef &op_Assert() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Assert";
    d.domain = "onnxc";
    d.foldable = false;
    d.attrs = {{kAssertMessageAttr, Attribute::Kind::String}};
    d.infer = [](Node &n) {
      if (n.inputs.size() != 2 || input_dtype(n, 0) != DType::Bool ||
          product(input_dims(n, 0)) != 1 || input_dtype(n, 1) == DType::String ||
          dtype_bits(input_dtype(n, 1)) % 8 != 0 || !n.inputs[1]->run_time_shape_from.empty())
        node_fail(n, "internal error: Assert takes a bool scalar and a numeric tensor");
      set_output(n, 0, input_dtype(n, 1), input_dims(n, 1));
    };
    d.lower = [](const Node &n) {
      const std::string msg = attr_string(n, kAssertMessageAttr, "a check failed");
      // {bytes of X, message length, the message's bytes in whole words}
      std::vector<int64_t> p{static_cast<int64_t>(type_bytes(n.inputs[1]->type)),
                             static_cast<int64_t>(msg.size())};
      const size_t at = p.size();
      p.resize(at + (msg.size() + 8) / 8, 0);
      std::memcpy(p.data() + at, msg.data(), msg.size());
      return KernelCall{"onnxc_k_assert", {n.inputs[0], n.inputs[1], n.outputs[0]}, std::move(p)};
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
