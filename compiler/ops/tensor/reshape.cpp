// Reshape: same data, new shape from the `shape` input. 0 copies the input dim (unless
// allowzero=1, opset 14+), -1 is inferred from the element count. Lowers to a byte copy; with a
// shape computed at run time (not from the model's symbols), to onnxc_k_shape_copy, which
// checks it and reports the output's shape (Value::run_time_shape_from).
#include "compiler/ops/sym_util.h"
#include "templates/cpu/shaped_params.h"

namespace onnxc {

static std::vector<int64_t> reshape_dims(const Node &n) {
  std::vector<int64_t> in = input_dims(n, 0);
  std::vector<int64_t> shape = require_constant(n, 1, "shape").to_int64_vector();
  bool allowzero = n.opset >= 14 && attr_int(n, "allowzero", 0) != 0;
  int64_t infer_at = -1, known = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    int64_t &d = shape[k];
    if (d == 0 && !allowzero) {
      if (k >= in.size())
        node_fail(n, "shape[{}] is 0 (copy the input dim) but the input {} has only {} dims", k,
                  dims_to_string(in), in.size());
      d = in[k];
    }
    if (d == -1) {
      if (infer_at >= 0)
        node_fail(n, "shape {} has more than one -1", dims_to_string(shape));
      if (allowzero && std::count(shape.begin(), shape.end(), 0) > 0)
        node_fail(n, "shape has both -1 and 0 with allowzero=1");
      infer_at = static_cast<int64_t>(k);
    } else if (d < -1) {
      node_fail(n, "shape[{}] = {} is negative", k, d);
    } else if (__builtin_mul_overflow(known, d, &known)) {
      node_fail(n, "cannot reshape input {} to {}: the shape has too many elements",
                dims_to_string(in), dims_to_string(shape));
    }
  }
  int64_t count = product(in);
  if (infer_at >= 0) {
    if (known == 0 || count % known != 0)
      node_fail(n, "cannot reshape input {} ({} elements) to {}: -1 cannot be inferred",
                dims_to_string(in), count, dims_to_string(shape));
    shape[static_cast<size_t>(infer_at)] = count / known;
  } else if (known != count) {
    node_fail(n, "cannot reshape input {} ({} elements) to {} ({} elements)", dims_to_string(in),
              count, dims_to_string(shape), known);
  }
  return shape;
}

/// Output dims of a Reshape whose input dims or target shape are symbolic expressions.
static std::vector<SymInt> reshape_sym_dims(const Node &n) {
  std::vector<SymInt> in = input_sym_dims(n, 0);
  auto target = input_sym_value(n, 1);
  if (!target)
    require_constant(n, 1, "shape"); // throws: the shape is computed from run-time values
  std::vector<SymInt> shape = *target;
  bool allowzero = n.opset >= 14 && attr_int(n, "allowzero", 0) != 0;
  int64_t infer_at = -1;
  SymInt known = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    SymInt &d = shape[k];
    if (d == SymInt(0) && !allowzero) {
      if (k >= in.size())
        node_fail(n, "shape[{}] is 0 (copy the input dim) but the input {} has only {} dims", k,
                  sym_dims_to_string(in), in.size());
      d = in[k];
    }
    if (d == SymInt(-1)) {
      if (infer_at >= 0)
        node_fail(n, "shape {} has more than one -1", sym_dims_to_string(shape));
      infer_at = static_cast<int64_t>(k);
    } else if (auto c = d.as_const(); c && *c < 0) {
      node_fail(n, "shape[{}] = {} is negative", k, *c);
    } else {
      known = known * d;
    }
  }
  SymInt count = sym_product(in);
  if (infer_at >= 0) {
    auto q = SymInt::exact_div(count, known);
    if (!q)
      node_fail(n,
                "cannot reshape input {} to {}: -1 cannot be inferred from symbolic dims "
                "({} / {}); bind the dims with --dim NAME=N",
                sym_dims_to_string(in), sym_dims_to_string(shape), count.str(), known.str());
    shape[static_cast<size_t>(infer_at)] = *q;
  } else if (known != count) {
    node_fail(n, "cannot reshape input {} ({} elements) to {} ({} elements)",
              sym_dims_to_string(in), count.str(), sym_dims_to_string(shape), known.str());
  }
  return shape;
}

const OpDef &op_Reshape() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Reshape";
    d.min_opset = 5;
    d.attrs = {{"allowzero", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      if (input_type(n, 0).is_static() && values_at_run_time(n, 1)) {
        const std::vector<int64_t> s = input_dims(n, 1);
        if (s.size() != 1 || input_dtype(n, 1) != DType::Int64)
          node_fail(n, "shape must be a 1-D int64 tensor, it is {}",
                    shape_to_string(n.inputs[1]->type));
        std::vector<int64_t> bound(static_cast<size_t>(s[0]), 1);
        if (!bound.empty())
          bound[0] = product(input_dims(n, 0));
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), bound, 1, true);
        return;
      }
      if (input_type(n, 0).is_static() && input_constant(n, 1))
        set_output(n, 0, input_dtype(n, 0), reshape_dims(n));
      else
        set_output_sym(n, 0, input_dtype(n, 0), reshape_sym_dims(n));
    };
    d.lower = [](const Node &n) {
      if (!n.outputs[0]->run_time_shape_from.empty())
        return shape_copy_call(n, onnxc_k::kShapeReshape);
      return rename_call(n);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
