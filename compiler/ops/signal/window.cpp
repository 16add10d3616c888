// HannWindow, HammingWindow, BlackmanWindow (opset 17): a generalised cosine window of the
// constant length `size`, w[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N), N = size
// (periodic, the default) or size - 1 (symmetric). Computed at compile time in double; a size
// computed at run time shapes the output at run time (onnxc_k_window_rt, no bound).
#include "compiler/ops/signal/signal_util.h"
#include "templates/cpu/shaped_params.h"

#include <cmath>

namespace onnxc {
namespace {

struct Cosines {
  double a0, a1, a2;
};

Tensor window_value(const Node &n, Cosines c) {
  int64_t size = constant_scalar_int(n, 0, "size");
  if (size < 0 || size > (int64_t(1) << 26))
    node_fail(n, "window size {} is out of range (0..2^26)", size);
  double len = static_cast<double>(attr_int(n, "periodic", 1) ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  const double pi = 3.14159265358979323846;
  for (int64_t k = 0; k < size; ++k) {
    double x = 2.0 * pi * static_cast<double>(k) / len;
    w[static_cast<size_t>(k)] = c.a0 - c.a1 * std::cos(x) + c.a2 * std::cos(2.0 * x);
  }
  auto dtype = static_cast<DType>(attr_int(n, "output_datatype", int64_t(DType::Float)));
  return tensor_from_doubles(n, dtype, {size}, w);
}

OpDef window_op(const char *name, Cosines c) {
  OpDef d;
  d.name = name;
  d.min_opset = 17;
  d.attrs = {{"periodic", Attribute::Kind::Int}, {"output_datatype", Attribute::Kind::Int}};
  d.infer = [c](Node &n) {
    require_dtype(n, input_dtype(n, 0), {DType::Int32, DType::Int64});
    if (values_at_run_time(n, 0)) {
      auto dtype = static_cast<DType>(attr_int(n, "output_datatype", int64_t(DType::Float)));
      require_dtype(n, dtype, {DType::Float, DType::Double, DType::Float16, DType::BFloat16});
      if (product(input_dims(n, 0)) != 1)
        node_fail(n, "size must have one element");
      set_run_time_shaped_output(n, 0, dtype, {1}, 0);
      return;
    }
    Tensor t = window_value(n, c);
    set_output(n, 0, t.dtype(), t.shape());
  };
  d.eval = [c](const Node &n, const std::vector<const Tensor *> &) {
    return std::vector<Tensor>{window_value(n, c)};
  };
  d.lower = [c](const Node &n) {
    if (!n.outputs[0]->run_time_shape_from.empty()) {
      const DType t = n.outputs[0]->type.dtype;
      onnxc_k::WindowRtParams p{c.a0,
                                c.a1,
                                c.a2,
                                attr_int(n, "periodic", 1) != 0 ? 1 : 0,
                                t == DType::Float     ? 0
                                : t == DType::Double  ? 1
                                : t == DType::Float16 ? 2
                                                      : 3,
                                input_dtype(n, 0) == DType::Int32 ? 4 : 8};
      KernelCall call{"onnxc_k_window_rt", {n.inputs[0], n.outputs[0]}, {}};
      set_params(call, p);
      return call;
    }
    return write_constant_call(n, window_value(n, c));
  };
  return d;
}

} // namespace

const OpDef &op_HannWindow() {
  static const OpDef def = window_op("HannWindow", {0.5, 0.5, 0.0});
  return def;
}

const OpDef &op_HammingWindow() {
  static const OpDef def = window_op("HammingWindow", {25.0 / 46.0, 21.0 / 46.0, 0.0});
  return def;
}

const OpDef &op_BlackmanWindow() {
  static const OpDef def = window_op("BlackmanWindow", {0.42, 0.5, 0.08});
  return def;
}

} // namespace onnxc
