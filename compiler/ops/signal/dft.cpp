// DFT (opsets 17 and 20): a discrete Fourier transform along one axis of a real ([..., 1]) or
// complex ([..., 2]) tensor; forward, inverse, one-sided forward (rfft) and the real inverse of
// a one-sided spectrum (inverse + onesided, numpy.fft.irfft). dft_length and (opset 20) axis
// must be compile-time constants. Kernel: templates/cpu/dft.cpp.
#include "compiler/ops/signal/signal_util.h"
#include "templates/cpu/dft_params.h"

#include <fmt/ranges.h>

namespace onnxc {
namespace {

using onnxc_k::DftParams;

/// The DFT's axis (normalised) and view of X, and the output length and shape.
DftParams dft_geometry(const Node &n, int64_t &axis) {
  std::vector<int64_t> x = input_dims(n, 0);
  const auto r = static_cast<int64_t>(x.size());
  if (r < 2 || (x.back() != 1 && x.back() != 2))
    node_fail(n,
              "input must have rank 2 or more and a last dimension of 1 (real) or 2 "
              "(complex), not [{}]",
              fmt::join(x, ", "));
  axis = n.opset >= 20 ? (n.has_input(2) ? constant_scalar_int(n, 2, "axis") : -2)
                       : attr_int(n, "axis", 1);
  if (axis < -r || axis > r - 2 || axis == -1)
    node_fail(n,
              "axis {} is out of range for rank {} (the last dimension holds the complex "
              "parts)",
              axis, r);
  axis = normalize_axis(n, axis, r);
  DftParams p{};
  p.outer = product({x.begin(), x.begin() + axis});
  p.n_in = x[size_t(axis)];
  p.inner = product({x.begin() + axis + 1, x.end() - 1});
  p.cin = x.back();
  bool inverse = attr_int(n, "inverse", 0) != 0, onesided = attr_int(n, "onesided", 0) != 0;
  bool real_inverse = inverse && onesided;
  int64_t len = n.has_input(1) ? constant_scalar_int(n, 1, "dft_length")
                               : (real_inverse ? 2 * (p.n_in - 1) : p.n_in);
  if (len < 1 || len > (int64_t(1) << 24))
    node_fail(n, "the DFT length {} is out of range (1..2^24)", len);
  p.frames = 1;
  p.step = 0;
  p.frame_len = std::min(p.n_in, len);
  p.n = len;
  p.mode = real_inverse ? onnxc_k::kDftInverseReal
                        : (inverse ? onnxc_k::kDftInverse : onnxc_k::kDftForward);
  p.out_len = onesided && !inverse ? len / 2 + 1 : len;
  p.cout = real_inverse ? 1 : 2;
  return p;
}

} // namespace

const OpDef &op_DFT() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "DFT";
    d.min_opset = 17;
    d.attrs = {{"axis", Attribute::Kind::Int},
               {"inverse", Attribute::Kind::Int},
               {"onesided", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
      int64_t axis = 0;
      DftParams p = dft_geometry(n, axis);
      std::vector<int64_t> y = input_dims(n, 0);
      y[size_t(axis)] = p.out_len;
      y.back() = p.cout;
      set_output(n, 0, input_dtype(n, 0), y);
    };
    d.lower = [](const Node &n) {
      int64_t axis = 0;
      return dft_call(n, dft_geometry(n, axis), nullptr);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
