#include "compiler/passes/sample_wise.h"

#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <set>

namespace onnxc {
namespace {

/// How a value relates to the batch: not at all; one of its dims is the batch (and no other
/// dim mentions it); its contents depend on the batch size though its dims do not (Shape of a
/// batched tensor); or something else (the batch inside another dim, or in two dims).
enum class Role { Free, Batched, SizeValue, Other };

bool mentions(const SymInt &e, const std::string &b) { return e.symbols().count(b) > 0; }

/// The role the value's dims give it (Free or Batched or Other); for Batched, the batch's axis.
Role dims_role(const Value &v, const std::string &b, int64_t *axis = nullptr) {
  if (!v.type.is_known())
    return Role::Other;
  std::vector<SymInt> d = v.type.sym_dims();
  int64_t at = -1;
  for (size_t k = 0; k < d.size(); ++k)
    if (mentions(d[k], b)) {
      if (at >= 0 || d[k] != SymInt::symbol(b))
        return Role::Other;
      at = static_cast<int64_t>(k);
    }
  if (axis)
    *axis = at;
  return at >= 0 ? Role::Batched : Role::Free;
}

class Checker {
public:
  explicit Checker(std::string batch) : b_(std::move(batch)) {}

  Role role(const Value *v) const {
    auto it = roles_.find(v);
    return it == roles_.end() ? Role::Free : it->second;
  }
  /// The axis of the batch in a Batched value.
  int64_t axis(const Value *v) const {
    auto it = axes_.find(v);
    return it == axes_.end() ? 0 : it->second;
  }
  void set(const Value *v, Role r, int64_t axis = 0) {
    roles_[v] = r;
    axes_[v] = axis;
  }

  /// Empty if n is sample-wise; sets its outputs' roles.
  std::string check(const Node &n);
  std::vector<const Node *> thin_products;

private:
  std::string check_size_value_use(const Node &n);
  std::string check_batched(const Node &n);
  std::string axis_not_batch(const Node &n, int64_t axis, int64_t rank);
  std::string axes_not_batch(const Node &n, std::vector<int64_t> axes, int64_t rank);
  std::string batch_before(const Node &n, int64_t from, int64_t rank);
  std::string reshape_keeps_samples(const Node &n);
  std::string slice_keeps_batch(const Node &n);
  /// Records n in thin_products if its batched operand `a` has few rows per sample.
  void note_rows(const Node &n, size_t a) {
    if (role(n.inputs[a]) != Role::Batched)
      return;
    std::vector<SymInt> d = n.inputs[a]->type.sym_dims();
    int64_t rows = 1; // per sample; a run-time extent (a sequence) is not counted as thin
    for (size_t k = 0; k + 1 < d.size(); ++k)
      if (static_cast<int64_t>(k) != axis(n.inputs[a]))
        rows *= d[k].as_const().value_or(8);
    if (rows < 8)
      thin_products.push_back(&n);
  }
  std::string b_;
  std::map<const Value *, Role> roles_;
  std::map<const Value *, int64_t> axes_;
};

/// Ops that only compute shapes from shapes: a batch-size value may flow through them.
const std::set<std::string> kShapeArithmetic = {
    "Gather", "Concat", "Slice", "Unsqueeze", "Squeeze", "Cast", "Identity", "Add",
    "Sub",    "Mul",    "Div",   "Reshape",   "Max",     "Min",  "Equal",    "Where"};

/// Ops whose data input 0 may be batched and whose shape input `1` (or 0 for ConstantOfShape)
/// may carry the batch size: the output's symbolic shape says where the batch goes.
const std::map<std::string, size_t> kShapeInputOf = {
    {"Reshape", 1}, {"Expand", 1}, {"ConstantOfShape", 0}};

bool is_elementwise_like(const Node &n) {
  static const std::set<std::string> extra = {"Where",
                                              "Clip",
                                              "Sum",
                                              "Max",
                                              "Min",
                                              "Mean",
                                              "Cast",
                                              "CastLike",
                                              "Identity",
                                              "Dropout",
                                              "PRelu",
                                              "QuantizeLinear",
                                              "DequantizeLinear",
                                              "Celu",
                                              "Elu",
                                              "Selu",
                                              "Softplus",
                                              "Softsign",
                                              "ThresholdedRelu",
                                              "Shrink",
                                              "Gelu",
                                              "Mish",
                                              "IsNaN",
                                              "IsInf",
                                              "Sign"};
  return n.def->elementwise || extra.count(n.op_type) > 0;
}

std::string Checker::axis_not_batch(const Node &n, int64_t axis, int64_t rank) {
  return axes_not_batch(n, {axis}, rank);
}

std::string Checker::axes_not_batch(const Node &n, std::vector<int64_t> axes, int64_t rank) {
  const int64_t b = axis(n.inputs[0]);
  for (int64_t a : axes)
    if (normalize_axis(n, a, rank) == b)
      return fmt::format("it works along axis {}, the batch", b);
  return "";
}

/// For ops that work on every axis from `from` on (LayerNormalization, Softmax before opset 13).
std::string Checker::batch_before(const Node &n, int64_t from, int64_t rank) {
  const int64_t b = axis(n.inputs[0]);
  if (normalize_axis(n, from, rank) <= b)
    return fmt::format("it works along axes {}.., the batch (axis {}) among them",
                       normalize_axis(n, from, rank), b);
  return "";
}

std::string Checker::slice_keeps_batch(const Node &n) {
  const int64_t rank = n.inputs[0]->type.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = attr_ints(n, "starts", {});
    ends = attr_ints(n, "ends", {});
    axes = attr_ints(n, "axes", {});
  } else {
    for (size_t i = 1; i <= 4; ++i)
      if (n.has_input(i) && !input_constant(n, i))
        return "its starts/ends/axes/steps are computed at run time";
    starts = input_constant(n, 1)->to_int64_vector();
    ends = input_constant(n, 2)->to_int64_vector();
    if (n.has_input(3))
      axes = input_constant(n, 3)->to_int64_vector();
    if (n.has_input(4))
      steps = input_constant(n, 4)->to_int64_vector();
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k)
      axes.push_back(static_cast<int64_t>(k));
  for (size_t k = 0; k < axes.size() && k < starts.size() && k < ends.size(); ++k) {
    if (normalize_axis(n, axes[k], rank) != axis(n.inputs[0]))
      continue;
    const int64_t step = k < steps.size() ? steps[k] : 1;
    if (starts[k] != 0 || step != 1 || ends[k] < std::numeric_limits<int32_t>::max())
      return fmt::format("it slices axis {}, the batch", axis(n.inputs[0]));
  }
  return "";
}

/// A Reshape/Flatten keeps each sample's elements where one sample's would be when the batch
/// stays one dim of the output and the elements before and after it are as many as in the
/// input (row-major order then maps sample b to sample b).
std::string Checker::reshape_keeps_samples(const Node &n) {
  int64_t out_axis = -1;
  if (dims_role(*n.outputs[0], b_, &out_axis) != Role::Batched)
    return "it moves elements across samples";
  const std::vector<SymInt> in = n.inputs[0]->type.sym_dims(), out = n.outputs[0]->type.sym_dims();
  const auto a = static_cast<size_t>(axis(n.inputs[0])), o = static_cast<size_t>(out_axis);
  if (sym_product({in.begin(), in.begin() + a}) != sym_product({out.begin(), out.begin() + o}) ||
      sym_product({in.begin() + a + 1, in.end()}) != sym_product({out.begin() + o + 1, out.end()}))
    return "it moves elements across samples";
  return "";
}

/// Why a node with a batched input does not keep samples apart ("" if it does).
std::string Checker::check_batched(const Node &n) {
  const std::string &op = n.op_type;
  const int64_t rank = n.inputs[0] ? n.inputs[0]->type.rank() : 0;
  auto batched = [&](size_t i) { return n.has_input(i) && role(n.inputs[i]) == Role::Batched; };
  auto free_except = [&](size_t keep) {
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (i != keep && n.has_input(i) && role(n.inputs[i]) != Role::Free)
        return false;
    return true;
  };
  if (is_elementwise_like(n)) { // the batch at one output axis; other inputs 1 there
    const int64_t out_rank = n.outputs[0]->type.rank();
    int64_t at = -1;
    for (const Value *v : n.inputs)
      if (v && role(v) == Role::Batched) {
        const int64_t a = axis(v) + out_rank - v->type.rank();
        if (at >= 0 && a != at)
          return "its batched inputs have the batch at different axes";
        at = a;
      }
    for (const Value *v : n.inputs) {
      if (!v || role(v) != Role::Free || at < 0)
        continue;
      const int64_t p = at - (out_rank - v->type.rank());
      if (p >= 0 && (*v->type.shape)[static_cast<size_t>(p)].value != 1)
        return "a batch-independent input has a dim other than 1 at the batch axis";
    }
    return "";
  }
  if (n.def->batch_transparent) {
    if (batched(0) && axis(n.inputs[0]) != 0)
      return "its batch axis (N) is not the batch";
    return free_except(0) ? "" : "an input other than the data input is batched";
  }
  if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul") {
    // The batch must not be contracted (A's last axis, B's second-to-last); where it goes
    // in the output, its dims say (checked in check()).
    const size_t a = 0, bi = op == "QLinearMatMul" ? 3 : 1;
    const int64_t ra = n.inputs[a]->type.rank(), rb = n.inputs[bi]->type.rank();
    if (batched(bi) && (rb < 2 || axis(n.inputs[bi]) == rb - 2))
      return "the batch is the contracted axis of its right-hand side";
    if (batched(a) && axis(n.inputs[a]) == ra - 1)
      return "the batch is the contracted axis of its left-hand side";
    note_rows(n, a);
    return "";
  }
  if (op == "Gemm") {
    if (attr_int(n, "transA", 0) != 0 || !free_except(0) || axis(n.inputs[0]) != 0)
      return "Gemm transposes a batched A";
    note_rows(n, 0);
    return "";
  }
  if (op == "Reshape" || op == "Flatten")
    return batched(0) ? reshape_keeps_samples(n) : "";
  if (op == "Transpose")
    return ""; // the output's dims say where the batch went
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    const int64_t a = attr_int(n, "axis", n.opset < 13 ? 1 : -1);
    return n.opset < 13 ? batch_before(n, a, rank) : axis_not_batch(n, a, rank);
  }
  if (op == "LayerNormalization" || op == "RMSNormalization" || op == "SkipLayerNormalization" ||
      op == "SimplifiedLayerNormalization")
    return free_except(0) ? batch_before(n, attr_int(n, "axis", -1), rank)
                          : "its scale or bias is batched";
  if (op == "ArgMax" || op == "ArgMin" || op == "CumSum" || op == "TopK" || op == "Split" ||
      op == "Concat" || op == "LpNormalization") {
    if (op == "CumSum" || op == "TopK") {
      if (!free_except(0))
        return "its axis/k input depends on the batch";
      if (op == "CumSum" && !input_constant(n, 1))
        return "its axis is computed at run time";
      const int64_t axis =
          op == "CumSum" ? input_constant(n, 1)->int_at(0) : attr_int(n, "axis", -1);
      return axis_not_batch(n, axis, rank);
    }
    if (op == "Concat")
      for (const Value *v : n.inputs)
        if (v && role(v) == Role::Batched && axis(v) != axis(n.inputs[0]))
          return "its inputs have the batch at different axes";
    return axis_not_batch(n, attr_int(n, "axis", op == "Concat" || op == "Split" ? 0 : -1), rank);
  }
  if (op.rfind("Reduce", 0) == 0) {
    std::vector<int64_t> axes = attr_ints(n, "axes", {});
    if (n.has_input(1)) {
      if (!input_constant(n, 1))
        return "its axes are computed at run time";
      axes = input_constant(n, 1)->to_int64_vector();
    }
    if (axes.empty())
      return attr_int(n, "noop_with_empty_axes", 0) ? "" : "it reduces every axis, the batch too";
    return axes_not_batch(n, axes, rank);
  }
  if (op == "Slice")
    return batched(0) && free_except(0) ? slice_keeps_batch(n) : "its bounds depend on the batch";
  if (op == "Gather") {
    const int64_t at = normalize_axis(n, attr_int(n, "axis", 0), rank);
    if (batched(0) && !batched(1) && at != axis(n.inputs[0]))
      return "";
    if (!batched(0) && batched(1))
      return ""; // a lookup: a batch of indices into a table
    return "it gathers along the batch axis";
  }
  if (op == "Squeeze" || op == "Unsqueeze" || op == "Expand" || op == "Tile" || op == "Resize" ||
      op == "Upsample" || op == "Pad")
    // Their output's symbolic shape shows whether the batch stays one dim of its own; any pad
    // or repeat of the batch axis changes that dim. The other inputs must not depend on it.
    return free_except(0) ? "" : "its shape inputs depend on the batch";
  return fmt::format("onnxc does not know that {} keeps the samples of a batch apart", op);
}

std::string Checker::check_size_value_use(const Node &n) {
  auto it = kShapeInputOf.find(n.op_type);
  if (it != kShapeInputOf.end()) {
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (i != it->second && n.has_input(i) && role(n.inputs[i]) == Role::SizeValue)
        return "a batch-size value reaches one of its data inputs";
    return "";
  }
  if (kShapeArithmetic.count(n.op_type)) {
    for (const Value *v : n.inputs)
      if (v && role(v) == Role::Batched)
        return "it combines the batch size with batched data";
    return "";
  }
  return "it uses the batch size as a value";
}

std::string Checker::check(const Node &n) {
  bool any_batched = false, any_size = false;
  for (const Value *v : n.inputs)
    if (v) {
      any_batched |= role(v) == Role::Batched;
      any_size |= role(v) == Role::SizeValue;
    }
  const bool shape_query = n.op_type == "Shape" || n.op_type == "Size";
  std::string why;
  if (any_size)
    why = check_size_value_use(n);
  if (why.empty() && any_batched && !shape_query)
    why = check_batched(n);
  if (!why.empty())
    return why;
  for (const Value *o : n.outputs) {
    if (!o)
      continue;
    int64_t at = 0;
    Role r = dims_role(*o, b_, &at);
    if (r == Role::Other)
      return fmt::format("output '{}' ({}) has the batch inside a dim or in two dims", o->name,
                         shape_to_string(o->type));
    if (r == Role::Free && (any_batched || any_size)) {
      // A result without the batch in its dims, computed from the batch: only a shape
      // computation may do that, and then its value is a batch-size value (unless the
      // expressions of its value show it does not depend on the batch).
      if (!shape_query && !(any_size && kShapeArithmetic.count(n.op_type)))
        return fmt::format("output '{}' ({}) combines the samples of the batch", o->name,
                           shape_to_string(o->type));
      bool depends = true;
      if (o->sym_value) {
        depends = false;
        for (const SymInt &e : *o->sym_value)
          depends |= mentions(e, b_);
      } else if (o->is_constant()) {
        depends = false;
      }
      r = depends ? Role::SizeValue : Role::Free;
    }
    set(o, r, at);
  }
  return "";
}

} // namespace

std::set<std::string> input_symbols(const Graph &g) {
  std::set<std::string> all;
  for (const Value *in : g.inputs)
    if (!in->is_constant() && in->type.has_shape())
      for (const Dim &d : *in->type.shape)
        for (const std::string &s : d.sym.symbols())
          all.insert(s);
  return all;
}

std::optional<std::string> find_batch_symbol(const Graph &g) {
  std::set<std::string> leading, elsewhere;
  for (const Value *in : g.inputs) {
    if (in->is_constant() || !in->type.has_shape())
      continue;
    const std::vector<Dim> &dims = *in->type.shape;
    for (size_t k = 0; k < dims.size(); ++k)
      for (const std::string &s : dims[k].sym.symbols())
        (k == 0 && dims[k].sym == SymInt::symbol(s) ? leading : elsewhere).insert(s);
  }
  for (const std::string &s : elsewhere)
    leading.erase(s);
  if (leading.size() != 1)
    return std::nullopt;
  return *leading.begin();
}

SampleWise check_sample_wise(const Graph &g, const std::string &batch) {
  SampleWise s;
  Checker c(batch);
  for (const Value *in : g.inputs) {
    int64_t at = 0;
    Role r = dims_role(*in, batch, &at);
    if (r == Role::Other || (r == Role::Batched && at != 0)) {
      s.reason = fmt::format("graph input '{}' has the batch '{}' in a dim other than dim 0",
                             in->name, batch);
      return s;
    }
    c.set(in, r);
    s.batched_inputs.push_back(r == Role::Batched);
  }
  for (const auto &n : g.nodes) {
    std::string why = c.check(*n);
    if (!why.empty()) {
      s.reason = fmt::format("{}: {}", n->describe(), why);
      return s;
    }
  }
  for (const Value *out : g.outputs) {
    Role r = c.role(out);
    if (r == Role::SizeValue || r == Role::Other) {
      s.reason = fmt::format("graph output '{}' depends on the batch size", out->name);
      return s;
    }
    if (r == Role::Batched && c.axis(out) != 0) {
      s.reason = fmt::format("graph output '{}' ({}) has the batch at axis {}, not 0", out->name,
                             shape_to_string(out->type), c.axis(out));
      return s;
    }
    s.batched_outputs.push_back(r == Role::Batched);
  }
  s.thin_products = c.thin_products;
  return s;
}

} // namespace onnxc
