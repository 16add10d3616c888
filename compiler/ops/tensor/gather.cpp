// Gather (take slices along `axis` at the given indices) and GatherElements (take one element
// per index along `axis`). Indices are int32 or int64; negative ones count from the end.
// Constant indices are checked here; run-time ones by the kernel (INDEX_OUT_OF_RANGE).
#include "compiler/ops/sym_util.h"

namespace onnxc {

namespace {
int64_t gather_elem_bytes(const Node &n) {
  DType t = input_dtype(n, 0);
  int bits = dtype_slot_bits(t);
  if (bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(t));
  require_dtype(n, input_dtype(n, 1), {DType::Int32, DType::Int64});
  return bits / 8;
}

/// Throws if a constant index is outside [-len, len).
void check_constant_indices(const Node &n, int64_t len) {
  const Tensor *idx = input_constant(n, 1);
  if (!idx)
    return;
  for (int64_t i = 0; i < idx->numel(); ++i) {
    int64_t v = idx->int_at(i);
    if (v < -len || v >= len)
      node_fail(n, "index {} (element {} of the indices) is out of range for an axis of size {}", v,
                i, len);
  }
}

size_t gather_axis(const Node &n) {
  return static_cast<size_t>(
      normalize_axis(n, attr_int(n, "axis", 0), input_type(n, 0).rank()));
}
} // namespace

const OpDef &op_Gather() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Gather";
    d.attrs = {{"axis", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      std::vector<SymInt> data = input_sym_dims(n, 0), idx = input_sym_dims(n, 1);
      gather_elem_bytes(n);
      if (data.empty())
        node_fail(n, "cannot gather from a scalar");
      size_t axis = gather_axis(n);
      if (auto extent = data[axis].as_const())
        check_constant_indices(n, *extent);
      std::vector<SymInt> out(data.begin(), data.begin() + axis);
      out.insert(out.end(), idx.begin(), idx.end());
      out.insert(out.end(), data.begin() + axis + 1, data.end());
      set_output_sym(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> data = input_dims(n, 0);
      size_t axis = gather_axis(n);
      return call_on_all(n, "onnxc_k_gather",
                         {gather_elem_bytes(n), dtype_bits(input_dtype(n, 1)) / 8,
                          product({data.begin(), data.begin() + axis}), data[axis],
                          product({data.begin() + axis + 1, data.end()}),
                          product(input_dims(n, 1))});
    };
    return d;
  }();
  return def;
}

const OpDef &op_GatherElements() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "GatherElements";
    d.min_opset = 11;
    d.attrs = {{"axis", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      std::vector<int64_t> data = input_dims(n, 0), idx = input_dims(n, 1);
      gather_elem_bytes(n);
      if (data.empty() || idx.size() != data.size())
        node_fail(n, "indices {} must have the same rank as the data {} (at least 1)",
                  dims_to_string(idx), dims_to_string(data));
      size_t axis = gather_axis(n);
      for (size_t k = 0; k < data.size(); ++k)
        if (k != axis && idx[k] > data[k])
          node_fail(n, "indices {} are larger than the data {} along axis {}", dims_to_string(idx),
                    dims_to_string(data), k);
      check_constant_indices(n, data[axis]);
      set_output(n, 0, input_dtype(n, 0), idx);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> data = input_dims(n, 0), idx = input_dims(n, 1);
      size_t axis = gather_axis(n);
      std::vector<int64_t> params{gather_elem_bytes(n), dtype_bits(input_dtype(n, 1)) / 8,
                                  static_cast<int64_t>(data.size()), static_cast<int64_t>(axis),
                                  data[axis]};
      params.insert(params.end(), idx.begin(), idx.end());
      std::vector<int64_t> strides(data.size(), 1);
      for (size_t k = data.size() - 1; k-- > 0;)
        strides[k] = strides[k + 1] * data[k + 1];
      params.insert(params.end(), strides.begin(), strides.end());
      return call_on_all(n, "onnxc_k_gather_elements", params);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
