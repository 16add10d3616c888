#include "compiler/passes/infer_shapes.h"
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/run_time_data_ops.h"
#include "compiler/ops/strings/string_util.h"
#include "compiler/ops/sym_util.h"
#include "compiler/ops/tensor/check_shape.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/expand_ops.h"
#include "compiler/passes/promote_half.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>

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
  for (const Value *v : n.inputs) // its type is only a bound (Shape, Size): nothing folds
    if (v && !v->run_time_shape_from.empty())
      return;
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
      std::vector<int64_t> d =
          at[p][i].is_static() ? at[p][i].static_dims() : std::vector<int64_t>{};
      follows = follows && d.size() == first.size() && d[0] == kProbes[p] &&
                std::equal(d.begin() + 1, d.end(), first.begin() + 1);
      same = same && d == first;
    }
    if (!follows && !same)
      node_fail(n,
                "output {} does not follow the symbolic batch '{}' ({} at batch 2, {} at "
                "batch 3); bind it with --dim",
                i, batch->str(), shape_to_string(at[0][i]), shape_to_string(at[1][i]));
    Type t = at[0][i];
    if (follows)
      (*t.shape)[0] = *batch;
    n.outputs[i]->type = t;
  }
  return true;
}

/// Most values of a symbol's range infer_over_range probes.
constexpr int64_t kMaxProbedValues = int64_t{1} << 16;

/// An expression over the input dims `dims` equal to v[s - lo] at every s in [lo, hi]: a
/// constant, or floor((a*e + b) / c) for an input dim e, a in 1..8 and c in 1..16 (windowed
/// ops: (len + pads - kernel)/stride + 1, ceil modes, upsampling). nullopt if none is.
std::optional<SymInt> fit_dim(const std::vector<int64_t> &v, const std::vector<SymInt> &dims,
                              int64_t lo) {
  if (std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; }))
    return SymInt(v[0]);
  for (const SymInt &e : dims) {
    std::vector<int64_t> ev;
    for (size_t i = 0; i < v.size(); ++i)
      ev.push_back(e.eval([&](const std::string &) { return lo + static_cast<int64_t>(i); }));
    for (int64_t a = 1; a <= 8; ++a)
      for (int64_t c = 1; c <= 16; ++c) {
        // b is fixed up to c choices by the first value: c*v0 <= a*e0 + b < c*(v0 + 1).
        for (int64_t b = c * v[0] - a * ev[0]; b < c * v[0] - a * ev[0] + c; ++b) {
          bool ok = true;
          for (size_t i = 0; i < v.size() && ok; ++i) {
            const int64_t num = a * ev[i] + b;
            const int64_t q = num >= 0 ? num / c : -((-num + c - 1) / c);
            ok = q == v[i];
          }
          if (ok)
            return SymInt::floordiv(SymInt(a) * e + SymInt(b), SymInt(c));
        }
      }
  }
  return std::nullopt;
}

/// An op without a symbolic rule whose symbolic input dims are all over one symbol with a
/// range of at most kMaxProbedValues values: its static rule runs at every value of the range
/// and each output dim becomes the expression that matches it everywhere (fit_dim); the
/// result is exact within the range, which onnxc_run enforces. False if n does not qualify.
bool infer_over_range(Node &n, const std::map<std::string, SymRange> *ranges) {
  if (!ranges)
    return false;
  std::set<std::string> syms;
  std::vector<SymInt> dims; // the distinct symbolic input dims
  std::vector<std::pair<Value *, Type>> saved;
  for (Value *v : n.inputs) {
    if (!v || v->type.is_static())
      continue;
    if (!v->type.is_known())
      return false;
    saved.emplace_back(v, v->type);
    for (const SymInt &d : v->type.sym_dims())
      if (!d.is_const()) {
        for (const std::string &s : d.symbols())
          syms.insert(s);
        if (std::find(dims.begin(), dims.end(), d) == dims.end())
          dims.push_back(d);
      }
  }
  if (syms.size() != 1 || !ranges->count(*syms.begin()))
    return false;
  const std::string sym = *syms.begin();
  const SymRange r = ranges->at(sym);
  if (r.hi - r.lo + 1 > kMaxProbedValues)
    return false;
  std::vector<std::vector<std::vector<int64_t>>> at; // [s][output][dim]
  try {
    for (int64_t s = r.lo; s <= r.hi; ++s) {
      for (auto &[v, t] : saved) {
        std::vector<int64_t> d;
        for (const SymInt &e : t.sym_dims())
          d.push_back(e.eval([&](const std::string &) { return s; }));
        v->type = Type::of(t.dtype, d);
        v->type.kind = t.kind;
      }
      n.def->infer(n);
      std::vector<std::vector<int64_t>> outs;
      for (const Value *o : n.outputs)
        outs.push_back(o && o->type.is_static() ? o->type.static_dims() : std::vector<int64_t>{});
      at.push_back(std::move(outs));
    }
  } catch (const Error &e) {
    for (auto &[v, t] : saved)
      v->type = t;
    std::string msg = e.what(), prefix = n.describe() + ": ";
    if (msg.rfind(prefix, 0) == 0)
      msg.erase(0, prefix.size());
    node_fail(n, "{} (with {} = {}; declare the values the model accepts with --dim {}=LO..HI)",
              msg, sym, r.lo + static_cast<int64_t>(at.size()), sym);
  }
  for (auto &[v, t] : saved)
    v->type = t;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (!n.outputs[i])
      continue;
    std::vector<SymInt> out;
    for (size_t k = 0; k < at[0][i].size(); ++k) {
      std::vector<int64_t> v;
      for (const auto &a : at) {
        if (a[i].size() != at[0][i].size())
          node_fail(n, "the rank of output {} changes with '{}'; bind it with --dim {}=N", i, sym,
                    sym);
        v.push_back(a[i][k]);
      }
      std::optional<SymInt> e = fit_dim(v, dims, r.lo);
      if (!e)
        node_fail(n,
                  "dim {} of output {} depends on '{}' in a way onnxc cannot express; bind "
                  "it with --dim {}=N",
                  k, i, sym, sym);
      out.push_back(*e);
    }
    set_output_sym(n, i, n.outputs[i]->type.dtype, out);
  }
  return true;
}

/// Shape rule of n: the op's own; for a batch-transparent op, or an op whose rule needs static
/// dims when its only symbolic dim is a leading batch, the rule probed at several batches; for
/// an op whose rule needs static dims, the rule probed over the symbol's range.
void infer_op(Node &n, const InferOptions &opts) {
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
    if (!probed && !infer_over_range(n, opts.symbols))
      throw;
  }
}

/// The input shaped at run time that n's outputs follow element for element, or nullptr when
/// no input is shaped at run time. Accepted: an element-wise op (or Cast, CastLike, Identity)
/// whose inputs shaped at run time all have one shape (Value::run_time_shape_root), every other
/// input a single element (CastLike's second input gives only its type), so computing over the
/// source's elements gives the result's elements in order. The source's kernel wrote them at
/// the start of its buffer (Value::run_time_bounded: the op computes over the bound) or in
/// run-scoped memory (Value::run_time_data: the op computes over the run's element count, in
/// the root graph only). Any other use fails naming the value and the input that decides its
/// shape.
Value *run_time_shaped_source(const Node &n, const Graph &g) {
  Value *source = first_run_time_shaped_input(n);
  if (!source || (n.def && n.def->run_time_shaped_inputs))
    return nullptr;
  if (n.def && n.def->run_time_shaped_input && source == n.inputs[0]) {
    for (size_t i = 1; source && i < n.inputs.size(); ++i) // the op reads input 0's shape
      if (n.inputs[i] && !n.inputs[i]->run_time_shape_from.empty())
        node_fail(n,
                  "input '{}' has a shape that values computed at run time decide, which {} "
                  "supports for its first input only; {}",
                  n.inputs[i]->name, n.op_type, n.inputs[i]->run_time_shape_trace);
    return nullptr;
  }
  const bool cast = n.op_type == "Cast" || n.op_type == "CastLike" || n.op_type == "Identity";
  bool follows = source->type.is_static() && !is_control_flow(n) && n.def &&
                 (n.def->elementwise || cast) && n.domain.empty() &&
                 (source->run_time_bounded || (!g.parent && source->type.dtype != DType::String));
  for (size_t i = 0; follows && i < n.inputs.size(); ++i) {
    const Value *v = n.inputs[i];
    if (!v || v == source || input_gives_only_type(n, i))
      continue;
    if (!v->run_time_shape_from.empty()) // the same run-time shape, element for element
      follows = v->run_time_shape_root == source->run_time_shape_root &&
                v->run_time_bounded == source->run_time_bounded &&
                v->type.static_dims() == source->type.static_dims();
    else
      follows = v->type.is_static() && v->type.rank() <= source->type.rank() &&
                product(v->type.static_dims()) == 1;
  }
  if (!follows)
    node_fail(n,
              "input '{}' has a shape that values computed at run time decide, which onnxc "
              "supports for graph outputs and element-wise ops of it (and of values of its "
              "shape) and single values only{}: the input '{}' that decides it must be a "
              "compile-time constant here; {}",
              source->name,
              !source->run_time_bounded && g.parent ? ", outside If/Loop/Scan bodies" : "",
              source->run_time_shape_from, source->run_time_shape_trace);
  return source;
}

/// True when n gives its output the elements of its only (data) input in order: Identity, Cast,
/// CastLike and one-input element-wise ops. An input with two ranks (Value::broadcast_rank_from)
/// passes them on.
bool keeps_elements(const Node &n) {
  if (!n.domain.empty() || n.outputs.size() != 1)
    return false;
  if (n.op_type == "Identity" || n.op_type == "Cast" || n.op_type == "CastLike")
    return true;
  return n.def && n.def->elementwise && n.inputs.size() == 1;
}

/// n reads an If output whose branches give it two ranks (Value::broadcast_rank_from): only a
/// broadcasting element-wise op with another input of at least its rank gives the same result
/// at either rank (keeps_elements passes it on); anything else is refused.
void check_broadcast_rank_uses(const Node &n) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value *v = n.inputs[i];
    if (!v || v->broadcast_rank_from < 0 || input_gives_only_type(n, i))
      continue;
    if (keeps_elements(n) && v == n.inputs[0])
      continue;
    bool ok = n.def && n.def->elementwise && !is_control_flow(n) && n.domain.empty();
    int64_t others = -1;
    for (const Value *w : n.inputs)
      if (w && w != v && w->type.is_known()) // another input with two ranks: its lower one
        others = std::max<int64_t>(others, w->broadcast_rank_from >= 0 ? w->broadcast_rank_from
                                                                       : w->type.rank());
    if (!ok || others < v->type.rank())
      node_fail(n,
                "reads '{}', which an If with a run-time condition gives at rank {} in one branch "
                "and {} in the other (the same elements); onnxc computes with it only in "
                "broadcasting element-wise ops with another input of rank {} or more, whose "
                "result is then the same: the If's condition must be a compile-time constant "
                "here",
                v->name, v->broadcast_rank_from, v->type.rank(), v->type.rank());
  }
}

void infer_node(Node &n, const Graph &g, const InferOptions &opts) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value *v = n.inputs[i];
    if (v && v->type.dtype == DType::Undefined)
      node_fail(n, "the type of input '{}' is unknown", v->name);
  }
  for (Value *o : n.outputs) // infer_if sets it again where the branches' ranks differ
    if (o)
      o->broadcast_rank_from = -1;
  check_broadcast_rank_uses(n);
  if (run_time_data_op_applies(n, g)) { // N-D ops of a value with no bound
    infer_run_time_data_op(n);
    return;
  }
  Value *source = run_time_shaped_source(n, g); // Value::run_time_shape_from
  for (Value *o : n.outputs) // the rule sets it again if the shape still waits for run time
    if (o) {
      o->run_time_shape_from.clear();
      o->run_time_shape_trace.clear();
      o->run_time_bounded = false;
    }
  if (is_control_flow(n))
    infer_control_flow(n, opts);
  else
    infer_op(n, opts);
  if (source)
    for (Value *o : n.outputs) // the source's shape, element for element
      if (o) {
        if (!o->type.is_static() || o->type.static_dims() != source->type.static_dims())
          node_fail(n, "output '{}' does not follow the run-time shape of input '{}' ({} vs {})",
                    o->name, source->name, shape_to_string(o->type), shape_to_string(source->type));
        o->run_time_shape_from = source->run_time_shape_from;
        o->run_time_shape_trace = source->run_time_shape_trace;
        o->run_time_shape_root = source->run_time_shape_root;
        o->run_time_bounded = source->run_time_bounded;
      }
  for (const Value *o : n.outputs)
    if (o && o->type.dtype == DType::String && !op_makes_strings(n))
      node_fail(n, "{} does not support string tensors", n.op_type);
  for (const Value *o : n.outputs)
    if (o && !o->uses.empty() && (o->type.dtype == DType::Undefined || !o->type.is_known()))
      node_fail(n, "could not infer the shape of output '{}'", o->name);
  if (keeps_elements(n) && n.inputs[0] && n.outputs[0] &&
      n.outputs[0]->type.rank() == n.inputs[0]->type.rank())
    n.outputs[0]->broadcast_rank_from = n.inputs[0]->broadcast_rank_from;
  if (opts.propagate_constants)
    propagate_constant(n, opts);
}

/// Infers nodes[k]; one with float16/bfloat16 inputs and no half kernel is computed in float
/// (promote_half.h). Returns the index of the last node now standing for it.
size_t infer_at(Graph &g, size_t k, const InferOptions &opts, HalfPromoter &promoter) {
  Node &n = *g.nodes[k];
  if (!has_half_input(n)) {
    infer_node(n, g, opts);
    return k;
  }
  std::optional<Error> native_error;
  try {
    infer_node(n, g, opts);
    if (half_is_native(n))
      return k;
  } catch (const Error &e) {
    native_error = e;
  }
  try {
    return promoter.promote_to_float(k, [&](Node &m) { infer_node(m, g, opts); });
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

/// An op whose output dims are a count its input values decide (OpDef::count_bound), with an
/// input computed at run time: its count becomes a run-time count of the graph (Graph::counts),
/// ranging over 0..the op's bound, which the node names in kCountSymbolAttr for its rules.
void add_run_time_count(Graph &g, Node &n) {
  if (!n.def || !n.def->count_bound || has_attr(n, kCountSymbolAttr))
    return;
  const int64_t bound = n.def->count_bound(n);
  if (bound < 0) // the inputs the count depends on are known
    return;
  if (g.parent)
    node_fail(n, "its output shape depends on values computed at run time, which onnxc "
                 "supports outside If/Loop/Scan bodies only");
  std::string base;
  for (char c : (n.outputs.empty() || !n.outputs[0] ? n.op_type : n.outputs[0]->name))
    base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::string name = base + "_count";
  for (int k = 2; g.symbols.count(name); ++k)
    name = fmt::format("{}_count{}", base, k);
  g.symbols[name] = SymRange{1, bound + 1};
  g.counts.insert(name);
  Attribute &a = n.attrs[kCountSymbolAttr];
  a.kind = Attribute::Kind::String;
  a.s = name;
}

/// A body output shaped at run time whose model declares a static shape for it: an
/// onnxc.CheckShape gives it that shape, compared with the run's when the body runs (onnxc
/// compiles the enclosing If/Loop/Scan with static shapes). Returns the checked value, which
/// takes the output's place.
Value *check_declared_shape(Graph &g, Value *o, const InferOptions &opts) {
  Node *n = g.add_node("CheckShape", {o}, 1);
  n->domain = "onnxc";
  n->def = &op_CheckShape();
  n->name = o->name + "/declared_shape";
  Attribute &a = n->attrs[kCheckShapeDimsAttr];
  a.kind = Attribute::Kind::Ints;
  a.ints = *o->declared_dims;
  infer_node(*n, g, opts);
  Value *y = n->outputs[0];
  y->declared_dims = o->declared_dims;
  y->is_graph_output = true;
  return y;
}

} // namespace

void infer_shapes(Graph &g, const InferOptions &given) {
  InferOptions opts = given;
  if (!opts.symbols && !g.symbols.empty())
    opts.symbols = &g.symbols;
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
      add_run_time_count(g, *n);
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
  for (const Value *o : g.outputs)
    if (o->broadcast_rank_from >= 0)
      fail("{} output '{}' is given by an If with a run-time condition at rank {} in one "
           "branch and {} in the other; onnxc compiles such an If only when its condition is a "
           "compile-time constant here, or the output only feeds broadcasting element-wise ops",
           g.parent ? "the body" : "the graph", o->name, o->broadcast_rank_from, o->type.rank());
  // A value shaped at run time (Value::run_time_shape_from) is written to its graph output's
  // own buffer: not from an If/Loop/Scan body (unless the model declares its shape there), and
  // not as two graph outputs.
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const Value *o = g.outputs[i];
    if (o->run_time_shape_from.empty())
      continue;
    if (g.parent && o->run_time_bounded && o->declared_dims &&
        static_cast<int64_t>(o->declared_dims->size()) == o->type.rank() &&
        check_shape_supports(o->type.dtype)) {
      Value *was = g.outputs[i];
      g.outputs[i] = check_declared_shape(g, was, opts);
      was->is_graph_output = std::count(g.outputs.begin(), g.outputs.end(), was) > 0;
      continue;
    }
    if (g.parent)
      fail("the body output '{}' has a shape that values computed at run time decide, which "
           "onnxc supports for graph outputs only: the input '{}' that decides it must be a "
           "compile-time constant here; {}",
           o->name, o->run_time_shape_from, o->run_time_shape_trace);
    for (size_t j = 0; j < i; ++j)
      if (g.outputs[j] == o)
        fail("graph outputs {} and {} are the same value '{}', whose shape is decided at run "
             "time; give it once",
             j, i, o->name);
  }
}

} // namespace onnxc
