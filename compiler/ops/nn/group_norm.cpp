// GroupNormalization (opsets 18 and 21): float/double (float16 is computed in float by the
// half promotion); scale and bias per group (opset 18) or per channel (21). Kernel:
// templates/cpu/group_norm.cpp.
#include "compiler/ops/nn/nn_util.h"
#include "templates/cpu/group_norm_params.h"

namespace onnxc {
namespace {

onnxc_k::GroupNormParams group_norm_params(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() < 2)
    node_fail(n, "X must be N x C x ... (rank >= 2), got {}", dims_to_string(x));
  onnxc_k::GroupNormParams p{};
  p.n = x[0];
  p.channels = x[1];
  p.spatial = product({x.begin() + 2, x.end()});
  p.groups = attr_int(n, "num_groups", 0);
  if (p.groups < 1 || p.channels % p.groups != 0)
    node_fail(n, "num_groups ({}) must be positive and divide the channel count ({})", p.groups,
              p.channels);
  p.per_group = n.opset < 21 ? 1 : 0;
  int64_t want = p.per_group ? p.groups : p.channels;
  for (size_t i : {size_t(1), size_t(2)})
    if (input_dims(n, i) != std::vector<int64_t>{want})
      node_fail(n, "{} must have shape [{}] (one value per {}), got {}", i == 1 ? "scale" : "bias",
                want, p.per_group ? "group" : "channel", dims_to_string(input_dims(n, i)));
  p.epsilon = attr_float(n, "epsilon", 1e-5f);
  return p;
}

} // namespace

const OpDef &op_GroupNormalization() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "GroupNormalization";
    d.batch_transparent = true;
    d.min_opset = 18;
    d.attrs = {{"num_groups", Attribute::Kind::Int, true},
               {"epsilon", Attribute::Kind::Float},
               {"stash_type", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double});
      require_inputs_dtype(n, dt, 1, 3);
      group_norm_params(n);
      set_output(n, 0, dt, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      KernelCall call;
      call.kernel = kernel_name(n, "group_norm", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]};
      set_params(call, group_norm_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
