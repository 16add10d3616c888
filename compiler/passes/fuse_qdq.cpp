#include "compiler/passes/fuse_qdq.h"

#include "compiler/ops/op_util.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/fusion_util.h"

#include <cmath>
#include <optional>

namespace onnxc {
namespace {

bool is_int8(DType t) { return t == DType::Uint8 || t == DType::Int8; }

/// A constant 8-bit quantisation: the quantised value, its float scale and zero point.
struct QInput {
  Value *q = nullptr, *scale = nullptr, *zp = nullptr;
  std::vector<float> scales; ///< the scale's values
};

/// `v` = DequantizeLinear(q, scale, zp) with constant float scale (and zp), 8-bit q, no blocks,
/// and the scale per tensor or along `axis` of q (rank `rank`, dim `count`); axis < 0: per
/// tensor only.
std::optional<QInput> dequantized(const Value *v, int64_t axis, int64_t count) {
  const Node *dq = v ? v->producer : nullptr;
  if (!dq || !is_op(*dq, "DequantizeLinear") || v->type.dtype != DType::Float)
    return std::nullopt;
  Value *q = dq->input(0), *s = dq->input(1), *z = dq->input(2);
  if (!q || !s || !s->constant || (z && !z->constant) || !is_int8(q->type.dtype) ||
      s->type.dtype != DType::Float || attr_int(*dq, "block_size", 0) != 0)
    return std::nullopt;
  const int64_t n = s->constant->numel();
  if (n != 1) {
    const int64_t rank = q->type.rank();
    int64_t ax = attr_int(*dq, "axis", 1);
    ax = ax < 0 ? ax + rank : ax;
    if (axis < 0 || ax != axis || n != count || s->constant->rank() != 1)
      return std::nullopt;
  }
  QInput r{q, s, z, {}};
  r.scales.assign(s->constant->data_as<float>(), s->constant->data_as<float>() + n);
  return r;
}

/// `v` used once, by a QuantizeLinear to 8 bits with constant per-tensor float scale and zp.
Node *quantized_by(Value *v) {
  Node *q = sole_user(v);
  if (!q || !is_op(*q, "QuantizeLinear") || v->uses[0].index != 0)
    return nullptr;
  Value *s = q->input(1), *z = q->input(2);
  if (!s || !s->constant || s->constant->numel() != 1 || s->type.dtype != DType::Float ||
      (z && (!z->constant || z->constant->numel() != 1)) || !is_int8(q->outputs[0]->type.dtype))
    return nullptr;
  return q;
}

/// Q's zero point, or a new constant 0 of its output type.
Value *y_zero_point(Graph &g, Node *q) {
  if (q->input(2))
    return q->input(2);
  auto t = std::make_shared<Tensor>(q->outputs[0]->type.dtype, std::vector<int64_t>{});
  return g.add_constant(g.unique_name(q->outputs[0]->name + "_zero_point"), t);
}

/// Rewrites Q in place into `op` of `domain` with `inputs` (and `attrs`), re-running its shape
/// rule.
void rewrite(Graph &g, Node *q, const char *op, const std::vector<Value *> &inputs,
             const std::map<std::string, Attribute> &attrs, const char *domain = "") {
  for (size_t i = 0; i < inputs.size(); ++i)
    g.set_input(q, i, inputs[i]);
  q->op_type = op;
  q->domain = domain;
  if (*domain)
    q->opset = 1;
  q->def = find_op(domain, op);
  q->attrs = attrs;
  q->def->infer(*q);
}

/// A float bias of M elements (times `mul`) as int32 with scale x_scale * w_scale[m] (times
/// `div`); nullptr if it is not constant or does not fit.
Value *int_bias(Graph &g, const Value *b, const QInput &x, const QInput &w, int64_t M,
                double mul = 1, double div = 1) {
  if (!b || !b->constant || b->type.dtype != DType::Float || b->constant->numel() != M ||
      b->type.static_dims().back() != M)
    return nullptr;
  auto t = std::make_shared<Tensor>(DType::Int32, std::vector<int64_t>{M});
  for (int64_t m = 0; m < M; ++m) {
    const double s = double(x.scales[0]) * w.scales[w.scales.size() == 1 ? 0 : m] * div;
    const double v = std::nearbyint(mul * b->constant->data_as<float>()[m] / s);
    if (!(std::abs(v) < 2147483647.0) || s == 0)
      return nullptr;
    t->data_as<int32_t>()[m] = static_cast<int32_t>(v);
  }
  return g.add_constant(g.unique_name(b->name + "_int32"), t);
}

bool fuse_conv(Graph &g, Node &conv) {
  Value *y = conv.outputs[0];
  const std::vector<int64_t> wd =
      conv.input(1) ? dims_or_unknown(conv.input(1)->type) : std::vector<int64_t>{};
  if (wd.size() < 3 || wd.size() > 5)
    return false;
  auto x = dequantized(conv.input(0), -1, 1);
  auto w = dequantized(conv.input(1), 0, wd[0]);
  Node *q = quantized_by(y);
  if (!x || !w || !q || !w->q->constant)
    return false;
  Value *bias = nullptr;
  if (conv.input(2) && !(bias = int_bias(g, conv.input(2), *x, *w, wd[0])))
    return false;
  rewrite(g, q, "QLinearConv",
          {x->q, x->scale, x->zp, w->q, w->scale, w->zp, q->input(1), y_zero_point(g, q), bias},
          conv.attrs);
  return true;
}

bool fuse_matmul(Graph &g, Node &mm) {
  Value *y = mm.outputs[0];
  const std::vector<int64_t> bd =
      mm.input(1) ? dims_or_unknown(mm.input(1)->type) : std::vector<int64_t>{};
  if (bd.size() < 2)
    return false;
  auto a = dequantized(mm.input(0), -1, 1);
  auto b = dequantized(mm.input(1), static_cast<int64_t>(bd.size()) - 1, bd.back());
  Node *q = quantized_by(y);
  if (!a || !b || !q || (b->scales.size() > 1 && bd.size() != 2))
    return false;
  rewrite(g, q, "QLinearMatMul",
          {a->q, a->scale, a->zp, b->q, b->scale, b->zp, q->input(1), y_zero_point(g, q)}, {});
  return true;
}

/// Gemm (transA = 0, bias of N elements) -> com.microsoft QGemm.
bool fuse_gemm(Graph &g, Node &gemm) {
  Value *y = gemm.outputs[0];
  const bool tb = attr_int(gemm, "transB", 0) != 0;
  const std::vector<int64_t> bd =
      gemm.input(1) ? dims_or_unknown(gemm.input(1)->type) : std::vector<int64_t>{};
  if (attr_int(gemm, "transA", 0) != 0 || bd.size() != 2)
    return false;
  const int64_t N = tb ? bd[0] : bd[1];
  auto a = dequantized(gemm.input(0), -1, 1);
  auto b = dequantized(gemm.input(1), tb ? 0 : 1, N);
  Node *q = quantized_by(y);
  if (!a || !b || !q)
    return false;
  const float alpha = attr_float(gemm, "alpha", 1.0f), beta = attr_float(gemm, "beta", 1.0f);
  Value *bias = nullptr;
  if (gemm.input(2) && !(bias = int_bias(g, gemm.input(2), *a, *b, N, beta, alpha)))
    return false;
  std::map<std::string, Attribute> attrs;
  attrs["alpha"].kind = Attribute::Kind::Float;
  attrs["alpha"].f = alpha;
  attrs["transB"].kind = Attribute::Kind::Int;
  attrs["transB"].i = tb;
  rewrite(g, q, "QGemm",
          {a->q, a->scale, a->zp, b->q, b->scale, b->zp, bias, q->input(1), y_zero_point(g, q)},
          attrs, "com.microsoft");
  return true;
}

} // namespace

int fuse_qdq(Graph &g) {
  int fused = 0;
  std::vector<Node *> candidates;
  for (auto &n : g.nodes)
    if (n->domain.empty() &&
        (n->op_type == "Conv" || n->op_type == "MatMul" || n->op_type == "Gemm"))
      candidates.push_back(n.get());
  for (Node *n : candidates)
    fused += n->op_type == "Conv"     ? fuse_conv(g, *n)
             : n->op_type == "MatMul" ? fuse_matmul(g, *n)
                                      : fuse_gemm(g, *n);
  return fused;
}

} // namespace onnxc
