// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare,
// ReduceLogSum, ReduceLogSumExp. Axes are an attribute until opset 12 (ReduceSum) / 17 (the
// others) and an optional constant input after; no axes reduces all of them unless
// noop_with_empty_axes=1. keepdims (default 1) keeps reduced axes as size 1.
// Axes computed at run time: the output is then shaped at run time (Value::run_time_shape_from,
// graph outputs only) by onnxc_k_reduce_axes_<dtype>, planned for its largest shape.
#include "compiler/ops/op_util.h"
#include "templates/cpu/reduce_params.h"

#include <algorithm>

namespace onnxc {

namespace {
const std::initializer_list<DType> kNumericTypes = {
    DType::Float, DType::Double, DType::Int8,   DType::Int16,  DType::Int32,
    DType::Int64, DType::Uint8,  DType::Uint16, DType::Uint32, DType::Uint64};

/// Kernel op codes (templates/cpu/reduce.cpp).
enum ReduceOp { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

/// True if the axes are an input computed at run time.
bool axes_at_run_time(const Node &n) {
  return n.opset >= (n.op_type == "ReduceSum" ? 13 : 18) && n.has_input(1) &&
         !n.inputs[1]->constant;
}

/// Output type of a reduction over axes computed at run time: the input's dims (at least 1)
/// with keepdims, else a rank of rank - len(axes) whose first dim holds every element.
void infer_axes_at_run_time(Node &n, const std::vector<int64_t> &in) {
  const std::vector<int64_t> a = input_dims(n, 1);
  if (n.inputs[1]->type.dtype != DType::Int64 || a.size() != 1)
    node_fail(n, "axes must be a 1-D int64 tensor, it is {}", shape_to_string(n.inputs[1]->type));
  if (in.size() > 8 || a[0] > static_cast<int64_t>(in.size()))
    node_fail(n, "{} axes for an input of rank {}{}", a[0], in.size(),
              in.size() > 8 ? " (axes given at run time support rank 8 at most)" : "");
  std::vector<int64_t> bound;
  int64_t all = 1;
  for (int64_t d : in) {
    bound.push_back(std::max<int64_t>(d, 1));
    all *= std::max<int64_t>(d, 1);
  }
  const bool noop = attr_int(n, "noop_with_empty_axes", 0) != 0;
  if (attr_int(n, "keepdims", 1) == 0) {
    const size_t rank = a[0] == 0 ? (noop ? in.size() : 0) : in.size() - a[0];
    bound.assign(rank, 1);
    if (rank > 0)
      bound[0] = all;
  }
  set_output(n, 0, input_dtype(n, 0), bound);
  n.outputs[0]->run_time_shape_from = n.inputs[1]->name;
  n.outputs[0]->run_time_shape_trace = computed_from(n.inputs[1]);
  n.outputs[0]->run_time_shape_root = n.outputs[0]->name;
  n.outputs[0]->run_time_bounded = true; // onnxc_k_reduce_axes_* write at the output
}

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
    if (axes_at_run_time(n)) {
      infer_axes_at_run_time(n, in);
      return;
    }
    std::vector<bool> red = reduced_axes(n, in.size());
    bool keep = attr_int(n, "keepdims", 1) != 0;
    for (size_t k = 0; k < in.size(); ++k)
      if (!red[k] || keep)
        out.push_back(red[k] ? 1 : in[k]);
    set_output(n, 0, input_dtype(n, 0), out);
  };
  d.lower = [op](const Node &n) {
    std::vector<int64_t> in = input_dims(n, 0);
    if (axes_at_run_time(n)) {
      onnxc_k::ReduceAxesParams p{};
      p.op = op;
      p.rank = static_cast<int64_t>(in.size());
      std::copy(in.begin(), in.end(), p.dims);
      p.keepdims = attr_int(n, "keepdims", 1) != 0;
      p.noop_with_empty_axes = attr_int(n, "noop_with_empty_axes", 0) != 0;
      p.naxes = product(input_dims(n, 1));
      KernelCall call{kernel_name(n, "reduce_axes", input_dtype(n, 0)),
                      {n.inputs[0], n.inputs[1], n.outputs[0]},
                      {}};
      set_params(call, p);
      return call;
    }
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
