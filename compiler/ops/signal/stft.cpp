// STFT (opset 17): the DFT of each frame (frame_length samples every frame_step) of a real or
// complex signal [batch, length, 1 or 2], multiplied by the window if given; output
// [batch, frames, bins, 2], bins = frame_length / 2 + 1 when onesided (the default). When
// frame_step or frame_length is computed at run time, onnxc_k_stft_rt_* checks them and the
// output is shaped by the run (no bound). Kernel: templates/cpu/dft.cpp.
#include "compiler/ops/signal/signal_util.h"
#include "templates/cpu/dft_params.h"

namespace onnxc {
namespace {

using onnxc_k::DftParams;

int64_t frame_length(const Node &n) {
  bool has_window = n.has_input(2), has_len = n.has_input(3);
  if (!has_window && !has_len)
    node_fail(n, "needs a window or a frame_length input");
  int64_t len = has_len ? constant_scalar_int(n, 3, "frame_length") : 0;
  if (has_window) {
    std::vector<int64_t> w = input_dims(n, 2);
    if (w.size() != 1 || (has_len && w[0] != len))
      node_fail(n,
                "window must be 1-D with frame_length elements (window [{}], frame_length "
                "{})",
                w.empty() ? 0 : w[0], len);
    len = w[0];
  }
  return len;
}

bool stft_at_run_time(const Node &n) {
  return values_at_run_time(n, 1) || (n.has_input(3) && values_at_run_time(n, 3));
}

/// What the input types fix when frame_step / frame_length come at run time.
onnxc_k::StftRtParams stft_rt_params(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() != 3 || (x[2] != 1 && x[2] != 2))
    node_fail(n, "signal must be [batch, length, 1 or 2]");
  if (!n.has_input(2) && !n.has_input(3))
    node_fail(n, "needs a window or a frame_length input");
  const DType it = input_dtype(n, 1);
  for (size_t i : {size_t{1}, size_t{3}})
    if (n.has_input(i) && (product(input_dims(n, i)) != 1 || input_dtype(n, i) != it ||
                           (it != DType::Int64 && it != DType::Int32)))
      node_fail(n, "frame_step and frame_length must be int32 or int64 scalars of one type");
  onnxc_k::StftRtParams q{};
  q.batch = x[0], q.n_in = x[1], q.cin = x[2];
  q.onesided = attr_int(n, "onesided", 1) != 0;
  q.window_len = n.has_input(2) ? input_dims(n, 2).at(0) : 0;
  if (n.has_input(2) && (input_dims(n, 2).size() != 1 || q.window_len < 1 || q.window_len > x[1]))
    node_fail(n, "window must be 1-D with 1 to {} (the signal length) elements", x[1]);
  q.index_bytes = dtype_bits(it) / 8;
  return q;
}

DftParams stft_geometry(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() != 3 || (x[2] != 1 && x[2] != 2))
    node_fail(n, "signal must be [batch, length, 1 or 2]");
  int64_t step = constant_scalar_int(n, 1, "frame_step");
  int64_t len = frame_length(n);
  if (step < 1 || len < 1 || len > x[1] || len > (int64_t(1) << 24))
    node_fail(n,
              "frame_step ({}) must be positive and frame_length ({}) between 1 and the "
              "signal length ({})",
              step, len, x[1]);
  DftParams p{};
  p.outer = x[0];
  p.n_in = x[1];
  p.inner = 1;
  p.cin = x[2];
  p.frames = (x[1] - len) / step + 1;
  p.step = step;
  p.frame_len = len;
  p.n = len;
  p.out_len = attr_int(n, "onesided", 1) ? len / 2 + 1 : len;
  p.cout = 2;
  p.mode = onnxc_k::kDftForward;
  return p;
}

} // namespace

const OpDef &op_STFT() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "STFT";
    d.min_opset = 17;
    d.attrs = {{"onesided", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      DType t = input_dtype(n, 0);
      require_dtype(n, t, {DType::Float, DType::Double});
      if (n.has_input(2) && input_dtype(n, 2) != t)
        node_fail(n, "window must have the signal's element type");
      if (stft_at_run_time(n)) {
        const onnxc_k::StftRtParams q = stft_rt_params(n);
        set_run_time_shaped_output(n, 0, t, {q.batch, 1, 1, 2}, values_at_run_time(n, 1) ? 1 : 3);
        return;
      }
      DftParams p = stft_geometry(n);
      set_output(n, 0, t, {p.outer, p.frames, p.out_len, 2});
    };
    d.lower = [](const Node &n) {
      if (stft_at_run_time(n)) {
        const onnxc_k::StftRtParams q = stft_rt_params(n);
        KernelCall call{kernel_name(n, "stft_rt", input_dtype(n, 0)),
                        {n.inputs[0], n.inputs[1], n.input(2), n.input(3), n.outputs[0]},
                        {}};
        set_params(call, q);
        call.scratch_bytes = q.n_in * 16; // twiddles of the longest frame
        return call;
      }
      return dft_call(n, stft_geometry(n), n.input(2));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
