#include "compiler/passes/fuse_channel_scale.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/passes/fusion_util.h"

#include <utility>

namespace onnxc {
namespace {

/// Whether n is a Conv that can take an input scale: float, 1x1 window, stride 1, no padding,
/// one group, batch 1, constant W, static shapes, no input scale yet.
bool scalable_conv(const Node &n) {
  if (!is_op(n, "Conv") || n.outputs.size() != 1 || n.inputs.size() < 2 || n.inputs.size() > 4 ||
      !n.inputs[0] || !n.inputs[1] || !n.inputs[1]->constant || n.attr(kInScaleAttr))
    return false;
  const Type &x = n.inputs[0]->type, &w = n.inputs[1]->type;
  if (x.dtype != DType::Float || !x.is_static() || !w.is_static() || x.rank() < 3 ||
      x.static_dims()[0] != 1 || attr_int(n, "group", 1) != 1)
    return false;
  const std::vector<int64_t> wd = w.static_dims(), xd = x.static_dims();
  for (size_t d = 2; d < wd.size(); ++d)
    if (wd[d] != 1)
      return false;
  /* Scaling W costs M x C products per run (W read and written, then read by the GEMM), the
     Mul C x plane: fold only where the plane has at least twice as many pixels as the conv
     has output channels (efficientnet_style's projections down to 80 channels at 14x14; the
     112 and 192 of 14x14 and 7x7 planes were slower folded: W's copy outweighed the Mul). */
  int64_t plane = 1;
  for (size_t d = 2; d < xd.size(); ++d)
    plane *= xd[d];
  if (2 * wd[0] > plane)
    return false;
  for (int64_t s : attr_ints(n, "strides"))
    if (s != 1)
      return false;
  for (int64_t p : attr_ints(n, "pads"))
    if (p != 0)
      return false;
  const Attribute *ap = n.attr("auto_pad");
  return !ap || ap->s.empty() || ap->s == "NOTSET" || ap->s == "VALID";
}

/// Whether s has the shape 1 x C x 1 x ... (one value per channel of x, batch 1).
bool channel_scale_of(const Value *s, const Value *x) {
  if (!s || s->constant || s->type.dtype != DType::Float || !s->type.is_static())
    return false;
  const std::vector<int64_t> sd = s->type.static_dims(), xd = x->type.static_dims();
  if (sd.size() != xd.size() || sd[0] != 1 || sd[1] != xd[1])
    return false;
  for (size_t d = 2; d < sd.size(); ++d)
    if (sd[d] != 1)
      return false;
  return true;
}

} // namespace

int fuse_channel_scale(Graph &g) {
  std::unordered_set<const Node *> dead;
  for (auto &np : g.nodes) {
    Node &n = *np;
    if (!scalable_conv(n))
      continue;
    Value *in = n.inputs[0];
    Node *mul = in->producer;
    if (!mul || dead.count(mul) || !is_op(*mul, "Mul") || mul->inputs.size() != 2 ||
        mul->outputs.size() != 1 || sole_user(in) != &n)
      continue;
    // the operand of the Conv input's type and shape, and the other one the channel scale
    auto is_x = [in](const Value *v) {
      return v && v->type.is_static() && v->type.dtype == DType::Float &&
             v->type.static_dims() == in->type.static_dims();
    };
    Value *x = mul->inputs[0], *s = mul->inputs[1];
    if (!is_x(x) || !channel_scale_of(s, in))
      std::swap(x, s);
    if (!is_x(x) || !channel_scale_of(s, in))
      continue;
    g.set_input(&n, 0, x);
    g.set_input(&n, 4, s); // (input 3 stays: the residual, or empty)
    Attribute one;
    one.kind = Attribute::Kind::Int;
    one.i = 1;
    n.attrs[kInScaleAttr] = one;
    record_fused(n, *mul);
    dead.insert(mul);
  }
  erase_fused(g, dead);
  return static_cast<int>(dead.size());
}

} // namespace onnxc
