// Squeeze / Unsqueeze: remove / insert size-1 dims. Axes come from the `axes` attribute before
// opset 13 and from the `axes` input from 13 on. Both lower to a byte copy; with axes computed
// at run time, to onnxc_k_shape_copy, which checks them and reports the output's shape
// (Value::run_time_shape_from).
#include "compiler/ops/sym_util.h"
#include "templates/cpu/shaped_params.h"

#include <algorithm>

namespace onnxc {

/// The axes of a Squeeze/Unsqueeze node (attribute or constant input), unnormalised; `given`
/// tells whether any were specified.
static std::vector<int64_t> squeeze_axes(const Node &n, bool &given) {
  if (n.opset < 13) {
    given = has_attr(n, "axes");
    return attr_ints(n, "axes");
  }
  given = n.has_input(1);
  return given ? require_constant(n, 1, "axes").to_int64_vector() : std::vector<int64_t>{};
}

static std::vector<int64_t> normalized_unique(const Node &n, std::vector<int64_t> axes,
                                              int64_t rank) {
  for (int64_t &a : axes)
    a = normalize_axis(n, a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    node_fail(n, "axes contain a repeated axis");
  return axes;
}

static KernelCall copy_call(const Node &n) {
  if (!n.outputs[0]->run_time_shape_from.empty())
    return shape_copy_call(n, n.op_type == "Squeeze" ? onnxc_k::kShapeSqueeze
                                                     : onnxc_k::kShapeUnsqueeze);
  return rename_call(n);
}

/// Squeeze / Unsqueeze with axes computed at run time: the output's rank (from the number of
/// axes) and a bound holding every element; false if the axes are known.
static bool infer_axes_at_run_time(Node &n) {
  if (n.opset < 13 || !input_type(n, 0).is_static() || !values_at_run_time(n, 1))
    return false;
  const std::vector<int64_t> in = input_dims(n, 0), a = input_dims(n, 1);
  if (a.size() != 1 || input_dtype(n, 1) != DType::Int64)
    node_fail(n, "axes must be a 1-D int64 tensor, it is {}", shape_to_string(n.inputs[1]->type));
  size_t rank =
      n.op_type == "Unsqueeze" ? in.size() + a[0] : in.size() - std::min<size_t>(in.size(), a[0]);
  if (n.op_type == "Squeeze" && a[0] == 0) // no axes: every dim of size 1 goes
    rank = in.size() - std::count(in.begin(), in.end(), 1);
  std::vector<int64_t> bound(rank, 1);
  if (rank > 0)
    bound[0] = product(in);
  set_run_time_shaped_output(n, 0, input_dtype(n, 0), bound, 1, true);
  return true;
}

const OpDef &op_Squeeze() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Squeeze";
    d.attrs = {{"axes", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      if (infer_axes_at_run_time(n))
        return;
      std::vector<SymInt> in = input_sym_dims(n, 0), out;
      bool given = false;
      std::vector<int64_t> axes = squeeze_axes(n, given);
      axes = normalized_unique(n, axes, static_cast<int64_t>(in.size()));
      for (int64_t a : axes)
        if (in[static_cast<size_t>(a)] != 1)
          node_fail(n, "cannot squeeze axis {}: its size is {}, not 1 (input {})", a,
                    in[static_cast<size_t>(a)].str(), sym_dims_to_string(in));
      for (size_t k = 0; k < in.size(); ++k) {
        bool drop = given ? std::binary_search(axes.begin(), axes.end(), int64_t(k)) : in[k] == 1;
        if (!drop)
          out.push_back(in[k]);
      }
      set_output_sym(n, 0, input_dtype(n, 0), out);
    };
    d.lower = copy_call;
    return d;
  }();
  return def;
}

const OpDef &op_Unsqueeze() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Unsqueeze";
    d.attrs = {{"axes", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      if (infer_axes_at_run_time(n))
        return;
      std::vector<SymInt> in = input_sym_dims(n, 0);
      bool given = false;
      std::vector<int64_t> axes = squeeze_axes(n, given);
      if (axes.empty())
        node_fail(n, "axes must be given and non-empty");
      int64_t rank = static_cast<int64_t>(in.size() + axes.size());
      axes = normalized_unique(n, axes, rank);
      std::vector<SymInt> out;
      auto next = in.begin();
      for (int64_t k = 0; k < rank; ++k)
        out.push_back(std::binary_search(axes.begin(), axes.end(), k) ? SymInt(1) : *next++);
      set_output_sym(n, 0, input_dtype(n, 0), out);
    };
    d.lower = copy_call;
    return d;
  }();
  return def;
}

} // namespace onnxc
