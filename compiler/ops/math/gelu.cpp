// Gelu (opset 20): x * Phi(x), exactly (approximate="none", with erf) or with the tanh
// approximation (approximate="tanh"). float/double. A normal op rather than an element-wise
// table line because its attribute is a string. Kernel: templates/cpu/gelu.cpp.
#include "compiler/ops/sym_util.h"

namespace onnxc {
namespace {
bool gelu_tanh(const Node &n) {
  std::string a = attr_string(n, "approximate", "none");
  if (a != "none" && a != "tanh")
    node_fail(n, "approximate '{}' is not none or tanh", a);
  return a == "tanh";
}
} // namespace

const OpDef &op_Gelu() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Gelu";
    d.min_opset = 20;
    d.attrs = {{"approximate", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
      gelu_tanh(n);
      set_output_sym(n, 0, input_dtype(n, 0), input_sym_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      return call_on_all(n, kernel_name(n, "gelu", input_dtype(n, 0)),
                         {product(input_dims(n, 0)), gelu_tanh(n)});
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
