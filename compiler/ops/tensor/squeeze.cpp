// Squeeze / Unsqueeze: remove / insert size-1 dims. Axes come from the `axes` attribute before
// opset 13 and from the (constant) `axes` input from 13 on. Both lower to a byte copy.
#include "compiler/ops/sym_util.h"

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
  return KernelCall{"onnxc_k_copy", {n.inputs[0], n.outputs[0]}, {type_bytes(n.outputs[0]->type)}};
}

const OpDef &op_Squeeze() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Squeeze";
    d.attrs = {{"axes", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
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
