// CumSum: cumulative sum along a constant axis, optionally exclusive and/or reversed. Numeric
// dtypes. Kernel: templates/cpu/cumsum.cpp.
#include "compiler/ops/op_util.h"

namespace onnxc {
namespace {
int64_t cumsum_axis(const Node &n) {
  const Tensor &a = require_constant(n, 1, "axis");
  if (a.numel() != 1)
    node_fail(n, "axis must be a scalar, it has {} elements", a.numel());
  return normalize_axis(n, a.int_at(0), static_cast<int64_t>(input_dims(n, 0).size()));
}
} // namespace

const OpDef &op_CumSum() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "CumSum";
    d.min_opset = 11;
    d.attrs = {{"exclusive", Attribute::Kind::Int}, {"reverse", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      std::vector<int64_t> x = input_dims(n, 0);
      if (x.empty())
        node_fail(n, "input must have rank >= 1");
      kernel_name(n, "cumsum", input_dtype(n, 0));
      cumsum_axis(n);
      set_output(n, 0, input_dtype(n, 0), x);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> x = input_dims(n, 0);
      const size_t axis = static_cast<size_t>(cumsum_axis(n));
      KernelCall call;
      call.kernel = kernel_name(n, "cumsum", input_dtype(n, 0));
      call.args = {n.inputs[0], n.outputs[0]};
      call.params = {product({x.begin(), x.begin() + static_cast<int64_t>(axis)}), x[axis],
                     product({x.begin() + static_cast<int64_t>(axis) + 1, x.end()}),
                     attr_int(n, "exclusive", 0) != 0, attr_int(n, "reverse", 0) != 0};
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
