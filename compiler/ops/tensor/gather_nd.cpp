// GatherND (opsets 11-13, batch_dims from 12): gathers slices of `data` addressed by the last
// axis of `indices` (int64, or int32). Constant indices are checked here; run-time ones by the
// kernel, which fails with INDEX_OUT_OF_RANGE before writing anything.
// Kernel: templates/cpu/gather_nd.cpp.
#include "compiler/ops/op_util.h"

namespace onnxc {
namespace {

struct GatherNdShape {
  int64_t b, q, batch, nidx, inner;
  std::vector<int64_t> out;
};

GatherNdShape gather_nd_shape(const Node &n) {
  std::vector<int64_t> data = input_dims(n, 0), idx = input_dims(n, 1);
  require_dtype(n, input_dtype(n, 1), {DType::Int32, DType::Int64});
  DType dt = input_dtype(n, 0);
  if (dtype_slot_bits(dt) < 8 || dtype_slot_bits(dt) > 64)
    node_fail(n, "element type {} is not supported", dtype_name(dt));
  GatherNdShape s;
  s.b = attr_int(n, "batch_dims", 0);
  if (data.empty() || idx.empty())
    node_fail(n, "data and indices must have rank >= 1");
  s.q = idx.back();
  const int64_t r = static_cast<int64_t>(data.size()), qr = static_cast<int64_t>(idx.size());
  if (s.b < 0 || s.b >= std::min(r, qr))
    node_fail(n, "batch_dims {} must be less than the ranks of data ({}) and indices ({})", s.b, r,
              qr);
  if (s.q < 1 || s.q > r - s.b)
    node_fail(n, "the last dim of indices ({}) must be in [1, {}]", s.q, r - s.b);
  for (int64_t k = 0; k < s.b; ++k)
    if (data[size_t(k)] != idx[size_t(k)])
      node_fail(n, "batch dims of data {} and indices {} differ", dims_to_string(data),
                dims_to_string(idx));
  s.batch = product({data.begin(), data.begin() + s.b});
  s.nidx = product({idx.begin() + s.b, idx.end() - 1});
  s.inner = product({data.begin() + s.b + s.q, data.end()});
  s.out.assign(idx.begin(), idx.end() - 1);
  s.out.insert(s.out.end(), data.begin() + s.b + s.q, data.end());
  if (const Tensor *t = input_constant(n, 1))
    for (int64_t i = 0; i < t->numel(); ++i) {
      const int64_t len = data[size_t(s.b + i % s.q)], v = t->int_at(i);
      if (v < -len || v >= len)
        node_fail(n, "index {} (element {} of the indices) is out of range for an axis of size {}",
                  v, i, len);
    }
  return s;
}

} // namespace

const OpDef &op_GatherND() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "GatherND";
    d.min_opset = 11;
    d.attrs = {{"batch_dims", Attribute::Kind::Int}};
    d.infer = [](Node &n) { set_output(n, 0, input_dtype(n, 0), gather_nd_shape(n).out); };
    d.lower = [](const Node &n) {
      GatherNdShape s = gather_nd_shape(n);
      std::vector<int64_t> data = input_dims(n, 0);
      std::vector<int64_t> params{dtype_slot_bits(input_dtype(n, 0)) / 8,
                                  dtype_bits(input_dtype(n, 1)) / 8,
                                  s.batch,
                                  s.nidx,
                                  s.q,
                                  s.inner,
                                  product({data.begin() + s.b, data.end()})};
      for (int64_t k = 0; k < s.q; ++k)
        params.push_back(data[size_t(s.b + k)]);
      for (int64_t k = 0; k < s.q; ++k)
        params.push_back(product({data.begin() + s.b + k + 1, data.end()}));
      return call_on_all(n, "onnxc_k_gather_nd", params);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
