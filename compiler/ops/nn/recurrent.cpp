// LSTM, GRU and RNN: one shape rule, attribute reading and lowering for the three cells, to the
// kernel onnxc_k_recurrent_<dtype> (templates/cpu/recurrent.cpp; the parameter layout and scratch
// layout are in templates/cpu/recurrent.h). float/double.
//
// Supported: layout 0 and 1, direction forward/reverse/bidirectional, B, sequence_lens,
// initial_h, initial_c and P (peepholes) present or omitted, any of Y, Y_h, Y_c omitted, clip,
// LSTM's input_forget, GRU's linear_before_reset, and every activation ONNX lists (names are
// matched case-insensitively). activation_alpha/beta are consumed in order by the activations
// that take them (Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu), as ONNX
// Runtime does; where the list runs out the ONNX operator's default applies.
// Where ONNX is silent, ONNX Runtime's choices: Y_h and Y_c of a batch entry whose sequence_lens
// is 0 are zeros; clip applies to the inputs of f and g, not to the cell state. A sequence_lens
// value outside [0, seq_length] fails the run with a message.
#include "templates/cpu/recurrent.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/op_util.h"
#include "templates/cpu/gemm_params.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

namespace onnxc {
namespace {

using onnxc_rnn::Cell;

struct RnnDims {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse = false, layout = false;
};

void expect_dims(const Node &n, size_t i, const char *what, const std::vector<int64_t> &want) {
  std::vector<int64_t> got = input_dims(n, i);
  if (got != want)
    node_fail(n, "{} has shape {} but must be {}", what, dims_to_string(got), dims_to_string(want));
}

/// Dims of X (layout-aware), the direction, and the checked shapes of every other input.
RnnDims rnn_dims(const Node &n, Cell cell) {
  RnnDims r;
  const int64_t layout = attr_int(n, "layout", 0);
  if (layout != 0 && layout != 1)
    node_fail(n, "layout must be 0 or 1, got {}", layout);
  r.layout = layout == 1;
  std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() != 3)
    node_fail(n, "X must have rank 3, got shape {}", dims_to_string(x));
  r.seq = r.layout ? x[1] : x[0];
  r.batch = r.layout ? x[0] : x[1];
  r.input = x[2];
  const std::string dir = attr_string(n, "direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    node_fail(n, "direction must be forward, reverse or bidirectional, got '{}'", dir);
  r.dirs = dir == "bidirectional" ? 2 : 1;
  r.reverse = dir == "reverse";
  std::vector<int64_t> rd = input_dims(n, 2);
  if (rd.size() != 3)
    node_fail(n, "R must have rank 3, got shape {}", dims_to_string(rd));
  r.hidden = rd[2];
  if (has_attr(n, "hidden_size") && attr_int(n, "hidden_size", 0) != r.hidden)
    node_fail(n, "hidden_size is {} but R has shape {}", attr_int(n, "hidden_size", 0),
              dims_to_string(rd));
  const int64_t gh = onnxc_rnn::gates(cell) * r.hidden;
  expect_dims(n, 1, "W", {r.dirs, gh, r.input});
  expect_dims(n, 2, "R", {r.dirs, gh, r.hidden});
  if (n.has_input(3))
    expect_dims(n, 3, "B", {r.dirs, 2 * gh});
  if (n.has_input(4))
    expect_dims(n, 4, "sequence_lens", {r.batch});
  const std::vector<int64_t> state = r.layout ? std::vector<int64_t>{r.batch, r.dirs, r.hidden}
                                              : std::vector<int64_t>{r.dirs, r.batch, r.hidden};
  if (n.has_input(5))
    expect_dims(n, 5, "initial_h", state);
  if (n.has_input(6))
    expect_dims(n, 6, "initial_c", state);
  if (n.has_input(7))
    expect_dims(n, 7, "P", {r.dirs, 3 * r.hidden});
  return r;
}

struct ActInfo {
  const char *name;
  int uses; // 0: none, 1: alpha, 2: alpha and beta
  double alpha, beta;
};

/// Indexed by onnxc_rnn::Act; defaults are those of the ONNX operators of the same name.
constexpr ActInfo kActs[] = {{"Sigmoid", 0, 0, 0},        {"Tanh", 0, 0, 0},
                             {"Relu", 0, 0, 0},           {"Affine", 2, 1.0, 0.0},
                             {"LeakyRelu", 1, 0.01, 0},   {"ThresholdedRelu", 1, 1.0, 0},
                             {"ScaledTanh", 2, 1.0, 1.0}, {"HardSigmoid", 2, 0.2, 0.5},
                             {"Elu", 1, 1.0, 0},          {"Softsign", 0, 0, 0},
                             {"Softplus", 0, 0, 0}};

/// kActs is in the kernel's code order (ONNXC_RNN_ACTIVATIONS).
constexpr bool acts_match_kernel() {
#define ONNXC_RNN_ACT_NAME(name) #name,
  constexpr std::string_view names[] = {ONNXC_RNN_ACTIVATIONS(ONNXC_RNN_ACT_NAME)};
#undef ONNXC_RNN_ACT_NAME
  if (std::size(names) != std::size(kActs) || std::size(names) != onnxc_rnn::kRnnActCount)
    return false;
  for (size_t k = 0; k < std::size(names); ++k)
    if (names[k] != kActs[k].name)
      return false;
  return true;
}
static_assert(acts_match_kernel());

int64_t act_code(const Node &n, const std::string &name) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  for (int64_t k = 0; k < onnxc_rnn::kRnnActCount; ++k)
    if (lower(kActs[k].name) == lower(name))
      return k;
  node_fail(n,
            "unknown activation '{}' (supported: Sigmoid, Tanh, Relu, Affine, LeakyRelu, "
            "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus)",
            name);
}

/// The activation params: kMaxActs (code, alpha, beta) triples per direction (two directions).
std::vector<int64_t> activation_params(const Node &n, Cell cell, int64_t dirs) {
  static const std::vector<std::string> defaults[] = {
      {"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  const std::vector<std::string> &def = defaults[cell];
  const size_t per_dir = def.size();
  std::vector<std::string> names;
  const Attribute *a = n.attr("activations");
  if (a && a->kind != Attribute::Kind::Strings)
    node_fail(n, "attribute 'activations' must be a list of strings");
  if (a && !a->strings.empty()) {
    names = a->strings;
    if (names.size() != per_dir * static_cast<size_t>(dirs))
      node_fail(n,
                "activations lists {} functions but the cell needs {} per direction ({} "
                "direction(s))",
                names.size(), per_dir, dirs);
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      names.insert(names.end(), def.begin(), def.end());
  }
  const std::vector<float> alphas = attr_floats(n, "activation_alpha"),
                           betas = attr_floats(n, "activation_beta");
  size_t ai = 0, bi = 0;
  std::vector<int64_t> out(2 * onnxc_rnn::kMaxActs * 3, 0);
  for (size_t k = 0; k < names.size(); ++k) {
    const int64_t code = act_code(n, names[k]);
    const ActInfo &info = kActs[code];
    double alpha = info.alpha, beta = info.beta;
    if (info.uses >= 1 && ai < alphas.size())
      alpha = alphas[ai++];
    if (info.uses >= 2 && bi < betas.size())
      beta = betas[bi++];
    const size_t base = ((k / per_dir) * onnxc_rnn::kMaxActs + k % per_dir) * 3;
    out[base] = code, out[base + 1] = param_f64(alpha), out[base + 2] = param_f64(beta);
  }
  return out;
}

bool output_used(const Node &n, size_t i) {
  Value *v = i < n.outputs.size() ? n.outputs[i] : nullptr;
  return v && (!v->uses.empty() || v->is_graph_output);
}

void infer_rnn(Node &n, Cell cell) {
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  const size_t max_in = cell == onnxc_rnn::kLstm ? 8 : 6,
               max_out = cell == onnxc_rnn::kLstm ? 3 : 2;
  if (n.inputs.size() > max_in || n.outputs.size() > max_out)
    node_fail(n, "has {} inputs and {} outputs; the operator takes at most {} and {}",
              n.inputs.size(), n.outputs.size(), max_in, max_out);
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (i != 4 && n.has_input(i) && input_dtype(n, i) != dt)
      node_fail(n, "input {} has element type {} but X has {}", i, dtype_name(input_dtype(n, i)),
                dtype_name(dt));
  if (n.has_input(4) && input_dtype(n, 4) != DType::Int32)
    node_fail(n, "sequence_lens must be int32, got {}", dtype_name(input_dtype(n, 4)));
  const RnnDims r = rnn_dims(n, cell);
  activation_params(n, cell, r.dirs); // validates the activation attributes
  const std::vector<int64_t> state = r.layout ? std::vector<int64_t>{r.batch, r.dirs, r.hidden}
                                              : std::vector<int64_t>{r.dirs, r.batch, r.hidden};
  set_output(n, 0, dt,
             r.layout ? std::vector<int64_t>{r.batch, r.seq, r.dirs, r.hidden}
                      : std::vector<int64_t>{r.seq, r.dirs, r.batch, r.hidden});
  set_output(n, 1, dt, state);
  set_output(n, 2, dt, state);
}

/// Replaces call's slot `slot` (the constant input of that index, float, one matrix per
/// direction) by a derived constant of `dirs` blocks of `stride` floats, zero-filled, block d
/// written by pack(dst, source matrix d). `layout` names the packing in the cache key.
template <typename Pack>
void derive_per_direction(const Node &n, size_t slot, const char *layout, int64_t dirs,
                          int64_t stride, KernelCall &call, Pack pack) {
  const Tensor &src = *n.inputs[slot]->constant;
  const int64_t per_dir = src.numel() / (dirs > 0 ? dirs : 1);
  TensorPtr packed = derived_tensor(
      fmt::format("{}:{}:{},{}", static_cast<const void *>(&src), layout, dirs, stride), [&] {
        auto t = std::make_shared<Tensor>(src.dtype(), std::vector<int64_t>{dirs * stride});
        float *dst = t->data_as<float>();
        std::fill(dst, dst + dirs * stride, 0.0f);
        for (int64_t d = 0; d < dirs; ++d)
          pack(dst + d * stride, src.data_as<float>() + d * per_dir);
        return t;
      });
  call.derived.push_back({slot, std::move(packed), n.inputs[slot]->name + "." + layout});
  call.args[slot] = nullptr;
}

/// The fused LSTM's constant W and R packed at compile time (the pack-weights pass marked the
/// node): W^T in GEMM panels (sub-panels for the node's tile height) per direction when the input
/// projection has enough rows to use them, R^T by units per direction; sets kPackedW / kPackedR in
/// params.
void pre_pack_lstm(const Node &n, std::vector<int64_t> &params, KernelCall &call) {
  namespace R = onnxc_rnn;
  constexpr int64_t nr = onnxc_k::gemm::panel_width(sizeof(float));
  const int64_t dirs = params[R::kDirs], H = params[R::kHidden], I = params[R::kInput];
  const int64_t gh = 4 * H;
  if (params[R::kSeq] * params[R::kBatch] > R::kSmallM) {
    derive_per_direction(n, 1, "lstm_w", dirs, R::packed_w_stride(params.data(), nr), call,
                         [&](float *dst, const float *w) {
                           onnxc_k::gemm::pack_b(
                               dst, w, I, gh, 1, I,
                               onnxc_k::gemm::b_slice_width(params[R::kTileRows], sizeof(float)));
                         });
    params[R::kPackedW] = 1;
  }
  derive_per_direction(n, 2, "lstm_r", dirs, R::packed_r_stride(params.data()), call,
                       [&](float *dst, const float *r) {
                         R::pack_units(dst, r, H, 0, (H + R::kUnitBlock - 1) / R::kUnitBlock);
                       });
  params[R::kPackedR] = 1;
}

KernelCall lower_rnn(const Node &n, Cell cell) {
  namespace R = onnxc_rnn;
  const RnnDims r = rnn_dims(n, cell);
  std::vector<int64_t> params(R::kNumParams, 0);
  params[R::kCell] = cell, params[R::kSeq] = r.seq, params[R::kBatch] = r.batch;
  params[R::kInput] = r.input, params[R::kHidden] = r.hidden, params[R::kDirs] = r.dirs;
  params[R::kReverse] = r.reverse, params[R::kLayout] = r.layout;
  params[R::kLinearBeforeReset] = cell == R::kGru && attr_int(n, "linear_before_reset", 0) != 0;
  params[R::kInputForget] = cell == R::kLstm && attr_int(n, "input_forget", 0) != 0;
  params[R::kHasClip] = has_attr(n, "clip");
  params[R::kClip] = param_f64(attr_float(n, "clip", 0.0f));
  params[R::kTileRows] = attr_int(n, kGemmTileRowsAttr, 0);
  std::vector<int64_t> acts = activation_params(n, cell, r.dirs);
  std::copy(acts.begin(), acts.end(), params.begin() + R::kActs);

  const DType dt = input_dtype(n, 0);
  KernelCall call;
  call.kernel = kernel_name(n, "recurrent", dt);
  for (size_t i = 0; i < 8; ++i)
    call.args.push_back(n.input(i));
  for (size_t i = 0; i < 3; ++i)
    call.args.push_back(output_used(n, i) ? n.outputs[i] : nullptr);
  const int64_t elem = dtype_bits(dt) / 8;
  if (dt == DType::Float && attr_int(n, kPackWeightsAttr, 0) != 0 &&
      R::lstm_fused(params.data(), elem))
    pre_pack_lstm(n, params, call);
  call.params = params;
  call.scratch_bytes =
      R::scratch_layout(params.data(), elem, onnxc_k::gemm::panel_width(elem)).total * elem;
  return call;
}

OpDef recurrent_def(const char *name, Cell cell) {
  OpDef d;
  d.name = name;
  d.attrs = {{"activation_alpha", Attribute::Kind::Floats},
             {"activation_beta", Attribute::Kind::Floats},
             {"activations", Attribute::Kind::Strings},
             {"clip", Attribute::Kind::Float},
             {"direction", Attribute::Kind::String},
             {"hidden_size", Attribute::Kind::Int},
             {"layout", Attribute::Kind::Int},
             {"output_sequence", Attribute::Kind::Int}};
  if (cell == onnxc_rnn::kLstm)
    d.attrs.push_back({"input_forget", Attribute::Kind::Int});
  if (cell == onnxc_rnn::kGru)
    d.attrs.push_back({"linear_before_reset", Attribute::Kind::Int});
  d.infer = [cell](Node &n) { infer_rnn(n, cell); };
  d.lower = [cell](const Node &n) { return lower_rnn(n, cell); };
  return d;
}

} // namespace

const OpDef &op_LSTM() {
  static const OpDef def = recurrent_def("LSTM", onnxc_rnn::kLstm);
  return def;
}

const OpDef &op_GRU() {
  static const OpDef def = recurrent_def("GRU", onnxc_rnn::kGru);
  return def;
}

const OpDef &op_RNN() {
  static const OpDef def = recurrent_def("RNN", onnxc_rnn::kRnn);
  return def;
}

} // namespace onnxc
