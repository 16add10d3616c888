// Slice: per-axis [start, end) with a step (negative steps walk backwards). starts/ends/axes are
// attributes before opset 10 and constant inputs (with optional axes and steps) from 10 on.
// Out-of-range starts/ends are clamped as ONNX specifies. Lowers to a strided copy.
#include "compiler/ops/op_util.h"
#include "compiler/ops/tensor/strided_copy.h"

#include <algorithm>

namespace onnxc {

namespace {
/// Per input axis: first element, step, and output length.
struct SliceAxis {
  int64_t start = 0, step = 1, len = 0;
};

std::vector<int64_t> slice_param(const Node &n, size_t input, const char *attr) {
  if (n.opset < 10)
    return attr_ints(n, attr);
  if (!n.has_input(input))
    return {};
  return require_constant(n, input, attr).to_int64_vector();
}

std::vector<SliceAxis> slice_axes(const Node &n) {
  std::vector<int64_t> in = input_dims(n, 0);
  int64_t rank = static_cast<int64_t>(in.size());
  std::vector<SliceAxis> out(in.size());
  for (size_t k = 0; k < in.size(); ++k)
    out[k].len = in[k];
  std::vector<int64_t> starts = slice_param(n, 1, "starts"), ends = slice_param(n, 2, "ends");
  std::vector<int64_t> axes = slice_param(n, 3, "axes"), steps = slice_param(n, 4, "steps");
  if (starts.size() != ends.size())
    node_fail(n, "starts has {} entries but ends has {}", starts.size(), ends.size());
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k)
      axes.push_back(static_cast<int64_t>(k));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    node_fail(n, "starts, ends, axes and steps must have the same length ({}, {}, {}, {})",
              starts.size(), ends.size(), axes.size(), steps.size());
  std::vector<bool> seen(in.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t a = static_cast<size_t>(normalize_axis(n, axes[i], rank));
    if (seen[a])
      node_fail(n, "axis {} appears more than once in axes", a);
    seen[a] = true;
    int64_t dim = in[a], step = steps[i], s = starts[i], e = ends[i];
    if (step == 0)
      node_fail(n, "step for axis {} is 0", a);
    // A step longer than the axis selects at most one element, like a step of the axis length;
    // clamping keeps the length and stride arithmetic below from overflowing.
    step = std::clamp<int64_t>(step, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    int64_t len = step > 0 ? (e - s + step - 1) / step : (s - e - step - 1) / -step;
    out[a] = {s, step, std::max<int64_t>(len, 0)};
  }
  return out;
}
} // namespace

const OpDef &op_Slice() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Slice";
    d.attrs = {{"starts", Attribute::Kind::Ints},
               {"ends", Attribute::Kind::Ints},
               {"axes", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      std::vector<int64_t> out;
      for (const SliceAxis &a : slice_axes(n))
        out.push_back(a.len);
      set_output(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> in = input_dims(n, 0);
      std::vector<SliceAxis> axes = slice_axes(n);
      int64_t base = 0, stride = 1;
      std::vector<int64_t> dims(in.size()), strides(in.size());
      for (size_t k = in.size(); k-- > 0;) {
        dims[k] = axes[k].len;
        strides[k] = axes[k].step * stride;
        base += axes[k].start * stride;
        stride *= in[k];
      }
      return strided_copy_call(n, base, dims, strides);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
