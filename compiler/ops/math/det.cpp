// Det (opset 11+): determinants of the trailing square matrices of a [*, M, M] input, by LU
// decomposition with partial pivoting in double. float/double; kernel templates/cpu/misc_ops.cpp.
#include "compiler/ops/op_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {
std::vector<int64_t> det_input(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
    node_fail(n, "input must have shape [*, M, M] (square matrices), got {}", dims_to_string(x));
  return x;
}
} // namespace

const OpDef &op_Det() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Det";
    d.min_opset = 11;
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
      const std::vector<int64_t> x = det_input(n);
      set_output(n, 0, input_dtype(n, 0), {x.begin(), x.end() - 2});
    };
    d.lower = [](const Node &n) {
      const std::vector<int64_t> x = det_input(n);
      const onnxc_k::DetParams p{product({x.begin(), x.end() - 2}), x.back()};
      KernelCall call = call_on_all(n, kernel_name(n, "det", input_dtype(n, 0)), {});
      set_params(call, p);
      call.scratch_bytes = onnxc_k::det_scratch_bytes(p);
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
