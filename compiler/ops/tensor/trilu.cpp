// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims and
// zeroes the rest. k is an optional input (default 0), constant or computed at run time (the
// kernel reads it then). Any fixed-size dtype.
// Kernel: templates/cpu/trilu.cpp.
#include "compiler/ops/op_util.h"

namespace onnxc {
namespace {
/// True if k is an input computed at run time.
bool trilu_k_at_run_time(const Node &n) { return n.has_input(1) && !n.inputs[1]->constant; }

int64_t trilu_k(const Node &n) {
  if (!n.has_input(1))
    return 0;
  if (trilu_k_at_run_time(n)) {
    if (n.inputs[1]->type.dtype != DType::Int64 || product(input_dims(n, 1)) != 1)
      node_fail(n, "k must be an int64 scalar, it is {}", shape_to_string(n.inputs[1]->type));
    return 0;
  }
  const Tensor &k = require_constant(n, 1, "k");
  if (k.numel() != 1)
    node_fail(n, "k must be a scalar, it has {} elements", k.numel());
  return k.int_at(0);
}

int64_t trilu_elem_bytes(const Node &n) {
  DType t = input_dtype(n, 0);
  int bits = dtype_bits(t);
  if (t == DType::String || bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(t));
  return bits / 8;
}
} // namespace

const OpDef &op_Trilu() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Trilu";
    d.min_opset = 14;
    d.attrs = {{"upper", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      std::vector<int64_t> x = input_dims(n, 0);
      if (x.size() < 2)
        node_fail(n, "input must have rank >= 2, it is {}", dims_to_string(x));
      trilu_elem_bytes(n);
      trilu_k(n);
      set_output(n, 0, input_dtype(n, 0), x);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> x = input_dims(n, 0);
      const int64_t rows = x[x.size() - 2], cols = x.back();
      // Clamp k so that the kernel's j - i arithmetic cannot overflow.
      const int64_t k = std::max<int64_t>(-rows - 1, std::min<int64_t>(cols + 1, trilu_k(n)));
      const bool run_time = trilu_k_at_run_time(n);
      return KernelCall{"onnxc_k_trilu",
                        {n.inputs[0], n.outputs[0], run_time ? n.inputs[1] : nullptr},
                        {trilu_elem_bytes(n), product(x) / std::max<int64_t>(1, rows * cols), rows,
                         cols, k, attr_int(n, "upper", 1) != 0, run_time ? 1 : 0}};
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
