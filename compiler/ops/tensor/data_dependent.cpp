// Ops whose output shape depends on their inputs' values: NonZero, Compress, Unique and
// NonMaxSuppression. With constant inputs onnxc evaluates them at compile time: each op
// computes its outputs once in `infer` (for the output shapes) and again in `eval` (constant
// folding); a result too large to fold is written by its lowering.
// With an input computed at run time, they count at run time
// (OpDef::count_bound): their count dim is the graph's run-time count `c - 1` (infer-shapes
// names `c` in kCountSymbolAttr), their kernels (templates/cpu/data_dependent.cpp) write the
// result and set the count, and the memory is planned for the bound. So does Unique (its
// inverse_indices output has the input's static length).
#include "compiler/ops/op_util.h"
#include "compiler/ops/sym_util.h"
#include "templates/cpu/count_params.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

namespace onnxc {
namespace {

using Compute = std::vector<Tensor> (*)(const Node &);

/// How an op counts at run time: its largest count, its output types with the count dim
/// `count` (the symbol minus 1), and its kernel call.
struct RunTimeCount {
  std::function<int64_t(const Node &)> bound;
  std::function<void(Node &, const SymInt &count)> infer;
  std::function<KernelCall(const Node &)> lower;
};

/// The OpDef of an op whose outputs `f` computes from constant inputs (and, with `rt`, at run
/// time from run-time inputs).
OpDef value_op(const char *name, int64_t min_opset, std::vector<AttrSpec> attrs, Compute f,
               std::optional<RunTimeCount> rt = std::nullopt) {
  OpDef d;
  d.name = name;
  d.min_opset = min_opset;
  d.attrs = std::move(attrs);
  if (rt)
    d.count_bound = rt->bound;
  d.infer = [f, rt](Node &n) {
    if (auto c = run_time_count_dim(n); c && rt) {
      rt->infer(n, *c);
      return;
    }
    std::vector<Tensor> outs = f(n);
    for (size_t i = 0; i < outs.size(); ++i)
      set_output(n, i, outs[i].dtype(), outs[i].shape());
  };
  d.eval = [f](const Node &n, const std::vector<const Tensor *> &) { return f(n); };
  d.lower = [f, rt](const Node &n) {
    if (run_time_count_dim(n) && rt)
      return rt->lower(n);
    std::vector<Tensor> outs = f(n);
    bool one_output = std::count(n.outputs.begin(), n.outputs.end(), nullptr) + 1 ==
                      static_cast<std::ptrdiff_t>(n.outputs.size());
    if (!one_output || !n.outputs[0] || outs[0].dtype() == DType::String)
      node_fail(n, "its outputs are too large to evaluate at compile time");
    return write_constant_call(n, outs[0]);
  };
  return d;
}

/// Bytes of one element of t; fails naming the node for sub-byte types.
size_t elem_bytes(const Node &n, DType t) {
  int bits = dtype_bits(t);
  if (t != DType::String && bits % 8 != 0)
    node_fail(n, "element type {} is not supported", dtype_name(t));
  return static_cast<size_t>(bits / 8);
}

/// Copies `count` elements from src[from] to dst[to] (same element type).
void copy_elems(const Node &n, const Tensor &src, int64_t from, Tensor &dst, int64_t to,
                int64_t count) {
  if (src.dtype() == DType::String) {
    std::copy_n(src.strings().begin() + from, count, dst.strings().begin() + to);
    return;
  }
  size_t eb = elem_bytes(n, src.dtype());
  if (count > 0)
    std::memcpy(dst.data() + to * eb, src.data() + from * eb, static_cast<size_t>(count) * eb);
}

/// X seen along the node's `axis` attribute (X flattened to 1-D without one): the slices along
/// the axis, each `outer` runs of `inner` elements, `len` of them.
struct AxisView {
  Tensor flat;
  int64_t axis = 0, len = 0, outer = 1, inner = 1;
  std::vector<int64_t> dims;
  AxisView(const Node &n, const Tensor &x) : flat(x) {
    if (has_attr(n, "axis"))
      axis = normalize_axis(n, attr_int(n, "axis", 0), x.rank());
    else
      flat.reshape({x.numel()});
    dims = flat.shape();
    len = dims[axis];
    outer = product({dims.begin(), dims.begin() + axis});
    inner = product({dims.begin() + axis + 1, dims.end()});
  }
};

/// True if element i of t is non-zero (numbers, bools) or non-empty (strings).
bool nonzero_at(const Tensor &t, int64_t i) {
  if (t.dtype() == DType::String)
    return !t.strings()[i].empty();
  return dtype_is_float(t.dtype()) ? t.float_at(i) != 0.0 : t.int_at(i) != 0;
}

std::vector<Tensor> nonzero(const Node &n) {
  const Tensor &x = require_constant(n, 0, "X");
  const std::vector<int64_t> &dims = x.shape();
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (nonzero_at(x, i))
      hits.push_back(i);
  const int64_t rank = x.rank(), count = static_cast<int64_t>(hits.size());
  Tensor y(DType::Int64, {rank, count});
  int64_t *out = y.data_as<int64_t>();
  for (int64_t k = 0; k < count; ++k)
    for (int64_t d = rank - 1, rest = hits[k]; d >= 0; --d) {
      out[d * count + k] = rest % dims[d];
      rest /= dims[d];
    }
  return {std::move(y)};
}

std::vector<Tensor> compress(const Node &n) {
  const Tensor &x = require_constant(n, 0, "input");
  const Tensor &c = require_constant(n, 1, "condition");
  if (c.rank() != 1)
    node_fail(n, "condition must be 1-D, not of rank {}", c.rank());
  AxisView v(n, x);
  Tensor &flat = v.flat;
  std::vector<int64_t> &dims = v.dims;
  const int64_t axis = v.axis, len = v.len, outer = v.outer, inner = v.inner;
  if (c.numel() > len)
    node_fail(n, "condition has {} elements, more than the {} along the axis", c.numel(), len);
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < c.numel(); ++i)
    if (c.int_at(i) != 0)
      kept.push_back(i);
  dims[axis] = static_cast<int64_t>(kept.size());
  Tensor y(x.dtype(), dims);
  int64_t to = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : kept) {
      copy_elems(n, flat, (o * len + i) * inner, y, to, inner);
      to += inner;
    }
  return {std::move(y)};
}

/// -1, 0 or 1 as element a of t is less than, equal to or greater than element b (NaNs equal
/// each other and sort last, as numpy.unique puts them).
int compare_elems(const Tensor &t, int64_t a, int64_t b) {
  if (t.dtype() == DType::String)
    return t.strings()[a].compare(t.strings()[b]) < 0 ? -1
           : t.strings()[a] == t.strings()[b]         ? 0
                                                      : 1;
  if (dtype_is_float(t.dtype())) {
    double x = t.float_at(a), y = t.float_at(b);
    if (std::isnan(x) || std::isnan(y))
      return std::isnan(x) - std::isnan(y);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  int64_t x = t.int_at(a), y = t.int_at(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/// Unique: the distinct slices along `axis` (elements without one), sorted or in order of first
/// occurrence, with each one's first index, every slice's index among them, and their counts.
std::vector<Tensor> unique(const Node &n) {
  const Tensor &x = require_constant(n, 0, "X");
  AxisView v(n, x);
  Tensor &flat = v.flat;
  std::vector<int64_t> &dims = v.dims;
  const int64_t axis = v.axis, len = v.len, outer = v.outer, inner = v.inner;
  auto cmp = [&](int64_t a, int64_t b) { // slices a and b, lexicographically
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        if (int c = compare_elems(flat, (o * len + a) * inner + i, (o * len + b) * inner + i))
          return c;
    return 0;
  };
  std::vector<int64_t> order(static_cast<size_t>(len));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  std::vector<int64_t> firsts; // first slice of each group of equal slices, in sorted order
  std::vector<int64_t> group(static_cast<size_t>(len));
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || cmp(order[k - 1], order[k]) != 0)
      firsts.push_back(order[k]);
    group[order[k]] = static_cast<int64_t>(firsts.size()) - 1;
  }
  std::vector<int64_t> rank_of(firsts.size()); // output position of each group
  std::vector<int64_t> by_output(firsts.size());
  std::iota(by_output.begin(), by_output.end(), 0);
  if (attr_int(n, "sorted", 1) == 0)
    std::sort(by_output.begin(), by_output.end(),
              [&](int64_t a, int64_t b) { return firsts[a] < firsts[b]; });
  for (size_t k = 0; k < by_output.size(); ++k)
    rank_of[by_output[k]] = static_cast<int64_t>(k);
  const int64_t m = static_cast<int64_t>(firsts.size());
  dims[axis] = m;
  Tensor y(x.dtype(), dims), indices(DType::Int64, {m}), inverse(DType::Int64, {len}),
      counts(DType::Int64, {m});
  for (int64_t k = 0; k < m; ++k) {
    int64_t src = firsts[by_output[k]];
    indices.data_as<int64_t>()[k] = src;
    for (int64_t o = 0; o < outer; ++o)
      copy_elems(n, flat, (o * len + src) * inner, y, (o * m + k) * inner, inner);
  }
  for (int64_t i = 0; i < len; ++i) {
    inverse.data_as<int64_t>()[i] = rank_of[group[i]];
    ++counts.data_as<int64_t>()[rank_of[group[i]]];
  }
  std::vector<Tensor> outs;
  outs.push_back(std::move(y));
  outs.push_back(std::move(indices));
  outs.push_back(std::move(inverse));
  outs.push_back(std::move(counts));
  return outs;
}

/// A box's corners (x0 <= x1, y0 <= y1) from NonMaxSuppression's two box formats.
struct Box {
  double x0, y0, x1, y1;
};

Box box_at(const Tensor &boxes, int64_t i, bool center) {
  double v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = boxes.float_at(i * 4 + k);
  if (center) // [x_center, y_center, width, height]
    return {v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2};
  return {std::min(v[1], v[3]), std::min(v[0], v[2]), std::max(v[1], v[3]),
          std::max(v[0], v[2])}; // [y1, x1, y2, x2], either diagonal
}

/// True if a and b overlap by more than iou_threshold (intersection over union).
bool suppresses(const Box &a, const Box &b, double iou_threshold) {
  double iw = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  double ih = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  if (iw <= 0 || ih <= 0)
    return false;
  double inter = iw * ih, area_a = (a.x1 - a.x0) * (a.y1 - a.y0),
         area_b = (b.x1 - b.x0) * (b.y1 - b.y0), uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0)
    return false;
  return inter / uni > iou_threshold;
}

/// Optional scalar input i of NonMaxSuppression (a constant), or nullptr if omitted.
const Tensor *nms_scalar(const Node &n, size_t i, const char *what) {
  if (i >= n.inputs.size() || !n.inputs[i])
    return nullptr;
  const Tensor &t = require_constant(n, i, what);
  if (t.numel() != 1)
    node_fail(n, "input '{}' must hold one value, not {}", what, t.numel());
  return &t;
}

/// NonMaxSuppression: per batch and class, boxes by descending score (ties by index), each kept
/// unless it overlaps a kept one by more than iou_threshold, at most max_output_boxes_per_class.
std::vector<Tensor> nms(const Node &n) {
  const Tensor &boxes = require_constant(n, 0, "boxes");
  const Tensor &scores = require_constant(n, 1, "scores");
  if (boxes.rank() != 3 || boxes.shape()[2] != 4 || scores.rank() != 3 ||
      scores.shape()[0] != boxes.shape()[0] || scores.shape()[2] != boxes.shape()[1])
    node_fail(n,
              "boxes must be [batch, boxes, 4] and scores [batch, classes, boxes], not {} "
              "and {}",
              dims_to_string(boxes.shape()), dims_to_string(scores.shape()));
  const Tensor *max_t = nms_scalar(n, 2, "max_output_boxes_per_class");
  const Tensor *iou_t = nms_scalar(n, 3, "iou_threshold");
  const Tensor *score_t = nms_scalar(n, 4, "score_threshold");
  const int64_t max_out = max_t ? std::max<int64_t>(max_t->int_at(0), 0) : 0;
  const double iou = iou_t ? iou_t->float_at(0) : 0.0;
  const bool center = attr_int(n, "center_point_box", 0) != 0;
  const int64_t batches = boxes.shape()[0], count = boxes.shape()[1], classes = scores.shape()[1];
  std::vector<int64_t> selected; // (batch, class, box) triples
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const int64_t base = (b * classes + c) * count;
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < count; ++i)
        if (!score_t || scores.float_at(base + i) > score_t->float_at(0))
          cand.push_back(i);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t x, int64_t y) {
        return scores.float_at(base + x) > scores.float_at(base + y);
      });
      std::vector<Box> kept;
      for (int64_t i : cand) {
        if (static_cast<int64_t>(kept.size()) >= max_out)
          break;
        Box bx = box_at(boxes, b * count + i, center);
        if (std::none_of(kept.begin(), kept.end(),
                         [&](const Box &k) { return suppresses(bx, k, iou); })) {
          kept.push_back(bx);
          selected.insert(selected.end(), {b, c, i});
        }
      }
    }
  Tensor out(DType::Int64, {static_cast<int64_t>(selected.size() / 3), 3});
  std::copy(selected.begin(), selected.end(), out.data_as<int64_t>());
  return {std::move(out)};
}

// ---- counting at run time ---------------------------------------------------------------

/// True if an input of n is computed at run time.
bool any_run_time_input(const Node &n) {
  return std::any_of(n.inputs.begin(), n.inputs.end(),
                     [](const Value *v) { return v && !v->constant; });
}

/// Static dims of input i, failing with what to bind when they are run-time dims.
std::vector<int64_t> count_input_dims(const Node &n, size_t i) {
  if (!n.inputs[i]->type.is_static())
    node_fail(n,
              "its output shape depends on values computed at run time, and input '{}' has "
              "run-time dims ({}): onnxc counts at run time over static input shapes; bind "
              "them with --dim",
              n.inputs[i]->name, shape_to_string(n.inputs[i]->type));
  return input_dims(n, i);
}

/// Element bytes of input i (whole bytes, not strings) for a kernel that copies elements.
int64_t run_time_elem_bytes(const Node &n, size_t i) {
  const DType t = n.inputs[i]->type.dtype;
  if (t == DType::String || dtype_bits(t) % 8 != 0)
    node_fail(n,
              "input '{}' is {}: counting at run time supports numeric and bool tensors "
              "(give it as a constant to evaluate it at compile time)",
              n.inputs[i]->name, dtype_name(t));
  return dtype_bits(t) / 8;
}

RunTimeCount nonzero_rt() {
  RunTimeCount r;
  r.bound = [](const Node &n) {
    return any_run_time_input(n) ? product(count_input_dims(n, 0)) : -1;
  };
  r.infer = [](Node &n, const SymInt &c) {
    run_time_elem_bytes(n, 0);
    set_output_sym(n, 0, DType::Int64, {SymInt(n.inputs[0]->type.rank()), c});
  };
  r.lower = [](const Node &n) {
    const std::vector<int64_t> dims = count_input_dims(n, 0);
    if (dims.size() > 8)
      node_fail(n, "NonZero at run time supports inputs of rank 8 at most, not {}", dims.size());
    onnxc_k::NonZeroParams p{};
    p.symbol = kCountSymbolIndex;
    const DType t = n.inputs[0]->type.dtype;
    p.kind = t == DType::Float                             ? onnxc_k::kNonZeroF32
             : t == DType::Double                          ? onnxc_k::kNonZeroF64
             : t == DType::Float16 || t == DType::BFloat16 ? onnxc_k::kNonZeroHalf
                                                           : onnxc_k::kNonZeroBytes;
    if (dtype_is_float(t) && p.kind == onnxc_k::kNonZeroBytes)
      node_fail(n, "NonZero at run time does not support {} inputs", dtype_name(t));
    p.elem_bytes = run_time_elem_bytes(n, 0);
    p.numel = product(dims);
    p.rank = static_cast<int64_t>(dims.size());
    std::copy(dims.begin(), dims.end(), p.dims);
    KernelCall call{"onnxc_k_nonzero", {n.inputs[0], n.outputs[0]}, {}};
    set_params(call, p);
    return call;
  };
  return r;
}

/// Compress's view of X: [outer, len, inner] around the axis (X flattened without one).
struct CompressView {
  int64_t outer = 1, len = 1, inner = 1, cond_len = 0;
  int axis = -1;
};
CompressView compress_view(const Node &n) {
  const std::vector<int64_t> x = count_input_dims(n, 0), c = count_input_dims(n, 1);
  if (c.size() != 1)
    node_fail(n, "condition must be 1-D, not of rank {}", c.size());
  CompressView v;
  if (has_attr(n, "axis")) {
    v.axis = static_cast<int>(normalize_axis(n, attr_int(n, "axis", 0), x.size()));
    v.outer = product({x.begin(), x.begin() + v.axis});
    v.len = x[v.axis];
    v.inner = product({x.begin() + v.axis + 1, x.end()});
  } else {
    v.len = product(x);
  }
  if (c[0] > v.len)
    node_fail(n, "condition has {} elements, more than the {} along the axis", c[0], v.len);
  v.cond_len = c[0];
  return v;
}

RunTimeCount compress_rt() {
  RunTimeCount r;
  r.bound = [](const Node &n) { return any_run_time_input(n) ? compress_view(n).cond_len : -1; };
  r.infer = [](Node &n, const SymInt &c) {
    run_time_elem_bytes(n, 0);
    const CompressView v = compress_view(n);
    std::vector<SymInt> dims{c};
    if (v.axis >= 0) {
      dims = n.inputs[0]->type.sym_dims();
      dims[v.axis] = c;
    }
    set_output_sym(n, 0, n.inputs[0]->type.dtype, dims);
  };
  r.lower = [](const Node &n) {
    const CompressView v = compress_view(n);
    if (n.inputs[1]->type.dtype != DType::Bool)
      node_fail(n, "condition must be bool, not {}", dtype_name(n.inputs[1]->type.dtype));
    onnxc_k::CompressParams p{kCountSymbolIndex, run_time_elem_bytes(n, 0), v.outer, v.len, v.inner,
                              v.cond_len};
    KernelCall call{"onnxc_k_compress", {n.inputs[0], n.inputs[1], n.outputs[0]}, {}};
    set_params(call, p);
    return call;
  };
  return r;
}

/// Unique's view of X: [outer, len, inner] around the axis (X flattened without one).
onnxc_k::UniqueParams unique_view(const Node &n) {
  const std::vector<int64_t> x = count_input_dims(n, 0);
  onnxc_k::UniqueParams p{};
  p.symbol = kCountSymbolIndex;
  p.outer = p.inner = 1;
  p.len = product(x);
  if (has_attr(n, "axis")) {
    const auto axis = static_cast<size_t>(normalize_axis(n, attr_int(n, "axis", 0), x.size()));
    p.outer = product({x.begin(), x.begin() + axis});
    p.len = x[axis];
    p.inner = product({x.begin() + axis + 1, x.end()});
  }
  p.sorted = attr_int(n, "sorted", 1) != 0;
  return p;
}

RunTimeCount unique_rt() {
  RunTimeCount r;
  r.bound = [](const Node &n) { return any_run_time_input(n) ? unique_view(n).len : -1; };
  r.infer = [](Node &n, const SymInt &c) {
    run_time_elem_bytes(n, 0);
    const onnxc_k::UniqueParams p = unique_view(n);
    std::vector<SymInt> dims{c};
    if (has_attr(n, "axis")) {
      dims = n.inputs[0]->type.sym_dims();
      dims[static_cast<size_t>(
          normalize_axis(n, attr_int(n, "axis", 0), n.inputs[0]->type.rank()))] = c;
    }
    set_output_sym(n, 0, n.inputs[0]->type.dtype, dims);
    set_output_sym(n, 1, DType::Int64, {c});
    set_output_sym(n, 2, DType::Int64, {SymInt(p.len)});
    set_output_sym(n, 3, DType::Int64, {c});
  };
  r.lower = [](const Node &n) {
    onnxc_k::UniqueParams p = unique_view(n);
    const DType t = n.inputs[0]->type.dtype;
    const std::pair<DType, onnxc_k::UniqueKind> kinds[] = {
        {DType::Float, onnxc_k::kUniqueF32},  {DType::Double, onnxc_k::kUniqueF64},
        {DType::Int8, onnxc_k::kUniqueI8},    {DType::Int16, onnxc_k::kUniqueI16},
        {DType::Int32, onnxc_k::kUniqueI32},  {DType::Int64, onnxc_k::kUniqueI64},
        {DType::Uint8, onnxc_k::kUniqueU8},   {DType::Uint16, onnxc_k::kUniqueU16},
        {DType::Uint32, onnxc_k::kUniqueU32}, {DType::Uint64, onnxc_k::kUniqueU64},
        {DType::Bool, onnxc_k::kUniqueU8}};
    p.kind = -1;
    for (const auto &[dt, k] : kinds)
      if (dt == t)
        p.kind = k;
    if (p.kind < 0)
      node_fail(n,
                "Unique at run time does not support {} inputs (give the input as a constant "
                "to evaluate it at compile time)",
                dtype_name(t));
    p.elem_bytes = run_time_elem_bytes(n, 0);
    std::vector<Value *> args{n.inputs[0]};
    for (size_t i = 0; i < 4; ++i)
      args.push_back(i < n.outputs.size() ? n.outputs[i] : nullptr);
    if (!args[1])
      node_fail(n, "Unique at run time needs its output Y");
    KernelCall call{"onnxc_k_unique", std::move(args), {}};
    set_params(call, p);
    call.scratch_bytes = onnxc_k::unique_scratch_bytes(p.len);
    return call;
  };
  return r;
}

/// NonMaxSuppression's [batches, boxes, classes], checked; its boxes and scores float32.
std::array<int64_t, 3> nms_dims(const Node &n) {
  const std::vector<int64_t> b = count_input_dims(n, 0), s = count_input_dims(n, 1);
  if (b.size() != 3 || b[2] != 4 || s.size() != 3 || s[0] != b[0] || s[2] != b[1])
    node_fail(n,
              "boxes must be [batch, boxes, 4] and scores [batch, classes, boxes], not {} "
              "and {}",
              dims_to_string(b), dims_to_string(s));
  for (size_t i = 2; i < 5 && i < n.inputs.size(); ++i)
    if (n.inputs[i] && product(count_input_dims(n, i)) != 1)
      node_fail(n, "input '{}' must hold one value, not {}", n.inputs[i]->name,
                product(count_input_dims(n, i)));
  return {b[0], b[1], s[1]};
}

RunTimeCount nms_rt() {
  RunTimeCount r;
  r.bound = [](const Node &n) -> int64_t {
    if (!any_run_time_input(n))
      return -1;
    const auto [batches, boxes, classes] = nms_dims(n);
    int64_t per_class = boxes;
    if (n.inputs.size() > 2 && n.inputs[2] && n.inputs[2]->constant)
      per_class = std::clamp<int64_t>(n.inputs[2]->constant->int_at(0), 0, boxes);
    else if (n.inputs.size() <= 2 || !n.inputs[2])
      per_class = 0; // max_output_boxes_per_class defaults to 0: nothing is selected
    return batches * classes * per_class;
  };
  r.infer = [](Node &n, const SymInt &c) {
    nms_dims(n);
    set_output_sym(n, 0, DType::Int64, {c, SymInt(3)});
  };
  r.lower = [](const Node &n) {
    const auto [batches, boxes, classes] = nms_dims(n);
    const DType want[] = {DType::Float, DType::Float, DType::Int64, DType::Float, DType::Float};
    for (size_t i = 0; i < 5 && i < n.inputs.size(); ++i)
      if (n.inputs[i] && n.inputs[i]->type.dtype != want[i])
        node_fail(n,
                  "input '{}' is {}: NonMaxSuppression at run time takes float boxes, scores "
                  "and thresholds and an int64 max_output_boxes_per_class",
                  n.inputs[i]->name, dtype_name(n.inputs[i]->type.dtype));
    onnxc_k::NmsParams p{kCountSymbolIndex, batches, boxes, classes,
                         attr_int(n, "center_point_box", 0) != 0 ? 1 : 0};
    std::vector<Value *> args;
    for (size_t i = 0; i < 5; ++i)
      args.push_back(i < n.inputs.size() ? n.inputs[i] : nullptr);
    args.push_back(n.outputs[0]);
    KernelCall call{"onnxc_k_nms", std::move(args), {}};
    set_params(call, p);
    call.scratch_bytes = onnxc_k::nms_scratch_bytes(boxes);
    return call;
  };
  return r;
}

} // namespace

const OpDef &op_NonZero() {
  static const OpDef def = value_op("NonZero", 9, {}, nonzero, nonzero_rt());
  return def;
}

const OpDef &op_Unique() {
  static const OpDef def =
      value_op("Unique", 11, {{"axis", Attribute::Kind::Int}, {"sorted", Attribute::Kind::Int}},
               unique, unique_rt());
  return def;
}

const OpDef &op_NonMaxSuppression() {
  static const OpDef def = value_op("NonMaxSuppression", 10,
                                    {{"center_point_box", Attribute::Kind::Int}}, nms, nms_rt());
  return def;
}

const OpDef &op_Compress() {
  static const OpDef def =
      value_op("Compress", 9, {{"axis", Attribute::Kind::Int}}, compress, compress_rt());
  return def;
}

} // namespace onnxc
