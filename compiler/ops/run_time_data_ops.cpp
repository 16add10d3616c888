// N-D ops of values shaped at run time with no bound (run_time_data_ops.h).
#include "compiler/ops/run_time_data_ops.h"

#include <algorithm>
#include <cstddef>

#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "templates/cpu/run_time_data_params.h"

namespace onnxc {
namespace {

using onnxc_k::RtDataOp;

std::optional<RtDataOp> op_of(const Node &n) {
  if (!n.domain.empty())
    return std::nullopt;
  static const std::pair<const char *, RtDataOp> kOps[] = {
      {"Transpose", onnxc_k::kRtTranspose},
      {"Reshape", onnxc_k::kRtReshape},
      {"Squeeze", onnxc_k::kRtSqueeze},
      {"Unsqueeze", onnxc_k::kRtUnsqueeze},
      {"Concat", onnxc_k::kRtConcat},
      {"MatMul", onnxc_k::kRtMatMul},
      {"Add", onnxc_k::kRtAdd},
      {"Sub", onnxc_k::kRtSub},
      {"Mul", onnxc_k::kRtMul},
      {"Div", onnxc_k::kRtDiv},
      {"GatherElements", onnxc_k::kRtGatherElements},
      {"Split", onnxc_k::kRtSplit}};
  for (const auto &[name, op] : kOps)
    if (n.op_type == name)
      return op;
  return std::nullopt;
}

bool arithmetic(RtDataOp op) { return op >= onnxc_k::kRtAdd && op <= onnxc_k::kRtDiv; }

/// The inputs whose data the op reads (Reshape's SHAPE is read as values, not as data).
size_t data_inputs(const Node &n, RtDataOp op) {
  switch (op) {
  case onnxc_k::kRtTranspose:
  case onnxc_k::kRtReshape:
  case onnxc_k::kRtSqueeze:
  case onnxc_k::kRtUnsqueeze:
  case onnxc_k::kRtSplit:
    return 1;
  case onnxc_k::kRtGatherElements:
    return 2;
  default:
    return n.inputs.size();
  }
}

onnxc_k::RtDataType rt_type(DType t) {
  switch (t) {
  case DType::Float:
    return onnxc_k::kRtF32;
  case DType::Double:
    return onnxc_k::kRtF64;
  case DType::Int32:
    return onnxc_k::kRtI32;
  case DType::Int64:
    return onnxc_k::kRtI64;
  default:
    return onnxc_k::kRtOther;
  }
}

/// Squeeze/Unsqueeze's axes: the attribute before opset 13, else the constant input 1.
std::vector<int64_t> axes_of(const Node &n) {
  if (n.opset < 13)
    return attr_ints(n, "axes", {});
  if (!n.has_input(1))
    return {};
  return require_constant(n, 1, "axes").to_int64_vector();
}

/// Squeeze/Unsqueeze flags: 1 for each dim of `rank` that axes name (normalised, no repeats).
std::vector<int64_t> axis_flags(const Node &n, int64_t rank) {
  std::vector<int64_t> flags(static_cast<size_t>(rank), 0);
  for (int64_t a : axes_of(n)) {
    int64_t k = normalize_axis(n, a, rank);
    if (flags[static_cast<size_t>(k)])
      node_fail(n, "axes contain a repeated axis");
    flags[static_cast<size_t>(k)] = 1;
  }
  return flags;
}

const Value *no_bound_source(const Node &n) {
  for (const Value *v : n.inputs)
    if (v && v->run_time_data())
      return v;
  return nullptr;
}

int64_t rank_of(const Node &n, size_t i) { return static_cast<int64_t>(input_type(n, i).rank()); }

/// The dims of input i the compiler knows (-1 where the run decides).
std::vector<int64_t> known(const Node &n, size_t i) {
  const Value *v = n.inputs[i];
  if (v->run_time_shape_from.empty())
    return v->type.static_dims();
  if (v->run_time_data() && static_cast<int64_t>(v->run_time_dims.size()) == v->type.rank())
    return v->run_time_dims;
  return std::vector<int64_t>(v->type.rank(), -1);
}

/// Split's sizes mode and, for kRtSplitGiven, the sizes.
std::pair<onnxc_k::RtSplitMode, std::vector<int64_t>> split_plan(const Node &n) {
  std::vector<int64_t> sizes;
  if (n.opset < 13)
    sizes = attr_ints(n, "split", {});
  else if (n.has_input(1))
    sizes = require_constant(n, 1, "split").to_int64_vector();
  if (!sizes.empty()) {
    if (sizes.size() != n.outputs.size())
      node_fail(n, "split has {} sizes but the node has {} outputs", sizes.size(),
                n.outputs.size());
    int64_t total = 0;
    for (int64_t v : sizes)
      if (v < 0 || __builtin_add_overflow(total, v, &total))
        node_fail(n, "split size {} is negative or the sizes add up to too many elements", v);
    return {onnxc_k::kRtSplitGiven, sizes};
  }
  if (n.opset >= 18 && has_attr(n, "num_outputs")) {
    if (attr_int(n, "num_outputs", 0) != static_cast<int64_t>(n.outputs.size()))
      node_fail(n, "num_outputs is {} but the node has {} outputs", attr_int(n, "num_outputs", 0),
                n.outputs.size());
    return {onnxc_k::kRtSplitCeil, {}};
  }
  return {onnxc_k::kRtSplitEqual, {}};
}

/// Squeeze's RtSqueezeFlag per input dim: the axes given, or (no axes) the dims known to be 1
/// dropped and the unknown ones kept, checked not to be 1 in the run.
std::vector<int64_t> squeeze_flags(const Node &n) {
  const int64_t r0 = rank_of(n, 0);
  if (!axes_of(n).empty())
    return axis_flags(n, r0);
  std::vector<int64_t> flags;
  for (int64_t d : known(n, 0))
    flags.push_back(d == 1 ? onnxc_k::kRtDrop : d < 0 ? onnxc_k::kRtKeepNotOne : onnxc_k::kRtKeep);
  return flags;
}

/// The output dims the compiler knows (-1 where the run decides), from its inputs' (Split:
/// the input's, the axis filled in by the caller).
std::vector<int64_t> known_output_dims(const Node &n, RtDataOp op, int64_t rank) {
  std::vector<int64_t> out(static_cast<size_t>(rank), -1);
  const std::vector<int64_t> x = known(n, 0);
  switch (op) {
  case onnxc_k::kRtTranspose: {
    std::vector<int64_t> perm = attr_ints(n, "perm", {});
    for (int64_t d = 0; d < rank; ++d)
      out[static_cast<size_t>(d)] =
          x[static_cast<size_t>(perm.empty() ? rank - 1 - d : perm[static_cast<size_t>(d)])];
    break;
  }
  case onnxc_k::kRtSqueeze: {
    const std::vector<int64_t> flags = squeeze_flags(n);
    size_t k = 0;
    for (size_t d = 0; d < x.size(); ++d)
      if (flags[d] != onnxc_k::kRtDrop)
        out[k++] = x[d];
    break;
  }
  case onnxc_k::kRtUnsqueeze: {
    const std::vector<int64_t> flags = axis_flags(n, rank);
    for (size_t d = 0, next = 0; d < out.size(); ++d)
      out[d] = flags[d] ? 1 : x[next++];
    break;
  }
  case onnxc_k::kRtGatherElements:
    out = known(n, 1);
    break;
  case onnxc_k::kRtSplit:
    out = x;
    break;
  case onnxc_k::kRtConcat: {
    const auto axis = static_cast<size_t>(normalize_axis(n, attr_int(n, "axis", 0), rank));
    int64_t sum = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const std::vector<int64_t> d = known(n, i);
      for (size_t k = 0; k < out.size(); ++k)
        if (k != axis && out[k] < 0)
          out[k] = d[k];
      sum = sum < 0 || d[axis] < 0 ? -1 : sum + d[axis];
    }
    out[axis] = sum;
    break;
  }
  case onnxc_k::kRtReshape:
  case onnxc_k::kRtMatMul:
    break; // (not needed so far: unknown)
  default: // broadcasting: a known dim above 1 decides, all 1 gives 1
    for (size_t k = 0; k < out.size(); ++k) {
      bool all_one = true;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const std::vector<int64_t> d = known(n, i);
        const auto at = static_cast<int64_t>(k) - (rank - static_cast<int64_t>(d.size()));
        const int64_t v = at < 0 ? 1 : d[static_cast<size_t>(at)];
        if (v > 1 || v == 0)
          out[k] = v;
        all_one = all_one && v == 1;
      }
      if (all_one)
        out[k] = 1;
    }
  }
  return out;
}

} // namespace

bool run_time_data_op_applies(const Node &n, const Graph &g) {
  std::optional<RtDataOp> op = op_of(n);
  const Value *src = no_bound_source(n);
  if (!op || !src || g.parent)
    return false;
  for (const Value *v : n.inputs)
    if (v && !v->run_time_shape_from.empty() && v->run_time_bounded)
      return false; // a bound beside: the existing rules (and their messages)
  if (data_inputs(n, *op) == 1 && !n.inputs[0]->run_time_data())
    return false; // Reshape/Squeeze/Unsqueeze whose shape or axes are data with no bound
  if (!arithmetic(*op))
    return true;
  // Element-wise: follows its source element for element when every other input has the
  // same run-time shape or is one value; then the element-wise path (run_time_shaped_source).
  for (const Value *v : n.inputs) {
    if (!v || v == src)
      continue;
    if (!v->run_time_shape_from.empty()) {
      if (v->run_time_shape_root != src->run_time_shape_root ||
          v->type.static_dims() != src->type.static_dims())
        return true;
    } else if (!v->type.is_static() || v->type.rank() > src->type.rank() ||
               product(v->type.static_dims()) != 1) {
      return true;
    }
  }
  return false;
}

void infer_run_time_data_op(Node &n) {
  const RtDataOp op = *op_of(n);
  const Value *src = no_bound_source(n);
  const DType dt = input_dtype(n, 0);
  const size_t nin = data_inputs(n, op);
  if (nin > static_cast<size_t>(onnxc_k::kRtDataMaxInputs))
    node_fail(n,
              "has {} inputs, one shaped at run time with no bound; onnxc supports {} "
              "inputs at most then",
              nin, onnxc_k::kRtDataMaxInputs);
  for (size_t i = 0; i < nin; ++i) {
    if (!n.inputs[i])
      node_fail(n, "input {} is missing", i);
    if (op == onnxc_k::kRtGatherElements && i == 1) {
      if (input_dtype(n, 1) != DType::Int64 && input_dtype(n, 1) != DType::Int32)
        node_fail(n, "indices must be int32 or int64");
    } else if (input_dtype(n, i) != dt)
      node_fail(n, "its inputs have different element types ({} and {})", dtype_name(dt),
                dtype_name(input_dtype(n, i)));
    if (!n.inputs[i]->type.is_static())
      node_fail(n, "input '{}' has symbolic dims beside a shape decided at run time",
                n.inputs[i]->name);
    if (rank_of(n, i) > 8)
      node_fail(n, "input '{}' has rank {}; onnxc supports rank 8 at most here", n.inputs[i]->name,
                rank_of(n, i));
  }
  if (dt == DType::String || dtype_bits(dt) % 8 != 0)
    node_fail(n,
              "input '{}' has a shape decided at run time with no bound, which {} supports "
              "for numeric and bool tensors only",
              src->name, n.op_type);
  if ((arithmetic(op) || op == onnxc_k::kRtMatMul) && rt_type(dt) == onnxc_k::kRtOther)
    node_fail(n,
              "input '{}' has a shape decided at run time with no bound, which {} supports for "
              "float, double, int32 and int64 only; {}",
              src->name, n.op_type, src->run_time_shape_trace);
  const int64_t r0 = rank_of(n, 0);
  int64_t rank = r0;
  switch (op) {
  case onnxc_k::kRtTranspose: {
    std::vector<int64_t> perm = attr_ints(n, "perm", {});
    if (perm.empty())
      for (int64_t d = r0; d-- > 0;)
        perm.push_back(d);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < sorted.size(); ++k)
      if (sorted[k] != static_cast<int64_t>(k) || sorted.size() != static_cast<size_t>(r0))
        node_fail(n, "perm {} is not a permutation of the input's {} dims", dims_to_string(perm),
                  r0);
    break;
  }
  case onnxc_k::kRtReshape: {
    const Type &s = input_type(n, 1);
    if (s.dtype != DType::Int64 || !s.is_static() || s.rank() != 1)
      node_fail(n, "shape must be a 1-D int64 tensor");
    if (!n.inputs[1]->run_time_shape_from.empty())
      node_fail(n, "shape '{}' is itself shaped at run time; {}", n.inputs[1]->name,
                n.inputs[1]->run_time_shape_trace);
    rank = input_dims(n, 1)[0];
    break;
  }
  case onnxc_k::kRtSqueeze: {
    const std::vector<int64_t> flags = squeeze_flags(n);
    rank = r0 - std::count(flags.begin(), flags.end(), int64_t{onnxc_k::kRtDrop});
    break;
  }
  case onnxc_k::kRtGatherElements:
    if (rank_of(n, 1) != r0 || r0 < 1)
      node_fail(n, "data and indices must have one rank of at least 1, they have {} and {}", r0,
                rank_of(n, 1));
    normalize_axis(n, attr_int(n, "axis", 0), r0);
    break;
  case onnxc_k::kRtSplit:
    if (r0 < 1 || n.outputs.size() > 8 || n.outputs.empty())
      node_fail(n, "a Split of a value shaped at run time takes rank 1 or more and gives 1 to 8 "
                   "outputs");
    normalize_axis(n, attr_int(n, "axis", 0), r0);
    split_plan(n);
    break;
  case onnxc_k::kRtUnsqueeze:
    rank = r0 + static_cast<int64_t>(axes_of(n).size());
    axis_flags(n, rank);
    break;
  case onnxc_k::kRtConcat:
    for (size_t i = 0; i < nin; ++i)
      if (rank_of(n, i) != r0)
        node_fail(n, "its inputs have different ranks ({} and {})", r0, rank_of(n, i));
    normalize_axis(n, attr_int(n, "axis", 0), r0);
    break;
  case onnxc_k::kRtMatMul:
    if (r0 < 2 || rank_of(n, 1) < 2)
      node_fail(n,
                "input '{}' has a shape decided at run time with no bound, which MatMul "
                "supports for inputs of rank 2 or more; {}",
                src->name, src->run_time_shape_trace);
    rank = std::max(r0, rank_of(n, 1));
    break;
  default:
    if (nin != 2)
      node_fail(n, "takes 2 inputs, got {}", nin);
    rank = std::max(r0, rank_of(n, 1));
  }
  if (rank < 0 || rank > 8)
    node_fail(n, "its output would have rank {}; a shape decided at run time supports 0 to 8",
              rank);
  std::vector<std::vector<int64_t>> dims(n.outputs.size(), known_output_dims(n, op, rank));
  if (op == onnxc_k::kRtSplit) { // the parts' sizes where the dim and the plan give them
    const std::vector<int64_t> in = known(n, 0);
    const auto axis = static_cast<size_t>(normalize_axis(n, attr_int(n, "axis", 0), r0));
    auto [mode, sizes] = split_plan(n);
    const auto k = static_cast<int64_t>(n.outputs.size());
    for (int64_t j = 0; j < k; ++j) {
      int64_t len = in[axis], v = -1;
      if (mode == onnxc_k::kRtSplitGiven)
        v = sizes[static_cast<size_t>(j)];
      else if (len >= 0 && mode == onnxc_k::kRtSplitEqual)
        v = len % k == 0 ? len / k : -1;
      else if (len >= 0)
        v = std::max<int64_t>(0, std::min((len + k - 1) / k, len - j * ((len + k - 1) / k)));
      dims[static_cast<size_t>(j)][axis] = v;
    }
  }
  for (size_t j = 0; j < n.outputs.size(); ++j) {
    if (!n.outputs[j])
      continue;
    set_output(n, j, dt, std::vector<int64_t>(static_cast<size_t>(rank), 1));
    Value *o = n.outputs[j];
    o->run_time_shape_from = src->run_time_shape_from;
    o->run_time_shape_trace = src->run_time_shape_trace;
    o->run_time_shape_root = o->name;
    o->run_time_bounded = false;
    o->run_time_dims = dims[j];
  }
}

bool is_run_time_data_op(const Node &n) {
  const Value *o = n.outputs.empty() ? nullptr : n.outputs[0];
  return op_of(n) && no_bound_source(n) && o && o->run_time_data() &&
         o->run_time_shape_root == o->name;
}

KernelCall lower_run_time_data_op(const Node &n) {
  const RtDataOp op = *op_of(n);
  const size_t nin = data_inputs(n, op);
  onnxc_k::RtDataParams p{};
  p.op = op;
  p.outputs = 1;
  p.dtype = rt_type(input_dtype(n, 0));
  p.elem_bytes = dtype_bits(input_dtype(n, 0)) / 8;
  p.inputs = static_cast<int64_t>(nin);
  p.out_rank = static_cast<int64_t>(n.outputs[0]->type.rank());
  const int64_t r0 = rank_of(n, 0);
  if (op == onnxc_k::kRtTranspose) {
    std::vector<int64_t> perm = attr_ints(n, "perm", {});
    for (int64_t d = 0; d < r0; ++d)
      p.axes[d] = perm.empty() ? r0 - 1 - d : perm[static_cast<size_t>(d)];
  } else if (op == onnxc_k::kRtSqueeze || op == onnxc_k::kRtUnsqueeze) {
    std::vector<int64_t> flags =
        op == onnxc_k::kRtSqueeze ? squeeze_flags(n) : axis_flags(n, p.out_rank);
    std::copy(flags.begin(), flags.end(), p.axes);
  } else if (op == onnxc_k::kRtGatherElements) {
    p.axis = normalize_axis(n, attr_int(n, "axis", 0), r0);
    p.mode = input_dtype(n, 1) == DType::Int32 ? 4 : 8;
  } else if (op == onnxc_k::kRtSplit) {
    p.axis = normalize_axis(n, attr_int(n, "axis", 0), r0);
    auto [mode, sizes] = split_plan(n);
    p.mode = mode;
    p.outputs = static_cast<int64_t>(n.outputs.size());
    std::copy(sizes.begin(), sizes.end(), p.axes);
  } else if (op == onnxc_k::kRtConcat) {
    p.axis = normalize_axis(n, attr_int(n, "axis", 0), r0);
  } else if (op == onnxc_k::kRtReshape) {
    p.axis = n.opset >= 14 && attr_int(n, "allowzero", 0) != 0;
  }
  KernelCall call{"onnxc_k_run_time_data", {}, {}};
  for (size_t i = 0; i < nin; ++i) {
    const Value *v = n.inputs[i];
    p.rank[i] = rank_of(n, i);
    const bool run = !v->run_time_shape_from.empty();
    const std::vector<int64_t> dims = v->type.static_dims();
    for (int64_t k = 0; k < p.rank[i]; ++k) {
      p.dims[i][k] = run ? 0 : dims[static_cast<size_t>(k)];
      if (run)
        call.shape_words.push_back(
            ShapeWord{offsetof(onnxc_k::RtDataParams, dims) / sizeof(int64_t) + i * 8 +
                          static_cast<size_t>(k),
                      i, k, 0, 1});
    }
    call.args.push_back(n.inputs[i]);
  }
  if (op == onnxc_k::kRtReshape)
    call.args.push_back(n.inputs[1]);
  if (op == onnxc_k::kRtSplit)
    call.args.insert(call.args.end(), n.outputs.begin(), n.outputs.end());
  else
    call.args.push_back(n.outputs[0]);
  set_params(call, p);
  return call;
}

} // namespace onnxc
