#include "compiler/passes/infer_shapes.h"
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/control_flow.h"

#include <memory>

namespace onnxc {
namespace {

bool all_inputs_constant(const Node &n) {
  for (const Value *v : n.inputs)
    if (v && !v->constant)
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
  bool inputs_known = !n.def->reads_input_values || all_inputs_constant(n);
  if (!n.def->foldable || !inputs_known || output_bytes(n) > opts.max_folded_bytes)
    return;
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
    if (o && !o->uses.empty() && (o->type.dtype == DType::Undefined || !o->type.is_static()))
      node_fail(n, "could not infer the shape of output '{}'", o->name);
  if (opts.propagate_constants)
    propagate_constant(n, opts);
}

} // namespace

void infer_shapes(Graph &g, const InferOptions &opts) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node *n = g.nodes[i].get();
    try {
      // An If on a constant: its branch's nodes (at least one Identity per output) take its
      // place and are inferred next.
      while (opts.propagate_constants && inline_constant_if(g, i))
        n = g.nodes[i].get();
      infer_node(*n, opts);
    } catch (const Error &e) {
      std::string msg = e.what();
      if (msg.rfind(n->describe(), 0) != 0)
        msg = n->describe() + ": " + msg;
      throw Error(msg);
    }
  }
  for (const Value *o : g.outputs)
    if (o->type.dtype == DType::Undefined || !o->type.is_static())
      fail("could not infer the shape of graph output '{}'", o->name);
}

} // namespace onnxc
