// Concat: joins inputs along `axis` (negative from opset 11). All inputs need the same dtype,
// rank and dims except along the axis; zero-size inputs are allowed.
#include "compiler/ops/sym_util.h"

namespace onnxc {

static int64_t concat_elem_bytes(const Node &n, DType t) {
  int bits = dtype_slot_bits(t);
  if (bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(t));
  return bits / 8;
}

const OpDef &op_Concat() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Concat";
    d.min_opset = 4;
    d.attrs = {{"axis", Attribute::Kind::Int, true}};
    d.infer = [](Node &n) {
      if (num_inputs(n) == 0)
        node_fail(n, "needs at least one input");
      std::vector<SymInt> out = input_sym_dims(n, 0);
      int64_t rank = static_cast<int64_t>(out.size());
      if (rank == 0)
        node_fail(n, "cannot concatenate scalars (rank 0)");
      if (!has_attr(n, "axis"))
        node_fail(n, "attribute 'axis' is required");
      size_t axis = static_cast<size_t>(normalize_axis(n, attr_int(n, "axis", 0), rank));
      for (size_t i = 1; i < num_inputs(n); ++i) {
        std::vector<SymInt> in = input_sym_dims(n, i);
        if (input_dtype(n, i) != input_dtype(n, 0))
          node_fail(n, "input {} has element type {} but input 0 has {}", i,
                    dtype_name(input_dtype(n, i)), dtype_name(input_dtype(n, 0)));
        bool same = in.size() == out.size();
        for (size_t k = 0; same && k < in.size(); ++k)
          same = k == axis || in[k] == out[k];
        if (!same)
          node_fail(n,
                    "input {} has shape {}, which does not match input 0's {} except along "
                    "axis {}",
                    i, sym_dims_to_string(in), sym_dims_to_string(input_sym_dims(n, 0)), axis);
        out[axis] = out[axis] + in[axis];
      }
      set_output_sym(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> out = output_dims(n, 0);
      size_t axis = static_cast<size_t>(
          normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(out.size())));
      int64_t outer = product({out.begin(), out.begin() + axis});
      int64_t inner = product({out.begin() + axis + 1, out.end()});
      std::vector<int64_t> params{concat_elem_bytes(n, input_dtype(n, 0)), outer,
                                  static_cast<int64_t>(num_inputs(n))};
      for (size_t i = 0; i < num_inputs(n); ++i)
        params.push_back(input_dims(n, i)[axis] * inner);
      KernelCall c{"onnxc_k_concat", {n.inputs.begin(), n.inputs.begin() + num_inputs(n)}, params};
      c.args.push_back(n.outputs[0]);
      return c;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
