// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins] matrix of triangular mel
// filters, as the ONNX reference computes it (num_mel_bins + 2 points evenly spaced in mel,
// mapped to DFT bins by floor((dft_length + 1) * hz / sample_rate)), in double: at compile time
// from constant inputs, else by onnxc_k_mel_rt (templates/cpu/shaped.cpp), the output shaped by
// the run.
#include "compiler/ops/signal/signal_util.h"
#include "templates/cpu/shaped_params.h"

#include <cmath>

namespace onnxc {
namespace {

/// The DFT bin of each of the num_mel_bins + 2 filter edges.
std::vector<int64_t> edge_bins(int64_t bins, int64_t dft_length, int64_t rate, double lo_hz,
                               double hi_hz) {
  double lo = 2595.0 * std::log10(1.0 + lo_hz / 700.0);
  double hi = 2595.0 * std::log10(1.0 + hi_hz / 700.0);
  double step = (hi - lo) / static_cast<double>(bins + 2);
  std::vector<int64_t> edges;
  for (int64_t i = 0; i < bins + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595.0) - 1.0);
    edges.push_back(static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(rate))));
  }
  return edges;
}

Tensor mel_value(const Node &n) {
  int64_t bins = constant_scalar_int(n, 0, "num_mel_bins");
  int64_t dft_length = constant_scalar_int(n, 1, "dft_length");
  int64_t rate = constant_scalar_int(n, 2, "sample_rate");
  double lo_hz = require_constant(n, 3, "lower_edge_hertz").float_at(0);
  double hi_hz = require_constant(n, 4, "upper_edge_hertz").float_at(0);
  if (bins <= 0 || dft_length <= 0 || rate <= 0 || bins > 65536 || dft_length > (1 << 24))
    node_fail(n,
              "num_mel_bins ({}), dft_length ({}) and sample_rate ({}) must be positive (and "
              "num_mel_bins at most 65536, dft_length at most 2^24)",
              bins, dft_length, rate);
  const int64_t rows = dft_length / 2 + 1;
  std::vector<int64_t> e = edge_bins(bins, dft_length, rate, lo_hz, hi_hz);
  std::vector<double> w(static_cast<size_t>(rows * bins), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double & {
    if (j < 0 || j >= rows)
      node_fail(n,
                "a mel filter edge falls on DFT bin {}, outside 0..{} (check the edge "
                "frequencies against sample_rate)",
                j, rows - 1);
    return w[static_cast<size_t>(j * bins + i)];
  };
  for (int64_t i = 0; i < bins; ++i) {
    int64_t l = e[size_t(i)], c = e[size_t(i + 1)], h = e[size_t(i + 2)];
    if (c == l)
      at(c, i) = 1.0;
    for (int64_t j = l; c != l && j <= c; ++j)
      at(j, i) = static_cast<double>(j - l) / static_cast<double>(c - l);
    for (int64_t j = c; j < h; ++j)
      at(j, i) = static_cast<double>(h - j) / static_cast<double>(h - c);
  }
  auto dtype = static_cast<DType>(attr_int(n, "output_datatype", int64_t(DType::Float)));
  return tensor_from_doubles(n, dtype, {rows, bins}, w);
}

} // namespace

const OpDef &op_MelWeightMatrix() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "MelWeightMatrix";
    d.min_opset = 17;
    d.attrs = {{"output_datatype", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      int from = -1;
      for (int i = 4; i >= 0; --i)
        from = values_at_run_time(n, size_t(i)) ? i : from;
      if (from >= 0) {
        auto dtype = static_cast<DType>(attr_int(n, "output_datatype", int64_t(DType::Float)));
        require_dtype(n, dtype, {DType::Float, DType::Double, DType::Float16, DType::BFloat16});
        for (size_t i = 0; i < 5; ++i)
          if (!n.has_input(i) || product(input_dims(n, i)) != 1)
            node_fail(n, "every input must be a scalar");
        require_dtype(n, input_dtype(n, 0), {DType::Int32, DType::Int64});
        require_dtype(n, input_dtype(n, 3),
                      {DType::Float, DType::Double, DType::Float16, DType::BFloat16});
        if (input_dtype(n, 1) != input_dtype(n, 0) || input_dtype(n, 2) != input_dtype(n, 0) ||
            input_dtype(n, 4) != input_dtype(n, 3))
          node_fail(n, "num_mel_bins, dft_length and sample_rate must have one type, and the "
                       "edge frequencies another");
        set_run_time_shaped_output(n, 0, dtype, {1, 1}, size_t(from));
        return;
      }
      Tensor t = mel_value(n);
      set_output(n, 0, t.dtype(), t.shape());
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return std::vector<Tensor>{mel_value(n)};
    };
    d.lower = [](const Node &n) {
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        auto kind = [](DType t) -> int64_t {
          return t == DType::Float ? 0 : t == DType::Double ? 1 : t == DType::Float16 ? 2 : 3;
        };
        onnxc_k::MelRtParams p{input_dtype(n, 0) == DType::Int32 ? 4 : 8, kind(input_dtype(n, 3)),
                               kind(n.outputs[0]->type.dtype)};
        KernelCall call{"onnxc_k_mel_rt", {}, {}};
        for (size_t i = 0; i < 5; ++i)
          call.args.push_back(n.inputs[i]);
        call.args.push_back(n.outputs[0]);
        set_params(call, p);
        return call;
      }
      return write_constant_call(n, mel_value(n));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
