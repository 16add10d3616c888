#include "compiler/passes/infer_shapes.h"
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"
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

void infer_node(Node &n, const InferOptions &opts) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value *v = n.inputs[i];
    if (v && v->type.dtype == DType::Undefined)
      node_fail(n, "the type of input '{}' is unknown", v->name);
  }
  if (is_control_flow(n))
    infer_control_flow(n, opts);
  else
    n.def->infer(n);
  for (const Value *o : n.outputs)
    if (o && o->type.dtype == DType::String)
      node_fail(n, "string tensors are not supported by compiled models");
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
