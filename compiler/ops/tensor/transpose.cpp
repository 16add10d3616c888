// Transpose: permutes axes (default: reverses them). Any fixed-size dtype.
#include "compiler/ops/sym_util.h"
#include "compiler/ops/tensor/strided_copy.h"

namespace onnxc {

static std::vector<int64_t> transpose_perm(const Node &n, int64_t rank) {
  std::vector<int64_t> perm = attr_ints(n, "perm");
  if (perm.empty())
    for (int64_t k = rank - 1; k >= 0; --k)
      perm.push_back(k);
  if (static_cast<int64_t>(perm.size()) != rank)
    node_fail(n, "perm has {} entries but the input has rank {}", perm.size(), rank);
  std::vector<bool> seen(static_cast<size_t>(rank));
  for (int64_t &p : perm) {
    p = normalize_axis(n, p, rank);
    if (seen[static_cast<size_t>(p)])
      node_fail(n, "perm is not a permutation (axis {} repeats)", p);
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

const OpDef &op_Transpose() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Transpose";
    d.attrs = {{"perm", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      std::vector<SymInt> in = input_sym_dims(n, 0), out;
      for (int64_t p : transpose_perm(n, static_cast<int64_t>(in.size())))
        out.push_back(in[static_cast<size_t>(p)]);
      set_output_sym(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> in = input_dims(n, 0), out = output_dims(n, 0);
      int64_t rank = static_cast<int64_t>(in.size());
      std::vector<int64_t> in_strides(in.size(), 1);
      for (int64_t k = rank - 2; k >= 0; --k)
        in_strides[k] = in_strides[k + 1] * in[k + 1];
      std::vector<int64_t> strides;
      for (int64_t p : transpose_perm(n, rank))
        strides.push_back(in_strides[static_cast<size_t>(p)]);
      return strided_copy_call(n, 0, out, strides);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
