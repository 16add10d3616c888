#include "compiler/ops/nn/nn_util.h"
#include "templates/cpu/activation.h"
#include "templates/cpu/gemm_params.h"

#include <cstring>

namespace onnxc {

static std::vector<int64_t> attr_per_dim(const Node &n, const char *name, size_t rank,
                                         int64_t def) {
  std::vector<int64_t> v = attr_ints(n, name, std::vector<int64_t>(rank, def));
  if (v.size() != rank)
    node_fail(n, "attribute '{}' has {} values but the input has {} spatial dims", name, v.size(),
              rank);
  return v;
}

Window make_window(const Node &n, const std::vector<int64_t> &in,
                   const std::vector<int64_t> &kernel, bool ceil_mode) {
  const size_t rank = in.size();
  Window w;
  w.in = in;
  w.kernel = kernel;
  w.strides = attr_per_dim(n, "strides", rank, 1);
  w.dilations = attr_per_dim(n, "dilations", rank, 1);
  std::vector<int64_t> pads = attr_ints(n, "pads", std::vector<int64_t>(2 * rank, 0));
  if (pads.size() != 2 * rank)
    node_fail(n, "attribute 'pads' has {} values; expected {} (begin and end per spatial dim)",
              pads.size(), 2 * rank);
  std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID")
    node_fail(n, "unknown auto_pad '{}'", auto_pad);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t s = w.strides[d], dil = w.dilations[d], k = kernel[d];
    if (s < 1 || dil < 1 || k < 1)
      node_fail(n, "strides, dilations and kernel_shape must be positive (dim {}: {}, {}, {})", d,
                s, dil, k);
    int64_t pb = pads[d], pe = pads[d + rank], out;
    if (pb < 0 || pe < 0)
      node_fail(n, "negative pads are not supported");
    // Bounded so that the window arithmetic below cannot overflow int64.
    constexpr int64_t kMost = int64_t(1) << 30;
    if (s > kMost || dil > kMost || k > kMost || pb > kMost || pe > kMost)
      node_fail(n,
                "strides, dilations, kernel_shape and pads must be at most {} (dim {}: {}, {}, "
                "{}, pads {} and {}); the model is malformed",
                kMost, d, s, dil, k, pb, pe);
    const int64_t extent = (k - 1) * dil + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (in[d] + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in[d]);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      if (auto_pad == "VALID")
        pb = pe = 0;
      int64_t span = in[d] + pb + pe - extent;
      if (span < 0)
        node_fail(n,
                  "the window (extent {}) is larger than the padded input ({}) in spatial dim {}",
                  extent, in[d] + pb + pe, d);
      out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      if (ceil_mode && (out - 1) * s >= in[d] + pb) // last window would start in the end padding
        --out;
    }
    w.out.push_back(out);
    w.pad_begin.push_back(pb);
    w.pad_end.push_back(pe);
  }
  return w;
}

onnxc_k::WindowGeom window_geom(const Node &n, const Window &w) {
  if (w.rank() < 1 || w.rank() > 3)
    node_fail(n, "only 1-D, 2-D and 3-D windows are supported (this one has {} spatial dims)",
              w.rank());
  onnxc_k::WindowGeom g;
  auto put = [&](int64_t(&dst)[3], const std::vector<int64_t> &v, int64_t fill) {
    const int64_t lead = 3 - w.rank();
    for (int64_t d = 0; d < 3; ++d)
      dst[d] = d < lead ? fill : v[static_cast<size_t>(d - lead)];
  };
  put(g.in, w.in, 1);
  put(g.out, w.out, 1);
  put(g.k, w.kernel, 1);
  put(g.s, w.strides, 1);
  put(g.p, w.pad_begin, 0);
  put(g.d, w.dilations, 1);
  put(g.p_end, w.pad_end, 0);
  return g;
}

std::vector<int64_t> window_params(const Node &n, const Window &w) {
  const onnxc_k::WindowGeom g = window_geom(n, w);
  std::vector<int64_t> p(sizeof g / sizeof(int64_t));
  std::memcpy(p.data(), &g, sizeof g);
  return p;
}

int64_t activation_kind(const std::string &name) {
  static const std::pair<const char *, int64_t> kinds[] = {
      {"Relu", onnxc_k::kActRelu},
      {"Clip", onnxc_k::kActClip},
      {"LeakyRelu", onnxc_k::kActLeakyRelu},
      {"Sigmoid", onnxc_k::kActSigmoid},
      {"HardSigmoid", onnxc_k::kActHardSigmoid},
      {"HardSwish", onnxc_k::kActHardSwish},
      {"Silu", onnxc_k::kActSilu},
      {"Gelu", onnxc_k::kActGelu},
      {"GeluTanh", onnxc_k::kActGeluTanh}};
  for (const auto &[n, k] : kinds)
    if (name == n)
      return k;
  return -1;
}

onnxc_k::ActParams activation(const Node &n) {
  if (!has_attr(n, kActivationAttr))
    return {onnxc_k::kActNone, 0.0, 0.0};
  const std::string name = attr_string(n, kActivationAttr, "");
  const int64_t kind = activation_kind(name);
  if (kind < 0)
    node_fail(n, "unknown fused activation '{}'", name);
  std::vector<float> ab;
  if (has_attr(n, kActivationParamsAttr))
    ab = attr_floats(n, kActivationParamsAttr);
  ab.resize(2, 0.0f);
  return {kind, ab[0], ab[1]};
}

std::vector<int64_t> activation_params(const Node &n) {
  const onnxc_k::ActParams a = activation(n);
  return {a.kind, param_f64(a.a), param_f64(a.b)};
}

namespace {

/// The b_count K x N matrices of the constant b packed in the GEMM kernel's layout, in
/// sub-panels of `sub` columns (gemm_params.h b_slice_width).
template <typename T>
TensorPtr pack_gemm_b(const Tensor &b, const onnxc_k::gemm::GemmParams &p, int64_t sub) {
  const int64_t pe = onnxc_k::gemm::packed_b_elems(p.K, p.N, sizeof(T));
  auto packed = std::make_shared<Tensor>(b.dtype(), std::vector<int64_t>{p.b_count * pe});
  for (int64_t i = 0; i < p.b_count; ++i)
    onnxc_k::gemm::pack_b(packed->data_as<T>() + i * pe, b.data_as<T>() + i * p.K * p.N, p.K, p.N,
                          p.rsb, p.csb, sub);
  return packed;
}

/// Y^T = B^T A^T: swaps the operands so that the wide side becomes the packed one.
void transpose_product(GemmSpec &s) {
  const int64_t b_mat = s.K * s.N;
  std::swap(s.a, s.b);
  std::swap(s.M, s.N);
  int64_t rsa = s.csb, csa = s.rsb, rsb = s.csa, csb = s.rsa;
  s.rsa = rsa, s.csa = csa, s.rsb = rsb, s.csb = csb;
  std::swap(s.rsc, s.csc);
  std::vector<int64_t> a_bs = s.b_bs, b_bs = s.a_bs;
  for (int64_t &x : a_bs)
    x *= b_mat;
  s.a_bs = a_bs, s.b_bs = b_bs;
  s.b_count = s.a_count;
}

} // namespace

KernelCall gemm_call(const Node &n, GemmSpec s) {
  using onnxc_k::gemm::GemmParams;
  const DType dt = s.y->type.dtype;
  const int64_t nr = onnxc_k::gemm::panel_width(dtype_bits(dt) / 8);
  GemmParams p{};
  p.rsy = s.N, p.csy = 1;
  if (s.N < nr && s.N < s.M) {
    transpose_product(s);
    p.rsy = 1, p.csy = s.M; // s.M is the original N now
  } else {
    for (int64_t &x : s.a_bs)
      x *= s.M * s.K;
  }
  const int64_t rank = static_cast<int64_t>(s.batch.size());
  if (rank > onnxc_k::gemm::kMaxRank)
    node_fail(n, "matrix products with more than {} batch dims are not supported (got {})",
              onnxc_k::gemm::kMaxRank, rank);
  p.M = s.M, p.N = s.N, p.K = s.K, p.rsa = s.rsa, p.csa = s.csa, p.rsb = s.rsb, p.csb = s.csb;
  p.alpha = s.alpha, p.beta = s.beta, p.has_c = s.c != nullptr, p.rsc = s.rsc, p.csc = s.csc;
  p.b_count = s.b_count, p.rank = rank, p.act = activation(n);
  p.mr = attr_int(n, kGemmTileRowsAttr, 0);
  // Matrix-vector like products stream B instead of packing it.
  const bool packable = s.b->constant && attr_int(n, kPackWeightsAttr, 0) != 0;
  p.direct = s.M <= onnxc_k::gemm::kSmallM && (s.csb == 1 || s.rsb == 1) &&
             !(packable && attr_int(n, kExtentLoweringAttr, 0) != 0);
  for (int64_t d = 0; d < rank; ++d)
    p.batch[d] = s.batch[d], p.a_bs[d] = s.a_bs[d], p.b_bs[d] = s.b_bs[d];
  KernelCall call;
  call.kernel = kernel_name(n, "gemm", dt);
  call.args = {s.a, s.b, s.c, s.y};
  if (!p.direct && packable) {
    p.b_packed = 1;
    const bool f32 = dt == DType::Float;
    const int64_t sub = onnxc_k::gemm::b_slice_width(p.mr, f32 ? sizeof(float) : sizeof(double));
    const std::string key =
        fmt::format("{}:gemm_b:{}x{}:{},{}:{}:{}", static_cast<const void *>(s.b), p.K, p.N, p.rsb,
                    p.csb, p.b_count, sub);
    TensorPtr packed = derived_tensor(key, [&] {
      return f32 ? pack_gemm_b<float>(*s.b->constant, p, sub)
                 : pack_gemm_b<double>(*s.b->constant, p, sub);
    });
    call.derived.push_back({1, std::move(packed), s.b->name + ".packed"});
    call.args[1] = nullptr;
  }
  set_params(call, p);
  call.scratch_bytes = onnxc_k::gemm::gemm_scratch_bytes(p, dtype_bits(dt) / 8);
  return call;
}

} // namespace onnxc
