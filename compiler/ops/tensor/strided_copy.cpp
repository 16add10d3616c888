#include "compiler/ops/tensor/strided_copy.h"
#include "compiler/ops/op_util.h"
#include "templates/cpu/strided_copy.h"

namespace onnxc {

KernelCall strided_copy_call(const Node &n, int64_t base, const std::vector<int64_t> &dims,
                             const std::vector<int64_t> &strides) {
  const DType dt = input_dtype(n, 0);
  const int bits = dtype_slot_bits(dt);
  if (bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(dt));
  // Merge, from the innermost dim outwards: dim k folds into the one after it when stepping k
  // by one equals stepping the later one over its whole extent.
  std::vector<int64_t> d, s; // innermost first
  bool empty = false;
  for (size_t k = dims.size(); k-- > 0;) {
    empty |= dims[k] == 0;
    if (dims[k] == 1)
      continue;
    if (!d.empty() && strides[k] == s.back() * d.back()) {
      d.back() *= dims[k];
      continue;
    }
    d.push_back(dims[k]);
    s.push_back(strides[k]);
  }
  if (empty)
    d.assign(1, 0), s.assign(1, 1);
  if (d.size() > static_cast<size_t>(onnxc_k::kMaxCopyRank))
    node_fail(n, "the copy has {} dims that cannot be merged; at most {} are supported", d.size(),
              onnxc_k::kMaxCopyRank);
  onnxc_k::StridedCopyParams p{};
  p.elem_bytes = bits / 8;
  p.rank = static_cast<int64_t>(d.size());
  p.base = empty ? 0 : base;
  for (size_t k = 0; k < d.size(); ++k) {
    p.dims[d.size() - 1 - k] = d[k];
    p.strides[d.size() - 1 - k] = s[k];
  }
  KernelCall call{"onnxc_k_strided_copy", {n.inputs[0], n.outputs[0]}, {}};
  set_params(call, p);
  return call;
}

} // namespace onnxc
