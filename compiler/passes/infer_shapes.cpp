#include "compiler/passes/infer_shapes.h"
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/strings/string_util.h"
#include "compiler/ops/sym_util.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/expand_ops.h"
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

/// The symbolic dim every symbolic input dim of n is, if they are all that one dim at dim 0 of
/// their inputs (a batch); nullopt otherwise.
std::optional<Dim> leading_batch(const Node &n) {
  std::optional<Dim> batch;
  for (const Value *v : n.inputs) {
    if (!v || v->type.is_static())
      continue;
    if (!v->type.has_shape())
      return std::nullopt;
    const auto &dims = *v->type.shape;
    if (!dims[0].is_known() || (batch && !(dims[0] == *batch)))
      return std::nullopt;
    for (size_t k = 1; k < dims.size(); ++k)
      if (!dims[k].is_static())
        return std::nullopt;
    batch = dims[0];
  }
  return batch;
}

/// Output types of n with every input dim 0 that is `sym` set to `value`.
std::vector<Type> infer_at_batch(Node &n, const Dim &sym, int64_t value) {
  std::vector<Dim *> dims;
  for (Value *v : n.inputs)
    if (v && v->type.has_shape() && !v->type.shape->empty() && (*v->type.shape)[0] == sym)
      dims.push_back(&(*v->type.shape)[0]);
  for (Dim *d : dims)
    *d = Dim(value);
  try {
    n.def->infer(n);
  } catch (...) {
    for (Dim *d : dims)
      *d = sym;
    throw;
  }
  for (Dim *d : dims)
    *d = sym;
  std::vector<Type> out;
  for (const Value *o : n.outputs)
    out.push_back(o ? o->type : Type{});
  return out;
}

/// An op whose symbolic input dims are one batch at dim 0 (leading_batch): runs its static
/// shape rule at several batch sizes; an output whose dim 0 follows the batch (and whose other
/// dims stay put) gets the symbolic batch, one that does not change stays static. False if the
/// inputs do not qualify; an Error if an output depends on the batch otherwise.
bool infer_symbolic_batch(Node &n) {
  std::optional<Dim> batch = leading_batch(n);
  if (!batch)
    return false;
  static constexpr int64_t kProbes[] = {2, 3, 5, 17, 64};
  std::vector<std::vector<Type>> at;
  for (int64_t b : kProbes)
    at.push_back(infer_at_batch(n, *batch, b));
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (!n.outputs[i] || !at[0][i].is_static())
      continue;
    std::vector<int64_t> first = at[0][i].static_dims();
    bool follows = !first.empty(), same = true;
    for (size_t p = 0; p < at.size(); ++p) {
      std::vector<int64_t> d = at[p][i].is_static() ? at[p][i].static_dims() : std::vector<int64_t>{};
      follows = follows && d.size() == first.size() && d[0] == kProbes[p] &&
                std::equal(d.begin() + 1, d.end(), first.begin() + 1);
      same = same && d == first;
    }
    if (!follows && !same)
      node_fail(n, "output {} does not follow the symbolic batch '{}' ({} at batch 2, {} at "
                   "batch 3); bind it with --dim",
                i, batch->str(), shape_to_string(at[0][i]), shape_to_string(at[1][i]));
    Type t = at[0][i];
    if (follows)
      (*t.shape)[0] = *batch;
    n.outputs[i]->type = t;
  }
  return true;
}

/// Shape rule of n: the op's own; for a batch-transparent op, or an op whose rule needs static
/// dims when its only symbolic dim is a leading batch, the rule probed at several batches.
void infer_op(Node &n) {
  if (!has_symbolic_input(n)) {
    n.def->infer(n);
    return;
  }
  if (n.def->batch_transparent && infer_symbolic_batch(n))
    return;
  try {
    n.def->infer(n);
  } catch (const Error &e) {
    if (std::string(e.what()).find("has the symbolic dimension") == std::string::npos)
      throw;
    bool probed = false;
    try {
      probed = infer_symbolic_batch(n);
    } catch (const Error &) {
    }
    if (!probed)
      throw;
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
    infer_op(n);
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

/// Output dims the symbols' declared ranges decide (simplify_in_ranges): min(seq, 128) is seq
/// for --dim seq=1..128, so it broadcasts against seq.
void simplify_output_dims(const Graph &g, Node &n) {
  if (g.symbols.empty())
    return;
  for (Value *o : n.outputs) {
    if (!o || !o->type.shape)
      continue;
    for (Dim &d : *o->type.shape)
      if (!d.is_static() && d.is_known()) {
        SymInt s = simplify_in_ranges(d.sym, g.symbols);
        if (s != d.sym)
          d = Dim(s);
      }
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
      // Nodes expanded into standard ops (expand_ops.h), inferred next.
      if (expand_node(g, k))
        n = g.nodes[k].get();
      k = infer_at(g, k, opts, promoter);
      simplify_output_dims(g, *g.nodes[k]);
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
