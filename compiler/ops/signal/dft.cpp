// DFT (opsets 17 and 20): a discrete Fourier transform along one axis of a real ([..., 1]) or
// complex ([..., 2]) tensor; forward, inverse, one-sided forward (rfft) and the real inverse of
// a one-sided spectrum (inverse + onesided, numpy.fft.irfft). dft_length must be a compile-time
// constant; an axis (opset 20) computed at run time runs onnxc_k_dft_axis_*, which picks the
// params of that axis (the output is then shaped at run time unless every axis gives the same
// shape). Kernel: templates/cpu/dft.cpp.
#include "compiler/ops/signal/signal_util.h"
#include "templates/cpu/dft_params.h"

#include <fmt/ranges.h>

namespace onnxc {
namespace {

using onnxc_k::DftParams;

/// Opset 20's axis computed at run time (DftAxisParams).
bool axis_at_run_time(const Node &n) { return n.opset >= 20 && values_at_run_time(n, 2); }

/// The DFT's view of X along `axis` (normalised; read from the node when unset), and the
/// output length and shape.
DftParams dft_geometry(const Node &n, int64_t &axis, bool given = false) {
  std::vector<int64_t> x = input_dims(n, 0);
  const auto r = static_cast<int64_t>(x.size());
  if (r < 2 || (x.back() != 1 && x.back() != 2))
    node_fail(n,
              "input must have rank 2 or more and a last dimension of 1 (real) or 2 "
              "(complex), not [{}]",
              fmt::join(x, ", "));
  if (!given)
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

/// Output dims for the DFT along `axis`.
std::vector<int64_t> dft_output(const Node &n, int64_t axis, const DftParams &p) {
  std::vector<int64_t> y = input_dims(n, 0);
  y[size_t(axis)] = p.out_len;
  y.back() = p.cout;
  return y;
}

/// Every axis a run-time axis may name: its params and output dims.
onnxc_k::DftAxisParams dft_axis_params(const Node &n) {
  const Value *a = n.inputs[2];
  if (a->type.rank() > 1 || product(input_dims(n, 2)) != 1 ||
      (a->type.dtype != DType::Int64 && a->type.dtype != DType::Int32))
    node_fail(n, "axis must be an int32 or int64 scalar, it is {}", shape_to_string(a->type));
  onnxc_k::DftAxisParams q{};
  q.rank = static_cast<int64_t>(input_dims(n, 0).size());
  q.axis_bytes = dtype_bits(a->type.dtype) / 8;
  if (q.rank > 8)
    node_fail(n, "an axis given at run time supports inputs of rank 8 at most");
  for (int64_t k = 0; k + 1 < q.rank; ++k) {
    int64_t axis = k;
    try { // an axis along which the DFT is not defined fails if the run names it
      q.at[k] = dft_geometry(n, axis, true);
    } catch (const Error &) {
      continue;
    }
    q.valid[k] = 1;
    const std::vector<int64_t> y = dft_output(n, k, q.at[k]);
    std::copy(y.begin(), y.end(), q.out_dims[k]);
  }
  if (std::find(q.valid, q.valid + q.rank - 1, 1) == q.valid + q.rank - 1) {
    int64_t axis = 0; // fails naming what is wrong along every axis
    dft_geometry(n, axis, true);
  }
  return q;
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
      if (axis_at_run_time(n)) { // the output's shape if every axis gives it, else the bound
        const onnxc_k::DftAxisParams q = dft_axis_params(n);
        const int64_t first = std::find(q.valid, q.valid + q.rank - 1, 1) - q.valid;
        std::vector<int64_t> bound(q.out_dims[first], q.out_dims[first] + q.rank);
        bool same = true;
        for (int64_t k = first + 1; k + 1 < q.rank; ++k)
          for (int64_t d = 0; q.valid[k] && d < q.rank; ++d) {
            same = same && q.out_dims[k][d] == bound[size_t(d)];
            bound[size_t(d)] = std::max(bound[size_t(d)], q.out_dims[k][d]);
          }
        if (same)
          set_output(n, 0, input_dtype(n, 0), bound);
        else
          set_run_time_shaped_output(n, 0, input_dtype(n, 0), bound, 2, true);
        return;
      }
      int64_t axis = 0;
      DftParams p = dft_geometry(n, axis);
      set_output(n, 0, input_dtype(n, 0), dft_output(n, axis, p));
    };
    d.lower = [](const Node &n) {
      if (axis_at_run_time(n)) {
        const onnxc_k::DftAxisParams q = dft_axis_params(n);
        KernelCall call{kernel_name(n, "dft_axis", input_dtype(n, 0)),
                        {n.inputs[0], n.inputs[2], n.outputs[0]},
                        {}};
        set_params(call, q);
        for (int64_t k = 0; k + 1 < q.rank; ++k)
          call.scratch_bytes = std::max(call.scratch_bytes, onnxc_k::dft_scratch_bytes(q.at[k]));
        return call;
      }
      int64_t axis = 0;
      return dft_call(n, dft_geometry(n, axis), nullptr);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
