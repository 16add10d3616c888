// Flatten: [d0..d(axis-1)] x [d(axis)..] as a 2-D tensor (axis in [-rank, rank], default 1).
// Lowers to a byte copy.
#include "compiler/ops/sym_util.h"

namespace onnxc {

const OpDef &op_Flatten() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Flatten";
    d.attrs = {{"axis", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      std::vector<SymInt> in = input_sym_dims(n, 0);
      int64_t rank = static_cast<int64_t>(in.size()), axis = attr_int(n, "axis", 1);
      if (axis < -rank || axis > rank)
        node_fail(n, "axis {} is out of range [{}, {}]", axis, -rank, rank);
      if (axis < 0)
        axis += rank;
      SymInt outer = sym_product({in.begin(), in.begin() + axis});
      SymInt inner = sym_product({in.begin() + axis, in.end()});
      set_output_sym(n, 0, input_dtype(n, 0), {outer, inner});
    };
    d.lower = [](const Node &n) {
      return rename_call(n);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
