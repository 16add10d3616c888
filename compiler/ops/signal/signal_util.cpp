#include "compiler/ops/signal/signal_util.h"

#include <cstring>

namespace onnxc {

namespace {
template <typename T> void store_all(Tensor &t, const std::vector<double> &v) {
  T *p = t.data_as<T>();
  for (size_t i = 0; i < v.size(); ++i)
    p[i] = static_cast<T>(v[i]);
}
} // namespace

Tensor tensor_from_doubles(const Node &n, DType dtype, std::vector<int64_t> shape,
                           const std::vector<double> &values) {
  Tensor t(dtype, std::move(shape));
  switch (dtype) {
  case DType::Float:
    store_all<float>(t, values);
    break;
  case DType::Double:
    store_all<double>(t, values);
    break;
  case DType::Int8:
    store_all<int8_t>(t, values);
    break;
  case DType::Int16:
    store_all<int16_t>(t, values);
    break;
  case DType::Int32:
    store_all<int32_t>(t, values);
    break;
  case DType::Int64:
    store_all<int64_t>(t, values);
    break;
  case DType::Uint8:
    store_all<uint8_t>(t, values);
    break;
  case DType::Uint16:
    store_all<uint16_t>(t, values);
    break;
  case DType::Uint32:
    store_all<uint32_t>(t, values);
    break;
  case DType::Uint64:
    store_all<uint64_t>(t, values);
    break;
  default:
    node_fail(n,
              "output element type {} is not supported (supported: float, double and the "
              "integer types)",
              dtype_name(dtype));
  }
  return t;
}

int64_t constant_scalar_int(const Node &n, size_t i, const char *what) {
  const Tensor &t = require_constant(n, i, what);
  if (t.numel() != 1)
    node_fail(n, "input '{}' must be a scalar", what);
  return t.int_at(0);
}

KernelCall dft_call(const Node &n, const onnxc_k::DftParams &p, Value *window) {
  KernelCall call;
  call.kernel = kernel_name(n, "dft", input_dtype(n, 0));
  call.args = {n.inputs[0], window, n.outputs[0]};
  set_params(call, p);
  call.scratch_bytes = onnxc_k::dft_scratch_bytes(p);
  return call;
}

} // namespace onnxc
