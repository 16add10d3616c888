// OneHot: indices -> one-hot vectors of `depth` along `axis`, filled with values [off, on].
// Indices in [-depth, depth) select (negative ones count from the end); any other index gives
// an all-off vector, as ONNX specifies. Kernel: templates/cpu/one_hot.cpp; a depth computed at
// run time shapes the output at run time (onnxc_k_one_hot_rt, no bound).
#include "compiler/ops/op_util.h"
#include "templates/cpu/shaped_params.h"

#include <cmath>

namespace onnxc {
namespace {
int64_t one_hot_depth(const Node &n) {
  const Tensor &t = require_constant(n, 1, "depth");
  if (t.numel() != 1)
    node_fail(n, "depth must have one element, it has {}", t.numel());
  double v = t.float_at(0);
  if (!(v >= 1) || v > 1e12)
    node_fail(n, "depth must be positive, it is {}", v);
  return static_cast<int64_t>(v);
}

/// Index kind for the kernel of input i: 0 int32, 1 int64, 2 float, 3 double.
int64_t index_kind(const Node &n, size_t i = 0) {
  switch (input_dtype(n, i)) {
  case DType::Int32:
    return 0;
  case DType::Int64:
    return 1;
  case DType::Float:
    return 2;
  case DType::Double:
    return 3;
  default:
    node_fail(n, "{} of type {} are not supported", i == 0 ? "indices" : "depth values",
              dtype_name(input_dtype(n, i)));
  }
}

int64_t value_bytes(const Node &n) {
  DType t = input_dtype(n, 2);
  int bits = dtype_bits(t);
  if (t == DType::String || bits < 8 || bits > 64)
    node_fail(n, "values of type {} are not supported", dtype_name(t));
  if (product(input_dims(n, 2)) != 2)
    node_fail(n, "values must have two elements [off, on], it has shape {}",
              dims_to_string(input_dims(n, 2)));
  return bits / 8;
}

int64_t one_hot_axis(const Node &n) {
  return normalize_axis(n, attr_int(n, "axis", -1),
                        static_cast<int64_t>(input_dims(n, 0).size()) + 1);
}
} // namespace

const OpDef &op_OneHot() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "OneHot";
    d.min_opset = 9;
    d.attrs = {{"axis", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      std::vector<int64_t> out = input_dims(n, 0);
      index_kind(n);
      value_bytes(n);
      if (values_at_run_time(n, 1)) {
        index_kind(n, 1);
        if (product(input_dims(n, 1)) != 1 || out.size() >= 8)
          node_fail(n, "depth must have one element (and the indices a rank below 8)");
        out.insert(out.begin() + one_hot_axis(n), 1);
        set_run_time_shaped_output(n, 0, input_dtype(n, 2), out, 1);
        return;
      }
      out.insert(out.begin() + one_hot_axis(n), one_hot_depth(n));
      set_output(n, 0, input_dtype(n, 2), out);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> idx = input_dims(n, 0);
      const int64_t axis = one_hot_axis(n);
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        onnxc_k::OneHotRtParams p{};
        p.value_bytes = value_bytes(n);
        p.index_kind = index_kind(n);
        p.depth_kind = index_kind(n, 1);
        p.rank = static_cast<int64_t>(idx.size());
        std::copy(idx.begin(), idx.end(), p.dims);
        p.axis = axis;
        KernelCall call{
            "onnxc_k_one_hot_rt", {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]}, {}};
        set_params(call, p);
        return call;
      }
      return KernelCall{"onnxc_k_one_hot",
                        {n.inputs[0], n.inputs[2], n.outputs[0]},
                        {value_bytes(n), index_kind(n), product({idx.begin(), idx.begin() + axis}),
                         one_hot_depth(n), product({idx.begin() + axis, idx.end()})}};
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
