#include "compiler/passes/infer_shapes.h"
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/strings/string_util.h"
#include "compiler/ops/sym_util.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/promote_half.h"

#include <memory>
#include <optional>

namespace onnxc {
namespace {

bool all_inputs_constant(const Node &n) {
  for (const Value *v : n.inputs)
    if (v && !v->constant)
      return false;
  return true;
}

bool all_outputs_static(const Node &n) {
  for (const Value *o : n.outputs)
    if (o && !o->type.is_static())
      return false;
  return true;
}

int64_t output_bytes(const Node &n) {
  int64_t total = 0;
  for (const Value *o : n.outputs)
    total += o ? type_bytes(o->type) : 0;
  return total;
}

void propagate_constant(Node &n, const InferOptions &opts) {
  if (has_symbolic_input(n) || !all_outputs_static(n)) { // no values to fold: expressions
    infer_sym_value(n);
    return;
  }
  bool inputs_known = !n.def->reads_input_values || all_inputs_constant(n);
  if (!n.def->foldable || !inputs_known || output_bytes(n) > opts.max_folded_bytes) {
    infer_sym_value(n);
    return;
  }
  std::vector<const Tensor *> ins;
  for (const Value *v : n.inputs)
    ins.push_back(v ? v->constant.get() : nullptr);
  std::vector<Tensor> outs = evaluate_node(n, ins);
  for (size_t i = 0; i < n.outputs.size() && i < outs.size(); ++i) {
    n.outputs[i]->type = Type::of(outs[i].dtype(), outs[i].shape());
    n.outputs[i]->constant = std::make_shared<Tensor>(std::move(outs[i]));
  }
}

/// Output types of n with input 0's dim 0 set to `batch` (the other inputs' dims are static).
std::vector<Type> infer_at_batch(Node &n, int64_t batch) {
  Dim &d0 = (*n.inputs[0]->type.shape)[0];
  const Dim saved = d0;
  d0 = Dim(batch);
  try {
    n.def->infer(n);
  } catch (...) {
    d0 = saved;
    throw;
  }
  d0 = saved;
  std::vector<Type> out;
  for (const Value *o : n.outputs)
    out.push_back(o ? o->type : Type{});
  return out;
}

/// A batch-transparent op (OpDef::batch_transparent) whose one symbolic dim is input 0's dim 0:
/// runs its static shape rule at batch 2 and 3; an output dim 0 that follows becomes the
/// symbolic batch. False if the op or its inputs do not qualify.
bool infer_symbolic_batch(Node &n) {
  if (!n.def->batch_transparent || !n.input(0) || n.inputs[0]->type.rank() < 1)
    return false;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.inputs[i] && !n.inputs[i]->type.is_static()) {
      const auto &dims = *n.inputs[i]->type.shape;
      if (i != 0 || !dims[0].is_known())
        return false;
      for (size_t k = 1; k < dims.size(); ++k)
        if (!dims[k].is_static())
          return false;
    }
  const Dim batch = (*n.inputs[0]->type.shape)[0];
  std::vector<Type> at2 = infer_at_batch(n, 2), at3 = infer_at_batch(n, 3);
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (!n.outputs[i] || !at2[i].is_static())
      continue;
    std::vector<int64_t> a = at2[i].static_dims(), b = at3[i].static_dims();
    bool follows = !a.empty() && a[0] == 2 && b[0] == 3;
    if (follows)
      a[0] = b[0];
    if (a != b)
      node_fail(n, "output {} does not follow the symbolic batch '{}' of input 0 ({} at batch 2, "
                   "{} at batch 3); bind it with --dim",
                i, batch.str(), shape_to_string(at2[i]), shape_to_string(at3[i]));
    Type t = at2[i];
    (*t.shape)[0] = follows ? batch : Dim(a[0]);
    n.outputs[i]->type = t;
  }
  return true;
}

void infer_node(Node &n, const InferOptions &opts) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value *v = n.inputs[i];
    if (v && v->type.dtype == DType::Undefined)
      node_fail(n, "the type of input '{}' is unknown", v->name);
  }
  if (is_control_flow(n))
    infer_control_flow(n, opts);
  else if (!has_symbolic_input(n) || !infer_symbolic_batch(n))
    n.def->infer(n);
  for (const Value *o : n.outputs)
    if (o && o->type.dtype == DType::String && !op_makes_strings(n))
      node_fail(n, "{} does not support string tensors", n.op_type);
  for (const Value *o : n.outputs)
    if (o && !o->uses.empty() && (o->type.dtype == DType::Undefined || !o->type.is_known()))
      node_fail(n, "could not infer the shape of output '{}'", o->name);
  if (opts.propagate_constants)
    propagate_constant(n, opts);
}

/// Infers nodes[k]; one with float16/bfloat16 inputs and no half kernel is computed in float
/// (promote_half.h). Returns the index of the last node now standing for it.
size_t infer_at(Graph &g, size_t k, const InferOptions &opts, HalfPromoter &promoter) {
  Node &n = *g.nodes[k];
  if (!has_half_input(n)) {
    infer_node(n, opts);
    return k;
  }
  std::optional<Error> native_error;
  try {
    infer_node(n, opts);
    if (half_is_native(n))
      return k;
  } catch (const Error &e) {
    native_error = e;
  }
  try {
    return promoter.promote_to_float(k, [&](Node &m) { infer_node(m, opts); });
  } catch (const Error &e) {
    if (!native_error)
      throw;
    // Both failed: the half error first, then why the float fallback failed too.
    std::string in_float = e.what(), prefix = n.describe() + ": ";
    if (in_float.rfind(prefix, 0) == 0)
      in_float.erase(0, prefix.size());
    throw Error(fmt::format("{}; computed in float instead: {}", native_error->what(), in_float));
  }
}

} // namespace

void infer_shapes(Graph &g, const InferOptions &opts) {
  HalfPromoter promoter(g);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    Node *n = g.nodes[k].get();
    try {
      // An If on a constant: its branch's nodes (at least one Identity per output) take its
      // place and are inferred next.
      while (opts.propagate_constants && inline_constant_if(g, k))
        n = g.nodes[k].get();
      k = infer_at(g, k, opts, promoter);
    } catch (const Error &e) {
      std::string msg = e.what();
      if (msg.rfind(n->describe(), 0) != 0)
        msg = n->describe() + ": " + msg;
      throw Error(msg);
    }
  }
  promoter.finish();
  for (const Value *o : g.outputs)
    if (o->type.dtype == DType::Undefined || !o->type.is_known())
      fail("could not infer the shape of graph output '{}'", o->name);
}

} // namespace onnxc
