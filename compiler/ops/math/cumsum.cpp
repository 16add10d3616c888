// CumSum (opset 11+) and CumProd (opset 26+): cumulative sum / product along an axis (a
// constant, or an input computed at run time that the kernel reads), optionally exclusive
// and/or reversed. Numeric dtypes. Kernels: templates/cpu/cumsum.cpp,
// params templates/cpu/cumulative_params.h.
#include "compiler/ops/op_util.h"
#include "templates/cpu/cumulative_params.h"

namespace onnxc {
namespace {
/// True if the axis is an input computed at run time.
bool axis_at_run_time(const Node &n) { return n.has_input(1) && !n.inputs[1]->constant; }

int64_t cumulative_axis(const Node &n) {
  if (axis_at_run_time(n)) {
    const DType t = n.inputs[1]->type.dtype;
    if ((t != DType::Int32 && t != DType::Int64) || product(input_dims(n, 1)) != 1)
      node_fail(n, "axis must be an int32 or int64 scalar, it is {}",
                shape_to_string(n.inputs[1]->type));
    if (input_dims(n, 0).size() > 8)
      node_fail(n, "an axis given at run time needs an input of rank 8 at most");
    return 0;
  }
  const Tensor &a = require_constant(n, 1, "axis");
  if (a.numel() != 1)
    node_fail(n, "axis must be a scalar, it has {} elements", a.numel());
  return normalize_axis(n, a.int_at(0), static_cast<int64_t>(input_dims(n, 0).size()));
}

OpDef cumulative_def(const char *name, const char *kernel, int64_t min_opset) {
  OpDef d;
  d.name = name;
  d.min_opset = min_opset;
  d.attrs = {{"exclusive", Attribute::Kind::Int}, {"reverse", Attribute::Kind::Int}};
  d.infer = [kernel](Node &n) {
    std::vector<int64_t> x = input_dims(n, 0);
    if (x.empty())
      node_fail(n, "input must have rank >= 1");
    kernel_name(n, kernel, input_dtype(n, 0));
    cumulative_axis(n);
    set_output(n, 0, input_dtype(n, 0), x);
  };
  d.lower = [kernel](const Node &n) {
    std::vector<int64_t> x = input_dims(n, 0);
    const auto axis = static_cast<ptrdiff_t>(cumulative_axis(n));
    onnxc_k::CumulativeParams p{};
    p.outer = product({x.begin(), x.begin() + axis});
    p.len = x[static_cast<size_t>(axis)];
    p.inner = product({x.begin() + axis + 1, x.end()});
    p.exclusive = attr_int(n, "exclusive", 0) != 0;
    p.reverse = attr_int(n, "reverse", 0) != 0;
    const bool run_time = axis_at_run_time(n);
    if (run_time) {
      p.axis_bytes = n.inputs[1]->type.dtype == DType::Int32 ? 4 : 8;
      p.rank = static_cast<int64_t>(x.size());
      std::copy(x.begin(), x.end(), p.dims);
    }
    KernelCall call;
    call.kernel = kernel_name(n, kernel, input_dtype(n, 0));
    call.args = {n.inputs[0], n.outputs[0], run_time ? n.inputs[1] : nullptr};
    set_params(call, p);
    return call;
  };
  return d;
}
} // namespace

const OpDef &op_CumSum() {
  static const OpDef def = cumulative_def("CumSum", "cumsum", 11);
  return def;
}

const OpDef &op_CumProd() {
  static const OpDef def = cumulative_def("CumProd", "cumprod", 26);
  return def;
}

} // namespace onnxc
