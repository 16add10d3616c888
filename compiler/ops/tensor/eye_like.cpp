// EyeLike (opset 9+): a 2-D tensor shaped like the input with ones on the k-th diagonal, of the
// `dtype` attribute's element type (default: the input's). Kernel templates/cpu/misc_ops.cpp.
#include "compiler/ops/op_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {
DType eye_like_dtype(const Node &n) {
  if (!has_attr(n, "dtype"))
    return input_dtype(n, 0);
  const int64_t dt = attr_int(n, "dtype", 0);
  if (!dtype_is_known(static_cast<int32_t>(dt)))
    node_fail(n, "attribute 'dtype' = {} is not an ONNX data type", dt);
  return static_cast<DType>(dt);
}
} // namespace

const OpDef &op_EyeLike() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "EyeLike";
    d.min_opset = 9;
    d.attrs = {{"dtype", Attribute::Kind::Int}, {"k", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      const std::vector<int64_t> x = input_dims(n, 0);
      if (x.size() != 2)
        node_fail(n, "input must be 2-D, got shape {}", dims_to_string(x));
      kernel_name(n, "eye_like", eye_like_dtype(n));
      set_output(n, 0, eye_like_dtype(n), x);
    };
    d.lower = [](const Node &n) {
      const std::vector<int64_t> x = input_dims(n, 0);
      KernelCall call;
      call.kernel = kernel_name(n, "eye_like", eye_like_dtype(n));
      call.args = {n.outputs[0]};
      set_params(call, onnxc_k::EyeLikeParams{x[0], x[1], attr_int(n, "k", 0)});
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
