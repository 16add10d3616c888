// ArgMax / ArgMin: int64 index of the largest / smallest element along `axis` (first occurrence,
// or the last with select_last_index=1, opset 12). keepdims (default 1) keeps the axis as size 1.
#include "compiler/ops/op_util.h"

namespace onnxc {

static OpDef arg_reduce(const char *name, bool is_min) {
  OpDef d;
  d.name = name;
  d.attrs = {{"axis", Attribute::Kind::Int},
             {"keepdims", Attribute::Kind::Int},
             {"select_last_index", Attribute::Kind::Int}};
  d.infer = [](Node &n) {
    std::vector<int64_t> in = input_dims(n, 0);
    require_dtype(n, input_dtype(n, 0),
                  {DType::Float, DType::Double, DType::Int8, DType::Int16, DType::Int32,
                   DType::Int64, DType::Uint8, DType::Uint16, DType::Uint32, DType::Uint64});
    if (in.empty())
      node_fail(n, "input must have rank >= 1");
    size_t axis = static_cast<size_t>(
        normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(in.size())));
    if (in[axis] == 0)
      node_fail(n, "cannot take the arg-max/min of the empty axis {}", axis);
    if (attr_int(n, "keepdims", 1))
      in[axis] = 1;
    else
      in.erase(in.begin() + static_cast<int64_t>(axis));
    set_output(n, 0, DType::Int64, in);
  };
  d.lower = [is_min](const Node &n) {
    std::vector<int64_t> in = input_dims(n, 0);
    size_t axis = static_cast<size_t>(
        normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(in.size())));
    int64_t last = n.opset >= 12 ? attr_int(n, "select_last_index", 0) : 0;
    return KernelCall{kernel_name(n, "arg", input_dtype(n, 0)),
                      {n.inputs[0], n.outputs[0]},
                      {is_min, last != 0, product({in.begin(), in.begin() + axis}), in[axis],
                       product({in.begin() + axis + 1, in.end()})}};
  };
  return d;
}

const OpDef &op_ArgMax() {
  static const OpDef def = arg_reduce("ArgMax", false);
  return def;
}

const OpDef &op_ArgMin() {
  static const OpDef def = arg_reduce("ArgMin", true);
  return def;
}

} // namespace onnxc
