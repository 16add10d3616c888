#include "compiler/passes/fold_batchnorm.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/fusion_util.h"

#include <cmath>

namespace onnxc {
namespace {

/// Per-channel y' = y * s + t, to be folded into the producer's weights.
struct ChannelAffine {
  std::vector<double> s, t;
};

bool all_finite(const std::vector<double> &v) {
  for (double x : v)
    if (!std::isfinite(x))
      return false;
  return true;
}

/// The affine map of an inference BatchNormalization with constant parameters on `x`.
std::optional<ChannelAffine> batchnorm_affine(const Node &bn, const Value *x) {
  if (!is_op(bn, "BatchNormalization") || bn.input(0) != x || bn.inputs.size() < 5 ||
      attr_int(bn, "training_mode", 0) != 0)
    return std::nullopt;
  for (size_t i = 1; i < bn.outputs.size(); ++i)
    if (bn.outputs[i] && (!bn.outputs[i]->uses.empty() || bn.outputs[i]->is_graph_output))
      return std::nullopt;
  for (size_t i = 1; i < 5; ++i)
    if (!bn.input(i) || !bn.input(i)->constant)
      return std::nullopt;
  const double eps = attr_float(bn, "epsilon", 1e-5f);
  std::vector<double> scale = to_doubles(*bn.inputs[1]->constant),
                      beta = to_doubles(*bn.inputs[2]->constant),
                      mean = to_doubles(*bn.inputs[3]->constant),
                      var = to_doubles(*bn.inputs[4]->constant);
  ChannelAffine a;
  for (size_t m = 0; m < scale.size(); ++m) {
    a.s.push_back(scale[m] / std::sqrt(var[m] + eps));
    a.t.push_back(beta[m] - mean[m] * a.s[m]);
  }
  if (!all_finite(a.s) || !all_finite(a.t))
    return std::nullopt;
  return a;
}

/// The affine map of Mul/Add of `x` by a constant scalar or per-channel tensor.
std::optional<ChannelAffine> mul_add_affine(const Node &n, const Value *x) {
  const bool mul = is_op(n, "Mul"), add = is_op(n, "Add");
  if ((!mul && !add) || n.inputs.size() != 2 || n.outputs[0]->type.shape != x->type.shape)
    return std::nullopt;
  const Value *c = n.inputs[0] == x ? n.inputs[1] : n.inputs[0];
  if (c == x || !c->constant || c->type.dtype != x->type.dtype)
    return std::nullopt;
  auto v = per_channel_values(*c->constant, dims_or_unknown(x->type));
  if (!v || !all_finite(*v))
    return std::nullopt;
  ChannelAffine a;
  a.s.assign(v->size(), 1.0);
  a.t.assign(v->size(), 0.0);
  (mul ? a.s : a.t) = *v;
  return a;
}

/// What `user` does to `x` per channel, if it is a foldable BatchNormalization, Mul or Add.
std::optional<ChannelAffine> affine_of(const Node &user, const Value *x, bool conv) {
  if (auto a = batchnorm_affine(user, x))
    return a;
  if (conv)
    return mul_add_affine(user, x);
  return std::nullopt;
}

/// Conv with constant W and B (or none) whose element type we fold in.
bool foldable_conv(const Node &n) {
  const DType dt = n.outputs[0]->type.dtype;
  return is_op(n, "Conv") && n.input(1) && n.input(1)->constant &&
         (!n.input(2) || n.input(2)->constant) && (dt == DType::Float || dt == DType::Double);
}

/// W' = W * s[m] (m: W's first axis), B' = B * s + t.
void fold_into_conv(Graph &g, Node &conv, const ChannelAffine &a) {
  const Tensor &wt = *conv.inputs[1]->constant;
  std::vector<double> w = to_doubles(wt);
  const size_t M = a.s.size(), per = w.size() / M;
  for (size_t i = 0; i < w.size(); ++i)
    w[i] *= a.s[i / per];
  std::vector<double> b =
      conv.input(2) ? to_doubles(*conv.inputs[2]->constant) : std::vector<double>(M, 0.0);
  for (size_t m = 0; m < M; ++m)
    b[m] = b[m] * a.s[m] + a.t[m];
  const DType dt = wt.dtype();
  set_constant_input(g, conv, 1, make_float_tensor(dt, wt.shape(), w));
  set_constant_input(g, conv, 2, make_float_tensor(dt, {int64_t(M)}, b));
}

/// Gemm with constant B, constant C of at most one value per column (or none), opset >= 7.
bool foldable_gemm(const Node &n) {
  const DType dt = n.outputs[0]->type.dtype;
  if (!is_op(n, "Gemm") || n.opset < 7 || !n.input(1) || !n.input(1)->constant ||
      (dt != DType::Float && dt != DType::Double))
    return false;
  if (!n.input(2))
    return true;
  const Value *c = n.input(2);
  if (!c->constant || c->type.dtype != dt)
    return false;
  const auto &cs = c->constant->shape();
  return cs.size() < 2 || cs[0] == 1;
}

/// B' columns scaled by s; C' = s * (beta * C - 0) + t with beta folded in (beta := 1).
void fold_into_gemm(Graph &g, Node &gemm, const ChannelAffine &a) {
  const Tensor &bt = *gemm.inputs[1]->constant;
  const bool tb = attr_int(gemm, "transB", 0) != 0;
  const size_t N = a.s.size();
  std::vector<double> b = to_doubles(bt);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] *= a.s[tb ? i / (b.size() / N) : i % N];
  const double beta = attr_float(gemm, "beta", 1.0f);
  std::vector<double> c(N, 0.0);
  if (gemm.input(2)) {
    std::vector<double> cv = to_doubles(*gemm.inputs[2]->constant);
    for (size_t n = 0; n < N; ++n)
      c[n] = beta * cv[cv.size() == 1 ? 0 : n];
  }
  for (size_t n = 0; n < N; ++n)
    c[n] = c[n] * a.s[n] + a.t[n];
  const DType dt = bt.dtype();
  set_constant_input(g, gemm, 1, make_float_tensor(dt, bt.shape(), b));
  set_constant_input(g, gemm, 2, make_float_tensor(dt, {int64_t(N)}, c));
  Attribute one;
  one.kind = Attribute::Kind::Float;
  one.f = 1.0f;
  gemm.attrs["beta"] = one;
}

} // namespace

int fold_batchnorm(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (auto &np : g.nodes) {
    Node &n = *np;
    const bool conv = foldable_conv(n);
    if (!conv && !foldable_gemm(n)) // (absorbed nodes are never Conv/Gemm)
      continue;
    // Absorb a chain such as Conv → BatchNormalization → Mul → Add one node at a time.
    while (Node *user = sole_user(n.outputs[0])) {
      auto a = affine_of(*user, n.outputs[0], conv);
      if (!a || a->s.size() != static_cast<size_t>(dims_or_unknown(n.outputs[0]->type).at(1)))
        break;
      if (conv)
        fold_into_conv(g, n, *a);
      else
        fold_into_gemm(g, n, *a);
      take_over_output(n, *user);
      dead.insert(user);
    }
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
