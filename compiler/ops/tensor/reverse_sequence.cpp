// ReverseSequence (opset 10+): reverses the first sequence_lens[b] steps along time_axis of
// every batch entry b (time_axis/batch_axis: 0 and 1 in either order). Any element type; the
// lengths are checked at run time. Kernel templates/cpu/misc_ops.cpp.
#include "compiler/ops/op_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {
onnxc_k::ReverseSequenceParams reverse_sequence_params(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() < 2)
    node_fail(n, "input must have rank >= 2, got shape {}", dims_to_string(x));
  const int64_t time_axis = attr_int(n, "time_axis", 0), batch_axis = attr_int(n, "batch_axis", 1);
  if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0)))
    node_fail(n, "time_axis and batch_axis must be 0 and 1 (in either order), got {} and {}",
              time_axis, batch_axis);
  if (input_dtype(n, 1) != DType::Int64)
    node_fail(n, "sequence_lens must be int64, got {}", dtype_name(input_dtype(n, 1)));
  if (input_dims(n, 1) != std::vector<int64_t>{x[static_cast<size_t>(batch_axis)]})
    node_fail(n, "sequence_lens must have shape [{}] (the batch size), got {}",
              x[static_cast<size_t>(batch_axis)], dims_to_string(input_dims(n, 1)));
  if (dtype_bits(input_dtype(n, 0)) % 8 != 0)
    node_fail(n, "element type {} is not supported", dtype_name(input_dtype(n, 0)));
  onnxc_k::ReverseSequenceParams p{};
  p.time_axis = time_axis;
  p.time = x[static_cast<size_t>(time_axis)];
  p.batch = x[static_cast<size_t>(batch_axis)];
  p.inner_bytes = product({x.begin() + 2, x.end()}) * dtype_bits(input_dtype(n, 0)) / 8;
  return p;
}
} // namespace

const OpDef &op_ReverseSequence() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "ReverseSequence";
    d.min_opset = 10;
    d.attrs = {{"batch_axis", Attribute::Kind::Int}, {"time_axis", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      reverse_sequence_params(n);
      set_output(n, 0, input_dtype(n, 0), input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      KernelCall call = call_on_all(n, "onnxc_k_reverse_sequence", {});
      set_params(call, reverse_sequence_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
