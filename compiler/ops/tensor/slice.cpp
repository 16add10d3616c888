// Slice: per-axis [start, end) with a step (negative steps walk backwards). starts/ends/axes are
// attributes before opset 10 and constant inputs (with optional axes and steps) from 10 on.
// Out-of-range starts/ends are clamped as ONNX specifies. Lowers to a strided copy; with
// starts/ends/axes/steps computed at run time (not from the model's symbols), to
// onnxc_k_slice_rt, which reports the output's shape (Value::run_time_shape_from).
#include "compiler/ops/sym_util.h"
#include "compiler/ops/tensor/strided_copy.h"
#include "templates/cpu/shaped_params.h"

#include <algorithm>
#include <cstddef>

namespace onnxc {

namespace {
/// Per input axis: first element, step, and output length.
struct SliceAxis {
  int64_t start = 0, step = 1, len = 0;
};

std::vector<int64_t> slice_param(const Node &n, size_t input, const char *attr) {
  if (n.opset < 10)
    return attr_ints(n, attr);
  if (!n.has_input(input))
    return {};
  return require_constant(n, input, attr).to_int64_vector();
}

/// The sliced axes (normalised, each once) with their starts, ends and steps as given.
struct SliceSpec {
  std::vector<size_t> axes;
  std::vector<int64_t> starts, ends, steps;
};

/// slice_spec's checks of axes and steps, for starts/ends known only as expressions (their
/// lengths given; sp.starts/ends stay empty).
SliceSpec slice_spec_lengths(const Node &n, int64_t rank, size_t starts, size_t ends);

SliceSpec slice_spec(const Node &n, int64_t rank) {
  std::vector<int64_t> starts = slice_param(n, 1, "starts"), ends = slice_param(n, 2, "ends");
  SliceSpec sp = slice_spec_lengths(n, rank, starts.size(), ends.size());
  sp.starts = std::move(starts), sp.ends = std::move(ends);
  return sp;
}

SliceSpec slice_spec_lengths(const Node &n, int64_t rank, size_t num_starts, size_t num_ends) {
  SliceSpec sp;
  std::vector<int64_t> axes = slice_param(n, 3, "axes");
  sp.steps = slice_param(n, 4, "steps");
  if (num_starts != num_ends)
    node_fail(n, "starts has {} entries but ends has {}", num_starts, num_ends);
  if (axes.empty())
    for (size_t k = 0; k < num_starts; ++k)
      axes.push_back(static_cast<int64_t>(k));
  if (sp.steps.empty())
    sp.steps.assign(num_starts, 1);
  if (axes.size() != num_starts || sp.steps.size() != num_starts)
    node_fail(n, "starts, ends, axes and steps must have the same length ({}, {}, {}, {})",
              num_starts, num_ends, axes.size(), sp.steps.size());
  std::vector<bool> seen(static_cast<size_t>(rank));
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(normalize_axis(n, axes[i], rank));
    if (seen[a])
      node_fail(n, "axis {} appears more than once in axes", a);
    seen[a] = true;
    if (sp.steps[i] == 0)
      node_fail(n, "step for axis {} is 0", a);
    sp.axes.push_back(a);
  }
  return sp;
}

SliceAxis slice_one(int64_t dim, int64_t s, int64_t e, int64_t step);

std::vector<SliceAxis> slice_axes(const Node &n) {
  std::vector<int64_t> in = input_dims(n, 0);
  std::vector<SliceAxis> out(in.size());
  for (size_t k = 0; k < in.size(); ++k)
    out[k].len = in[k];
  SliceSpec sp = slice_spec(n, static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < sp.axes.size(); ++i)
    out[sp.axes[i]] = slice_one(in[sp.axes[i]], sp.starts[i], sp.ends[i], sp.steps[i]);
  return out;
}

/// One axis of length dim sliced [s, e) by step (ONNX's clamping).
SliceAxis slice_one(int64_t dim, int64_t s, int64_t e, int64_t step) {
  // A step longer than the axis selects at most one element, like a step of the axis length;
  // clamping keeps the length and stride arithmetic below from overflowing.
  step = std::clamp<int64_t>(step, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
  if (s < 0)
    s += dim;
  if (e < 0)
    e += dim;
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
  } else {
    s = std::clamp<int64_t>(s, 0, dim - 1);
    e = std::clamp<int64_t>(e, -1, dim - 1);
  }
  int64_t len = step > 0 ? (e - s + step - 1) / step : (s - e - step - 1) / -step;
  return {s, step, std::max<int64_t>(len, 0)};
}

/// A start or end of a positive-step slice over the symbolic dim d, clamped to [0, d]; ends of
/// 2^31 - 1 or more mean "to the end", as exporters write them.
SymInt clamp_to_dim(int64_t v, const SymInt &d, bool is_end) {
  if (is_end && v >= 2147483647)
    return d;
  return v >= 0 ? SymInt::min(v, d) : SymInt::max(d + v, 0);
}

/// A start or end given as an expression (a run-time shape value such as `seq`), clamped to
/// [0, d]: it must be provably non-negative.
SymInt clamp_sym_to_dim(const Node &n, const SymInt &v, const SymInt &d, bool is_end) {
  if (auto c = v.as_const())
    return clamp_to_dim(*c, d, is_end);
  if (!v.nonnegative())
    node_fail(n,
              "a start or end of '{}' that may be negative is not supported yet; bind the "
              "run-time dims with --dim NAME=N",
              v.str());
  return SymInt::min(v, d);
}

/// True when a start or end input is a run-time value known as an expression over the
/// symbols (Shape -> Gather -> Unsqueeze, as exporters slice with dynamic axes).
bool has_sym_bounds(const Node &n) {
  if (n.opset < 10)
    return false;
  for (size_t i : {size_t{1}, size_t{2}})
    if (n.input(i) && !n.input(i)->constant && n.input(i)->sym_value)
      return true;
  return false;
}

/// Output dims of a Slice whose input has symbolic dims or whose starts/ends are expressions
/// (positive steps on those axes).
std::vector<SymInt> slice_sym_dims(const Node &n) {
  std::vector<SymInt> out = input_sym_dims(n, 0);
  const bool sym_bounds = has_sym_bounds(n);
  SliceSpec sp;
  std::vector<SymInt> starts, ends;
  if (sym_bounds) { // starts/ends as expressions; axes and steps constant
    auto s = input_sym_value(n, 1), e = input_sym_value(n, 2);
    if (!s || !e)
      require_constant(n, s ? 2 : 1, s ? "ends" : "starts");
    starts = *s, ends = *e;
    sp = slice_spec_lengths(n, static_cast<int64_t>(out.size()), starts.size(), ends.size());
  } else {
    sp = slice_spec(n, static_cast<int64_t>(out.size()));
    for (size_t i = 0; i < sp.axes.size(); ++i)
      starts.push_back(sp.starts[i]), ends.push_back(sp.ends[i]);
  }
  for (size_t i = 0; i < sp.axes.size(); ++i) {
    const SymInt d = out[sp.axes[i]];
    const int64_t step = sp.steps[i];
    if (d.is_const() && starts[i].is_const() && ends[i].is_const()) {
      out[sp.axes[i]] =
          slice_one(*d.as_const(), *starts[i].as_const(), *ends[i].as_const(), step).len;
      continue;
    }
    if (step < 0)
      node_fail(n,
                "a negative step on the symbolic axis {} ({}) is not supported yet; bind the "
                "run-time dims with --dim NAME=N",
                sp.axes[i], d.str());
    SymInt s = clamp_sym_to_dim(n, starts[i], d, false), e = clamp_sym_to_dim(n, ends[i], d, true);
    out[sp.axes[i]] = SymInt::max(SymInt::ceildiv(e - s, step), 0);
  }
  return out;
}
/// The first of starts/ends/axes/steps computed at run time (values_at_run_time), or 0.
size_t run_time_bound_input(const Node &n) {
  if (n.opset < 10 || !input_type(n, 0).is_static() || has_sym_bounds(n))
    return 0;
  for (size_t i = 1; i <= 4; ++i)
    if (values_at_run_time(n, i))
      return i;
  return 0;
}

/// Checks starts/ends/axes/steps for onnxc_k_slice_rt: 1-D, one index type, as many as starts.
void check_run_time_bounds(const Node &n) {
  const DType t = input_dtype(n, 1);
  const int64_t count = product(input_dims(n, 1));
  for (size_t i = 1; i <= 4; ++i)
    if (n.has_input(i) && (input_dtype(n, i) != t || (t != DType::Int32 && t != DType::Int64) ||
                           input_dims(n, i).size() != 1 || product(input_dims(n, i)) != count))
      node_fail(n,
                "starts, ends, axes and steps must be 1-D tensors of one index type (int32 or "
                "int64) and length; input {} is {}",
                i, shape_to_string(n.inputs[i]->type));
  if (count > static_cast<int64_t>(input_dims(n, 0).size()))
    node_fail(n, "{} starts for an input of rank {}", count, input_dims(n, 0).size());
}
} // namespace

const OpDef &op_Slice() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Slice";
    d.attrs = {{"starts", Attribute::Kind::Ints},
               {"ends", Attribute::Kind::Ints},
               {"axes", Attribute::Kind::Ints}};
    d.run_time_shaped_input = true;
    d.infer = [](Node &n) {
      if (const Value *x = n.inputs[0]; !x->run_time_shape_from.empty()) { // dims of the run
        if (n.opset < 10)
          node_fail(n,
                    "input '{}' has a shape that values computed at run time decide, which "
                    "Slice supports from opset 10 (starts and ends as inputs); {}",
                    x->name, x->run_time_shape_trace);
        check_run_time_bounds(n);
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), input_dims(n, 0), 0,
                                   x->run_time_bounded); // within x's bound, where x is
        n.outputs[0]->run_time_shape_from = x->run_time_shape_from;
        n.outputs[0]->run_time_shape_trace = x->run_time_shape_trace;
        return;
      }
      if (size_t from = run_time_bound_input(n)) {
        check_run_time_bounds(n);
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), input_dims(n, 0), from, true);
        return;
      }
      if (!input_type(n, 0).is_static() || has_sym_bounds(n)) {
        set_output_sym(n, 0, input_dtype(n, 0), slice_sym_dims(n));
        return;
      }
      std::vector<int64_t> out;
      for (const SliceAxis &a : slice_axes(n))
        out.push_back(a.len);
      set_output(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> in = input_dims(n, 0);
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        onnxc_k::SliceRtParams p{};
        p.elem_bytes = dtype_bits(input_dtype(n, 0)) / 8;
        if (input_dtype(n, 0) == DType::String || dtype_bits(input_dtype(n, 0)) % 8 != 0)
          node_fail(n, "a Slice with bounds given at run time supports numeric and bool tensors");
        p.index_bytes = input_dtype(n, 1) == DType::Int32 ? 4 : 8;
        p.rank = static_cast<int64_t>(in.size());
        std::copy(in.begin(), in.end(), p.dims);
        p.n = product(input_dims(n, 1));
        KernelCall call{"onnxc_k_slice_rt",
                        {n.inputs[0], n.inputs[1], n.inputs[2],
                         n.has_input(3) ? n.inputs[3] : nullptr,
                         n.has_input(4) ? n.inputs[4] : nullptr, n.outputs[0]},
                        {}};
        set_params(call, p);
        if (!n.inputs[0]->run_time_shape_from.empty()) // the run's dims of x
          for (int64_t k = 0; k < p.rank; ++k)
            call.shape_words.push_back(ShapeWord{
                offsetof(onnxc_k::SliceRtParams, dims) / sizeof(int64_t) + static_cast<size_t>(k),
                0, k, 0, 1});
        return call;
      }
      std::vector<SliceAxis> axes = slice_axes(n);
      int64_t base = 0, stride = 1;
      std::vector<int64_t> dims(in.size()), strides(in.size());
      for (size_t k = in.size(); k-- > 0;) {
        dims[k] = axes[k].len;
        strides[k] = axes[k].step * stride;
        base += axes[k].start * stride;
        stride *= in[k];
      }
      return strided_copy_call(n, base, dims, strides);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
