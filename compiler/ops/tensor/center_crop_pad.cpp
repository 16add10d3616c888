// CenterCropPad (opset 18+): crops or zero-pads each of `axes` (default: all) to the size in
// the `shape` input (a compile-time constant), centred: an odd difference puts the extra
// element at the end. Runs the Pad kernel (compiler/ops/tensor/pad.h) with negative pads for
// cropping.
#include "compiler/ops/tensor/pad.h"

namespace onnxc {
namespace {
/// Output dims and the begin pads (negative: crop) per axis.
std::vector<int64_t> crop_pad(const Node &n, std::vector<int64_t> *begin) {
  std::vector<int64_t> out = input_dims(n, 0);
  const auto rank = static_cast<int64_t>(out.size());
  const std::vector<int64_t> shape = require_constant(n, 1, "shape").to_int64_vector();
  std::vector<int64_t> axes = attr_ints(n, "axes");
  if (!has_attr(n, "axes"))
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  if (shape.size() != axes.size())
    node_fail(n, "shape has {} values but there are {} axes", shape.size(), axes.size());
  begin->assign(out.size(), 0);
  std::vector<bool> seen(out.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(normalize_axis(n, axes[i], rank));
    if (seen[a])
      node_fail(n, "axis {} is listed twice", axes[i]);
    if (shape[i] < 0)
      node_fail(n, "shape value {} for axis {} is negative", shape[i], axes[i]);
    seen[a] = true;
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
      std::vector<int64_t> begin;
      set_output(n, 0, input_dtype(n, 0), crop_pad(n, &begin));
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> begin;
      crop_pad(n, &begin);
      return pad_call(n, begin, 0, 0, nullptr);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
