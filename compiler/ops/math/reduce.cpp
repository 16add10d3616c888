// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare,
// ReduceLogSum, ReduceLogSumExp. Axes are an attribute until opset 12 (ReduceSum) / 17 (the
// others) and an optional constant input after; no axes reduces all of them unless
// noop_with_empty_axes=1. keepdims (default 1) keeps reduced axes as size 1.
#include "compiler/ops/op_util.h"

#include <algorithm>

namespace onnxc {

namespace {
const std::initializer_list<DType> kNumericTypes = {
    DType::Float, DType::Double, DType::Int8,   DType::Int16,  DType::Int32,
    DType::Int64, DType::Uint8,  DType::Uint16, DType::Uint32, DType::Uint64};

/// Kernel op codes (templates/cpu/reduce.cpp).
enum ReduceOp { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

/// Per input axis: true if reduced.
std::vector<bool> reduced_axes(const Node &n, size_t rank) {
  int64_t input_from = n.op_type == "ReduceSum" ? 13 : 18;
  std::vector<int64_t> axes;
  bool noop = false;
  if (n.opset < input_from) {
    axes = attr_ints(n, "axes");
  } else {
    noop = attr_int(n, "noop_with_empty_axes", 0) != 0;
    if (n.has_input(1))
      axes = require_constant(n, 1, "axes").to_int64_vector();
  }
  std::vector<bool> red(rank, axes.empty() && !noop);
  for (int64_t a : axes) {
    size_t k = static_cast<size_t>(normalize_axis(n, a, static_cast<int64_t>(rank)));
    if (red[k])
      node_fail(n, "axis {} appears more than once in axes", a);
    red[k] = true;
  }
  return red;
}

OpDef reduce(const char *name, ReduceOp op) {
  OpDef d;
  d.name = name;
  d.attrs = {{"axes", Attribute::Kind::Ints},
             {"keepdims", Attribute::Kind::Int},
             {"noop_with_empty_axes", Attribute::Kind::Int}};
  d.infer = [](Node &n) {
    std::vector<int64_t> in = input_dims(n, 0), out;
    DType t = input_dtype(n, 0);
    if (t == DType::Bool && n.op_type != "ReduceMax" && n.op_type != "ReduceMin")
      node_fail(n, "element type bool is supported by ReduceMax and ReduceMin only");
    if (t != DType::Bool)
      require_dtype(n, t, kNumericTypes);
    std::vector<bool> red = reduced_axes(n, in.size());
    bool keep = attr_int(n, "keepdims", 1) != 0;
    for (size_t k = 0; k < in.size(); ++k)
      if (!red[k] || keep)
        out.push_back(red[k] ? 1 : in[k]);
    set_output(n, 0, input_dtype(n, 0), out);
  };
  d.lower = [op](const Node &n) {
    std::vector<int64_t> in = input_dims(n, 0);
    std::vector<bool> red = reduced_axes(n, in.size());
    std::vector<int64_t> strides(in.size(), 1);
    for (size_t k = in.size(); k-- > 1;)
      strides[k - 1] = strides[k] * in[k];
    std::vector<int64_t> kd, ks, rd, rs;
    for (size_t k = 0; k < in.size(); ++k) {
      (red[k] ? rd : kd).push_back(in[k]);
      (red[k] ? rs : ks).push_back(strides[k]);
    }
    std::vector<int64_t> params{op, static_cast<int64_t>(kd.size())};
    params.insert(params.end(), kd.begin(), kd.end());
    params.insert(params.end(), ks.begin(), ks.end());
    params.push_back(static_cast<int64_t>(rd.size()));
    params.insert(params.end(), rd.begin(), rd.end());
    params.insert(params.end(), rs.begin(), rs.end());
    return KernelCall{
        kernel_name(n, "reduce", input_dtype(n, 0)), {n.inputs[0], n.outputs[0]}, params};
  };
  return d;
}
} // namespace

#define ONNXC_REDUCE_OP(Name, code)                                                                \
  const OpDef &op_##Name() {                                                                       \
    static const OpDef def = reduce(#Name, code);                                                  \
    return def;                                                                                    \
  }
ONNXC_REDUCE_OP(ReduceSum, kSum)
ONNXC_REDUCE_OP(ReduceMean, kMean)
ONNXC_REDUCE_OP(ReduceMax, kMax)
ONNXC_REDUCE_OP(ReduceMin, kMin)
ONNXC_REDUCE_OP(ReduceProd, kProd)
ONNXC_REDUCE_OP(ReduceL1, kL1)
ONNXC_REDUCE_OP(ReduceL2, kL2)
ONNXC_REDUCE_OP(ReduceSumSquare, kSumSquare)
ONNXC_REDUCE_OP(ReduceLogSum, kLogSum)
ONNXC_REDUCE_OP(ReduceLogSumExp, kLogSumExp)
#undef ONNXC_REDUCE_OP

} // namespace onnxc
