// CenterCropPad (opset 18+): crops or zero-pads each of `axes` (default: all) to the size in
// the `shape` input, centred: an odd difference puts the extra element at the end. Runs the Pad
// kernel (compiler/ops/tensor/pad.h) with negative pads for cropping; with a shape computed at
// run time, onnxc_k_pad_rt computes them (an output shaped at run time, no bound).
#include "compiler/ops/tensor/pad.h"
#include "templates/cpu/shaped_params.h"

namespace onnxc {
namespace {
/// The axes (normalised, each once) of a CenterCropPad.
std::vector<int64_t> center_axes(const Node &n, int64_t rank) {
  std::vector<int64_t> axes = attr_ints(n, "axes");
  if (!has_attr(n, "axes"))
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t &a : axes) {
    const int64_t given = a;
    a = normalize_axis(n, a, rank);
    if (seen[static_cast<size_t>(a)])
      node_fail(n, "axis {} is listed twice", given);
    seen[static_cast<size_t>(a)] = true;
  }
  return axes;
}
/// Output dims and the begin pads (negative: crop) per axis.
std::vector<int64_t> crop_pad(const Node &n, std::vector<int64_t> *begin) {
  std::vector<int64_t> out = input_dims(n, 0);
  const std::vector<int64_t> shape = require_constant(n, 1, "shape").to_int64_vector();
  const std::vector<int64_t> axes = center_axes(n, static_cast<int64_t>(out.size()));
  if (shape.size() != axes.size())
    node_fail(n, "shape has {} values but there are {} axes", shape.size(), axes.size());
  begin->assign(out.size(), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(axes[i]);
    if (shape[i] < 0)
      node_fail(n, "shape value {} for axis {} is negative", shape[i], axes[i]);
    const int64_t diff = shape[i] - out[a];
    (*begin)[a] = diff >= 0 ? diff / 2 : -((-diff) / 2);
    out[a] = shape[i];
  }
  return out;
}
} // namespace

const OpDef &op_CenterCropPad() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "CenterCropPad";
    d.min_opset = 18;
    d.attrs = {{"axes", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      if (values_at_run_time(n, 1)) {
        const std::vector<int64_t> in = input_dims(n, 0);
        const std::vector<int64_t> axes = center_axes(n, static_cast<int64_t>(in.size()));
        if (input_dtype(n, 1) != DType::Int64 ||
            product(input_dims(n, 1)) != static_cast<int64_t>(axes.size()) || in.size() > 8 ||
            dtype_bits(input_dtype(n, 0)) % 8 != 0)
          node_fail(n, "shape must hold {} int64 values, one per axis, it is {}", axes.size(),
                    shape_to_string(n.inputs[1]->type));
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), std::vector<int64_t>(in.size(), 1), 1);
        return;
      }
      std::vector<int64_t> begin;
      set_output(n, 0, input_dtype(n, 0), crop_pad(n, &begin));
    };
    d.lower = [](const Node &n) {
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        const std::vector<int64_t> in = input_dims(n, 0);
        const std::vector<int64_t> axes = center_axes(n, static_cast<int64_t>(in.size()));
        onnxc_k::PadRtParams p{};
        p.elem_bytes = dtype_bits(input_dtype(n, 0)) / 8;
        p.rank = static_cast<int64_t>(in.size());
        std::copy(in.begin(), in.end(), p.dims);
        p.naxes = static_cast<int64_t>(axes.size());
        p.center = 1;
        std::copy(axes.begin(), axes.end(), p.center_axes);
        KernelCall call{
            "onnxc_k_pad_rt", {n.inputs[0], n.inputs[1], nullptr, nullptr, n.outputs[0]}, {}};
        set_params(call, p);
        return call;
      }
      std::vector<int64_t> begin;
      crop_pad(n, &begin);
      return pad_call(n, begin, 0, 0, nullptr);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
