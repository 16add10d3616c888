// Softmax and LogSoftmax. Opset < 13: the input is coerced to 2-D at `axis` (default 1) and
// normalised over the flattened trailing part; opset >= 13: along `axis` (default -1).
// float/double; kernel templates/cpu/softmax.cpp.
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/sym_util.h"

namespace onnxc {
namespace {

/// {outer, len, inner} of the [outer, len, inner] view the kernel normalises along `len`.
std::vector<int64_t> softmax_view(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0);
  const int64_t rank = static_cast<int64_t>(x.size());
  const bool legacy = n.opset > 0 && n.opset < 13;
  const int64_t axis = normalize_axis(n, attr_int(n, "axis", legacy ? 1 : -1), rank);
  std::vector<int64_t> v{1, 1, 1};
  for (int64_t i = 0; i < rank; ++i)
    v[i < axis ? 0 : (i == axis || legacy) ? 1 : 2] *= x[i];
  return v;
}

OpDef softmax_def(const char *name, bool log) {
  OpDef d;
  d.name = name;
  d.attrs = {{"axis", Attribute::Kind::Int}};
  d.infer = [](Node &n) {
    require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
    if (input_type(n, 0).is_static())
      softmax_view(n);
    else // symbolic dims: the axis must be valid; the view is decided when dims are bound
      normalize_axis(n, attr_int(n, "axis", n.opset >= 13 ? -1 : 1), input_type(n, 0).rank());
    set_output_sym(n, 0, input_dtype(n, 0), input_sym_dims(n, 0));
  };
  d.lower = [log](const Node &n) {
    std::vector<int64_t> v = softmax_view(n);
    /* fuse-causal-mask: {L, off} (rows along the last axis, inner 1); else {0, 0} */
    const Attribute *causal = n.attr(kCausalAttr);
    const int64_t L = causal ? causal->ints.at(0) : 0, off = causal ? causal->ints.at(1) : 0;
    if (causal && (log || v[2] != 1 || L <= 0 || v[0] % L != 0))
      node_fail(n, "internal: a causal Softmax must be along the last axis of [.., L, T]");
    return call_on_all(n, kernel_name(n, "softmax", input_dtype(n, 0)),
                       {v[0], v[1], v[2], log, L, off});
  };
  return d;
}

} // namespace

const OpDef &op_Softmax() {
  static const OpDef def = softmax_def("Softmax", false);
  return def;
}

const OpDef &op_LogSoftmax() {
  static const OpDef def = softmax_def("LogSoftmax", true);
  return def;
}

} // namespace onnxc
