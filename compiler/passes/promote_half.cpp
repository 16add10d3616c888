#include "compiler/passes/promote_half.h"
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/registry.h"

namespace onnxc {
namespace {

bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

/// The opset the inserted Casts are created for (any version Cast supports; `saturate` exists
/// from 19 but only matters for float8).
constexpr int64_t kCastOpset = 19;

} // namespace

bool has_half_input(const Node &n) {
  for (const Value *v : n.inputs)
    if (v && is_half(v->type.dtype))
      return true;
  return false;
}

bool half_is_native(const Node &n) {
  bool all_constant = true;
  for (const Value *o : n.outputs)
    if (o && !o->constant)
      all_constant = false;
  if (all_constant)
    return true;
  return native_kernel_exists(n.def->lower(n).kernel);
}

Node *HalfPromoter::insert_cast(size_t at, Value *in, DType to, const Node &for_node) {
  Node *c = g_.add_node("Cast", {in}, 1);
  c->def = find_op("", "Cast");
  c->opset = kCastOpset;
  c->index = for_node.index;
  c->name = for_node.name + (to == DType::Float ? "/to_float" : "/from_float");
  c->attrs["to"].kind = Attribute::Kind::Int;
  c->attrs["to"].i = static_cast<int64_t>(to);
  c->attrs[kHalfPromotionAttr].kind = Attribute::Kind::Int;
  c->attrs[kHalfPromotionAttr].i = 1;
  std::unique_ptr<Node> owned = std::move(g_.nodes.back());
  g_.nodes.pop_back();
  g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(at), std::move(owned));
  changed_ = true;
  return c;
}

size_t HalfPromoter::promote_to_float(size_t k, const InferFn &infer) {
  Node *n = g_.nodes[k].get();
  DType half = DType::Undefined;
  for (const Value *v : n->inputs)
    if (v && is_half(v->type.dtype) && half == DType::Undefined)
      half = v->type.dtype;
  size_t at = k;
  for (size_t i = 0; i < n->inputs.size(); ++i) {
    Value *v = n->inputs[i];
    if (!v || !is_half(v->type.dtype))
      continue;
    auto it = as_float_.find(v);
    if (it == as_float_.end()) {
      Node *c = insert_cast(at++, v, DType::Float, *n);
      infer(*c);
      it = as_float_.emplace(v, c->outputs[0]).first;
    }
    g_.set_input(n, i, it->second);
  }
  infer(*n);
  size_t pos = at; // n's index now
  for (size_t j = 0; j < n->outputs.size(); ++j) {
    Value *o = n->outputs[j];
    if (!o || o->type.dtype != DType::Float)
      continue;
    // n now produces a new float value; the original value o is the Cast's output.
    Value *f = g_.add_value(g_.unique_name(o->name + ".float"), o->type);
    f->producer = n;
    f->producer_index = static_cast<int>(j);
    f->constant = std::move(o->constant);
    f->run_time_shape_from = o->run_time_shape_from; // a shape the run decides stays one:
    f->run_time_shape_trace = o->run_time_shape_trace; // the Cast back follows f
    f->run_time_shape_root = o->run_time_shape_root;
    f->run_time_bounded = o->run_time_bounded;
    n->outputs[j] = f;
    Node *c = insert_cast(++pos, f, half, *n);
    c->outputs[0]->producer = nullptr; // the fresh output is dropped by finish()
    c->outputs[0] = o;
    o->producer = c;
    o->producer_index = 0;
    infer(*c);
  }
  return pos;
}

void HalfPromoter::finish() {
  if (changed_)
    g_.erase_unused_values();
}

int fuse_half_casts(Graph &g) {
  int bypassed = 0;
  for (auto &node : g.nodes) {
    if (node->op_type != "Cast" || !node->attr(kHalfPromotionAttr))
      continue;
    Value *out = node->outputs[0], *in = node->inputs[0];
    const Node *p = in->producer;
    if (out->type.dtype != DType::Float || !p || p->op_type != "Cast" ||
        !p->attr(kHalfPromotionAttr) || p->inputs[0]->type.dtype != DType::Float)
      continue;
    g.replace_all_uses_with(out, p->inputs[0]);
    ++bypassed;
  }
  return bypassed;
}

} // namespace onnxc
