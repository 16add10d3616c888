// Resize (opsets 10-19) and Upsample (7-9, its deprecated predecessor). The output size comes from
// constant scales or sizes, so the whole coordinate mapping is computed here, at compile time,
// following ONNX's reference implementation (onnx/reference/ops/op_resize.py): for every axis and
// output coordinate, a fixed number of taps (input offset, weight). The kernel
// (templates/cpu/resize.cpp) only gathers and blends. Modes nearest (any fixed-size dtype),
// linear and cubic (float/double); all coordinate transformations, exclude_outside, antialias,
// axes and keep_aspect_ratio_policy.
#include "compiler/ops/op_util.h"
#include "templates/cpu/resize_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace onnxc {
namespace {

constexpr int64_t kMaxResizeRank = 8;

/// Everything the mapping needs, read from attributes and constant inputs.
struct ResizeSpec {
  std::string mode, ctm, nearest_mode;
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false, antialias = false;
  std::vector<int64_t> in, out;
  std::vector<double> scales, roi_start, roi_end;
};

/// Scales (Upsample-7 attribute or the scales input), or empty if none are given.
std::vector<double> read_scales(const Node &n, size_t input) {
  std::vector<double> s;
  if (n.op_type == "Upsample" && n.opset < 9) {
    for (float f : attr_floats(n, "scales"))
      s.push_back(f);
    return s;
  }
  const Tensor *t = input_constant(n, input);
  if (n.has_input(input) && !t)
    require_constant(n, input, "scales");
  if (t)
    for (int64_t i = 0; i < t->numel(); ++i)
      s.push_back(t->float_at(i));
  return s;
}

/// Expands per-`axes` values to all `rank` axes, filling the others with `fill`.
template <typename V>
std::vector<V> expand_axes(const std::vector<V> &v, const std::vector<int64_t> &axes, size_t rank,
                           V fill) {
  std::vector<V> all(rank, fill);
  for (size_t i = 0; i < axes.size(); ++i)
    all[static_cast<size_t>(axes[i])] = v[i];
  return all;
}

std::vector<int64_t> resize_axes(const Node &n, int64_t rank) {
  std::vector<int64_t> axes = attr_ints(n, "axes");
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  std::vector<bool> seen(static_cast<size_t>(rank));
  for (int64_t &a : axes) {
    a = normalize_axis(n, a, rank);
    if (seen[static_cast<size_t>(a)])
      node_fail(n, "axes repeat axis {}", a);
    seen[static_cast<size_t>(a)] = true;
  }
  return axes;
}

void read_sizes(const Node &n, ResizeSpec &s, const std::vector<int64_t> &axes) {
  const size_t rank = s.in.size();
  std::vector<int64_t> sizes = require_constant(n, 3, "sizes").to_int64_vector();
  if (sizes.size() != axes.size())
    node_fail(n, "sizes has {} values but {} axes are resized", sizes.size(), axes.size());
  for (int64_t v : sizes)
    if (v < 0)
      node_fail(n, "sizes has a negative value {}", v);
  s.out = expand_axes(sizes, axes, rank, int64_t(0));
  s.scales.assign(rank, 1.0);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(axes[i]);
    s.scales[a] = s.in[a] ? double(s.out[a]) / double(s.in[a]) : 1.0;
  }
  for (size_t d = 0; d < rank; ++d)
    if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end())
      s.out[d] = s.in[d];
  std::string policy = attr_string(n, "keep_aspect_ratio_policy", "stretch");
  if (policy == "stretch")
    return;
  if (policy != "not_larger" && policy != "not_smaller")
    node_fail(n, "keep_aspect_ratio_policy '{}' is not stretch, not_larger or not_smaller", policy);
  double scale = policy == "not_larger" ? 1e300 : -1e300;
  for (int64_t a : axes)
    scale = policy == "not_larger" ? std::min(scale, s.scales[size_t(a)])
                                   : std::max(scale, s.scales[size_t(a)]);
  for (int64_t a : axes) {
    s.scales[size_t(a)] = scale;
    double out = scale * double(s.in[size_t(a)]) + 0.5;
    if (!(out >= 0 && out < 0x1p62)) // also NaN
      node_fail(n, "the scale {} gives an invalid output size {}", scale, out);
    s.out[size_t(a)] = static_cast<int64_t>(out);
  }
}

/// coordinate_transformation_mode and nearest_mode names, in the order of onnxc_k::ResizeCtm and
/// onnxc_k::ResizeNearestMode (templates/cpu/resize_params.h).
constexpr const char *kCtmNames[] = {
    "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",  "align_corners",
    "asymmetric", "tf_crop_and_resize",   "tf_half_pixel_for_nn"};
constexpr const char *kNearestNames[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
                                         "simple"};

/// The attributes of a Resize / Upsample (mode, coordinate transformation, nearest mode, cubic
/// coefficient, exclude_outside, extrapolation, antialias), checked.
void resize_attrs(const Node &n, ResizeSpec &s) {
  s.in = input_dims(n, 0);
  if (s.in.empty() || static_cast<int64_t>(s.in.size()) > kMaxResizeRank)
    node_fail(n, "X must have rank 1 to {}, it is {}", kMaxResizeRank, dims_to_string(s.in));
  const bool legacy = n.op_type == "Upsample" || n.opset < 11;
  s.mode = attr_string(n, "mode", "nearest");
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic" && s.mode != "bilinear")
    node_fail(n, "mode '{}' is not nearest, linear or cubic", s.mode);
  if (s.mode == "bilinear")
    s.mode = "linear";
  if (legacy && s.mode == "cubic")
    node_fail(n, "mode cubic needs Resize opset 11 or later");
  s.ctm = legacy ? "asymmetric" : attr_string(n, "coordinate_transformation_mode", "half_pixel");
  s.nearest_mode = legacy ? "simple" : attr_string(n, "nearest_mode", "round_prefer_floor");
  s.cubic_a = attr_float(n, "cubic_coeff_a", -0.75f);
  s.exclude_outside = attr_int(n, "exclude_outside", 0) != 0;
  s.extrapolation = attr_float(n, "extrapolation_value", 0.0f);
  s.antialias = attr_int(n, "antialias", 0) != 0;
  if (s.antialias && s.mode == "nearest")
    node_fail(n, "antialias is not defined for mode nearest");
  if (std::find(std::begin(kCtmNames), std::end(kCtmNames), s.ctm) == std::end(kCtmNames))
    node_fail(n, "coordinate_transformation_mode '{}' is not supported", s.ctm);
  if (std::find(std::begin(kNearestNames), std::end(kNearestNames), s.nearest_mode) ==
      std::end(kNearestNames))
    node_fail(n, "nearest_mode '{}' is not supported", s.nearest_mode);
}

ResizeSpec resize_spec(const Node &n) {
  ResizeSpec s;
  resize_attrs(n, s);
  const size_t rank = s.in.size();
  const bool legacy = n.op_type == "Upsample" || n.opset < 11;
  std::vector<int64_t> axes = resize_axes(n, static_cast<int64_t>(rank));
  size_t scales_input = legacy ? 1 : 2;
  std::vector<double> scales = read_scales(n, scales_input);
  bool has_sizes = !legacy && n.has_input(3);
  if (!scales.empty() && has_sizes)
    node_fail(n, "only one of scales and sizes may be given");
  if (has_sizes) {
    read_sizes(n, s, axes);
  } else {
    if (scales.empty())
      node_fail(n, "one of scales and sizes must be given");
    if (scales.size() != axes.size())
      node_fail(n, "scales has {} values but {} axes are resized", scales.size(), axes.size());
    for (double v : scales)
      if (!(v > 0))
        node_fail(n, "scales must be positive, got {}", v);
    s.scales = expand_axes(scales, axes, rank, 1.0);
    for (size_t d = 0; d < rank; ++d) {
      double out = s.scales[d] * double(s.in[d]);
      if (!(out < 0x1p62)) // also NaN; converting it would be undefined
        node_fail(n, "scales[{}] = {} gives an output too large", d, s.scales[d]);
      s.out.push_back(static_cast<int64_t>(out));
    }
  }
  s.roi_start.assign(rank, 0.0);
  s.roi_end.assign(rank, 1.0);
  if (s.ctm == "tf_crop_and_resize") {
    const Tensor &roi = require_constant(n, 1, "roi");
    if (roi.numel() != 2 * static_cast<int64_t>(axes.size()))
      node_fail(n, "roi has {} values but must have 2 x {} (start and end per axis)", roi.numel(),
                axes.size());
    for (size_t i = 0; i < axes.size(); ++i) {
      s.roi_start[size_t(axes[i])] = roi.float_at(int64_t(i));
      s.roi_end[size_t(axes[i])] = roi.float_at(int64_t(i + axes.size()));
    }
  }
  return s;
}

// ---- per-axis coefficients (ONNX reference semantics) ----------------------------------------

std::vector<double> cubic_coeffs(double r, double A) {
  return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
          ((A + 2) * r - (A + 3)) * r * r + 1,
          ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
          ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A};
}

std::vector<double> normalized(std::vector<double> c) {
  double sum = 0;
  for (double v : c)
    sum += v;
  for (double &v : c)
    v /= sum;
  return c;
}

std::vector<double> cubic_coeffs_antialias(double r, double scale, double A) {
  scale = std::min(scale, 1.0);
  auto coeff = [A](double x) {
    x = std::abs(x);
    double x2 = x * x, x3 = x * x2;
    if (x <= 1)
      return (A + 2) * x3 - (A + 3) * x2 + 1;
    if (x < 2)
      return A * x3 - 5 * A * x2 + 8 * A * x - 4 * A;
    return 0.0;
  };
  int64_t start = static_cast<int64_t>(std::floor(-2 / scale) + 1), end = 2 - start;
  std::vector<double> c;
  for (int64_t i = start; i < end; ++i)
    c.push_back(coeff(scale * (double(i) - r)));
  return normalized(c);
}

std::vector<double> linear_coeffs_antialias(double r, double scale) {
  scale = std::min(scale, 1.0);
  int64_t start = static_cast<int64_t>(std::floor(-1 / scale) + 1), footprint = 2 - 2 * start;
  std::vector<double> c;
  for (int64_t i = start; i < start + footprint; ++i)
    c.push_back(std::clamp(1 - std::abs((double(i) - r) * scale), 0.0, 1.0));
  return normalized(c);
}

std::vector<double> nearest_coeffs(double r, const std::string &mode, double scale) {
  if (r == 1.0)
    return {0, 1};
  if (mode == "round_prefer_floor")
    return {double(r <= 0.5), double(r > 0.5)};
  if (mode == "round_prefer_ceil")
    return {double(r < 0.5), double(r >= 0.5)};
  if (mode == "floor" || (mode == "simple" && scale >= 1))
    return {1, 0};
  return {0, 1}; // ceil, or simple when downsampling
}

std::vector<double> coeffs_for(const ResizeSpec &s, double ratio, double scale) {
  if (s.mode == "nearest")
    return nearest_coeffs(ratio, s.nearest_mode, scale);
  if (s.mode == "linear")
    return s.antialias ? linear_coeffs_antialias(ratio, scale)
                       : std::vector<double>{1 - ratio, ratio};
  return s.antialias ? cubic_coeffs_antialias(ratio, scale, s.cubic_a)
                     : cubic_coeffs(ratio, s.cubic_a);
}

/// Input coordinate of output coordinate x; sets `outside` for tf_crop_and_resize beyond the input.
double original_coordinate(const ResizeSpec &s, size_t d, int64_t xi, bool &outside) {
  const double x = double(xi), in = double(s.in[d]), scale = s.scales[d];
  const double out_w = scale * in;
  outside = false;
  if (s.ctm == "align_corners")
    return out_w == 1 ? 0.0 : x * (in - 1) / (out_w - 1);
  if (s.ctm == "asymmetric")
    return x / scale;
  if (s.ctm == "tf_crop_and_resize") {
    const double r0 = s.roi_start[d], r1 = s.roi_end[d];
    double xo = out_w == 1 ? (r1 - r0) * (in - 1) / 2 : x * (r1 - r0) * (in - 1) / (out_w - 1);
    xo += r0 * (in - 1);
    outside = xo < 0 || xo > in - 1;
    return xo;
  }
  if (s.ctm == "pytorch_half_pixel")
    return out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (s.ctm == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  if (s.ctm == "half_pixel_symmetric") {
    const double adjustment = double(s.out[d]) / out_w, center = in / 2;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  return (x + 0.5) / scale - 0.5; // half_pixel
}

/// Taps of one axis: for each output coordinate, `n` (input index or -1, weight) pairs.
struct AxisTaps {
  int64_t n = 1;
  std::vector<int64_t> idx;
  std::vector<double> w;
  bool identity = false;
};

AxisTaps axis_taps(const ResizeSpec &s, size_t d) {
  AxisTaps t;
  const int64_t in = s.in[d], out = s.out[d];
  t.n = int64_t(coeffs_for(s, 0.5, s.scales[d]).size());
  for (int64_t x = 0; x < out; ++x) {
    bool outside;
    const double xo = original_coordinate(s, d, x, outside);
    const double ratio = xo == std::floor(xo) ? 1.0 : xo - std::floor(xo);
    std::vector<double> c = coeffs_for(s, ratio, s.scales[d]);
    const int64_t n = int64_t(c.size()), pad = (n + 1) / 2, len = in + 2 * pad;
    // The n nearest positions of the edge-padded input (ties prefer the smaller index).
    int64_t start = static_cast<int64_t>(std::ceil(xo + double(pad) - double(n) / 2));
    start = std::clamp<int64_t>(start, 0, std::max<int64_t>(0, len - n));
    if (s.exclude_outside) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        int64_t i = start + k - pad;
        if (i < 0 || i >= in)
          c[size_t(k)] = 0;
        sum += c[size_t(k)];
      }
      for (double &v : c)
        v = sum != 0 ? v / sum : 0;
    }
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = std::clamp<int64_t>(start + k - pad, 0, std::max<int64_t>(0, in - 1));
      t.idx.push_back(outside || in == 0 ? -1 : i);
      t.w.push_back(c[size_t(k)]);
    }
  }
  if (s.mode == "nearest") { // keep the selected tap only
    std::vector<int64_t> idx;
    std::vector<double> w;
    for (int64_t x = 0; x < out; ++x) {
      int64_t best = 0;
      for (int64_t k = 0; k < t.n; ++k)
        if (t.w[size_t(x * t.n + k)] > t.w[size_t(x * t.n + best)])
          best = k;
      idx.push_back(t.idx[size_t(x * t.n + best)]);
      w.push_back(1.0);
    }
    t.n = 1, t.idx = idx, t.w = w;
  }
  // Taps of one output coordinate that read the same input index (clamped to the edge) become
  // one, with the sum of their weights: pytorch_half_pixel puts a length-1 axis at -0.5, so an
  // unscaled batch of 1 had two taps of 0.5 on index 0, was no identity, and kept the kernel
  // off its separable path (a 1x128x32x32 -> 64x64 bilinear Resize 1.56 -> 0.22 ms).
  for (int64_t x = 0; x < out; ++x)
    for (int64_t k = 1; k < t.n; ++k) {
      const size_t at = size_t(x * t.n + k);
      for (int64_t j = 0; j < k; ++j) {
        const size_t to = size_t(x * t.n + j);
        if (t.idx[at] >= 0 && t.idx[to] == t.idx[at] && t.w[to] != 0) {
          t.w[to] += t.w[at];
          t.w[at] = 0;
          break;
        }
      }
    }
  t.identity = in == out;
  for (int64_t x = 0; x < out && t.identity; ++x)
    for (int64_t k = 0; k < t.n; ++k) {
      double w = t.w[size_t(x * t.n + k)];
      int64_t i = t.idx[size_t(x * t.n + k)];
      if (!(w == 0 || (w == 1 && i == x)) || i < 0)
        t.identity = false;
    }
  return t;
}

/// The extrapolation value as the bits of one element of `dt` (for the nearest kernel, which
/// copies elements by size).
int64_t element_bits(DType dt, double v) {
  switch (dt) {
  case DType::Float: {
    float f = static_cast<float>(v);
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  }
  case DType::Double:
    return param_f64(v);
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::Uint8:
  case DType::Uint16:
  case DType::Uint32:
  case DType::Uint64:
    return static_cast<int64_t>(v);
  case DType::Bool:
    return v != 0;
  default:
    return 0;
  }
}

void check_dtype(const Node &n, const ResizeSpec &s) {
  DType dt = input_dtype(n, 0);
  int bits = dtype_bits(dt);
  if (s.mode != "nearest")
    require_dtype(n, dt, {DType::Float, DType::Double});
  else if (dt == DType::String || bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(dt));
}

/// params {elem_bytes, R, outer, extrapolation (f64; nearest: the element's bits), in[R], out[R],
/// ntaps[R], then per axis: offsets[out*ntaps] (input offset within one outer slice, -1:
/// extrapolate), and for linear / cubic weights[out*ntaps] (f64)} — see templates/cpu/resize.cpp.
KernelCall resize_call(const Node &n) {
  ResizeSpec s = resize_spec(n);
  check_dtype(n, s);
  std::vector<AxisTaps> taps;
  for (size_t d = 0; d < s.in.size(); ++d)
    taps.push_back(axis_taps(s, d));
  size_t first = 0; // leading identity axes fold into `outer`
  while (first + 1 < s.in.size() && taps[first].identity)
    ++first;
  const int64_t R = int64_t(s.in.size() - first);
  const bool nearest = s.mode == "nearest";
  std::vector<int64_t> params{
      dtype_bits(input_dtype(n, 0)) / 8, R, product({s.in.begin(), s.in.begin() + int64_t(first)}),
      nearest ? element_bits(input_dtype(n, 0), s.extrapolation) : param_f64(s.extrapolation)};
  for (size_t d = first; d < s.in.size(); ++d)
    params.push_back(s.in[d]);
  for (size_t d = first; d < s.in.size(); ++d)
    params.push_back(s.out[d]);
  for (size_t d = first; d < s.in.size(); ++d)
    params.push_back(taps[d].n);
  int64_t stride = 1;
  std::vector<int64_t> strides(s.in.size());
  for (size_t d = s.in.size(); d-- > first;)
    strides[d] = stride, stride *= s.in[d];
  for (size_t d = first; d < s.in.size(); ++d) {
    for (int64_t i : taps[d].idx)
      params.push_back(i < 0 ? -1 : i * strides[d]);
    if (!nearest)
      for (double w : taps[d].w)
        params.push_back(param_f64(w));
  }
  std::string kernel =
      nearest ? std::string("onnxc_k_resize_nearest") : kernel_name(n, "resize", input_dtype(n, 0));
  return KernelCall{kernel, {n.inputs[0], n.outputs[0]}, params};
}

/// Inputs of a Resize / Upsample computed at run time: scales, sizes or roi (Upsample-9 and
/// Resize-10: scales, input 1). Returns the first such input, or 0.
size_t resize_run_time_input(const Node &n) {
  if (n.op_type == "Upsample" && n.opset < 9)
    return 0;
  const bool legacy = n.op_type == "Upsample" || n.opset < 11;
  for (size_t i : legacy ? std::vector<size_t>{1} : std::vector<size_t>{1, 2, 3})
    if (values_at_run_time(n, i) && product(input_dims(n, i)) > 0)
      return i;
  return 0;
}

/// onnxc_k_resize_rt (templates/cpu/resize_params.h) for a Resize whose scales, sizes or roi
/// are computed at run time: the output is shaped at run time.
KernelCall resize_rt_call(const Node &n) {
  ResizeSpec s;
  resize_attrs(n, s);
  check_dtype(n, s);
  const bool legacy = n.op_type == "Upsample" || n.opset < 11;
  const size_t rank = s.in.size();
  auto given = [&](size_t i) { return n.has_input(i) && product(input_dims(n, i)) > 0; };
  Value *roi = !legacy && given(1) ? n.inputs[1] : nullptr;
  Value *scales = legacy ? n.inputs[1] : given(2) ? n.inputs[2] : nullptr;
  Value *sizes = !legacy && given(3) ? n.inputs[3] : nullptr;
  const std::vector<int64_t> axes = resize_axes(n, static_cast<int64_t>(rank));
  if ((scales != nullptr) == (sizes != nullptr))
    node_fail(n, "exactly one of scales and sizes must be given");
  if ((scales && (scales->type.dtype != DType::Float ||
                  product(input_dims(n, legacy ? 1 : 2)) != static_cast<int64_t>(axes.size()))) ||
      (sizes && (sizes->type.dtype != DType::Int64 ||
                 product(input_dims(n, 3)) != static_cast<int64_t>(axes.size()))) ||
      (roi && (roi->type.dtype != DType::Float ||
               product(input_dims(n, 1)) != 2 * static_cast<int64_t>(axes.size()))))
    node_fail(n,
              "with scales, sizes or roi given at run time, scales must be {} floats, sizes "
              "{} int64 values and roi {} floats",
              axes.size(), axes.size(), 2 * axes.size());
  onnxc_k::ResizeRtParams p{};
  p.elem_bytes = dtype_bits(input_dtype(n, 0)) / 8;
  p.rank = static_cast<int64_t>(rank);
  std::copy(s.in.begin(), s.in.end(), p.dims);
  p.mode = s.mode == "nearest"  ? onnxc_k::kResizeNearest
           : s.mode == "linear" ? onnxc_k::kResizeLinear
                                : onnxc_k::kResizeCubic;
  p.ctm = std::find(std::begin(kCtmNames), std::end(kCtmNames), s.ctm) - std::begin(kCtmNames);
  p.nearest_mode = std::find(std::begin(kNearestNames), std::end(kNearestNames), s.nearest_mode) -
                   std::begin(kNearestNames);
  p.cubic_a = s.cubic_a;
  p.extrapolation = s.extrapolation;
  p.extrapolation_bits = element_bits(input_dtype(n, 0), s.extrapolation);
  p.exclude_outside = s.exclude_outside;
  p.antialias = s.antialias;
  p.naxes = static_cast<int64_t>(axes.size());
  std::copy(axes.begin(), axes.end(), p.axes);
  const std::string policy = attr_string(n, "keep_aspect_ratio_policy", "stretch");
  p.keep_aspect = policy == "not_larger" ? 1 : policy == "not_smaller" ? 2 : 0;
  if (policy != "stretch" && !p.keep_aspect)
    node_fail(n, "keep_aspect_ratio_policy '{}' is not stretch, not_larger or not_smaller", policy);
  p.is_f64 = input_dtype(n, 0) == DType::Double;
  KernelCall call{"onnxc_k_resize_rt", {n.inputs[0], roi, scales, sizes, n.outputs[0]}, {}};
  set_params(call, p);
  return call;
}

OpDef resize_def(const char *name) {
  OpDef d;
  d.name = name;
  d.infer = [](Node &n) {
    if (size_t from = resize_run_time_input(n)) {
      resize_rt_call(n); // checks the attributes and inputs
      set_run_time_shaped_output(n, 0, input_dtype(n, 0),
                                 std::vector<int64_t>(input_dims(n, 0).size(), 1), from);
      return;
    }
    ResizeSpec s = resize_spec(n);
    check_dtype(n, s);
    set_output(n, 0, input_dtype(n, 0), s.out);
  };
  d.lower = [](const Node &n) {
    if (!n.outputs[0]->run_time_shape_from.empty())
      return resize_rt_call(n);
    return resize_call(n);
  };
  return d;
}

} // namespace

const OpDef &op_Resize() {
  static const OpDef def = [] {
    OpDef d = resize_def("Resize");
    d.min_opset = 10;
    d.attrs = {{"mode", Attribute::Kind::String},
               {"coordinate_transformation_mode", Attribute::Kind::String},
               {"cubic_coeff_a", Attribute::Kind::Float},
               {"exclude_outside", Attribute::Kind::Int},
               {"extrapolation_value", Attribute::Kind::Float},
               {"nearest_mode", Attribute::Kind::String},
               {"antialias", Attribute::Kind::Int},
               {"axes", Attribute::Kind::Ints},
               {"keep_aspect_ratio_policy", Attribute::Kind::String}};
    return d;
  }();
  return def;
}

const OpDef &op_Upsample() {
  static const OpDef def = [] {
    OpDef d = resize_def("Upsample");
    d.min_opset = 7;
    d.max_opset = 9;
    d.attrs = {{"mode", Attribute::Kind::String}, {"scales", Attribute::Kind::Floats}};
    return d;
  }();
  return def;
}

} // namespace onnxc
