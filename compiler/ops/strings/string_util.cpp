#include "compiler/ops/strings/string_util.h"
#include "compiler/ops/op_util.h"

#include <cstring>

namespace onnxc {

TensorPtr pack_strings(const std::vector<std::string> &strings) {
  uint64_t head = 8 * (1 + strings.size()), size = head;
  for (const std::string &s : strings)
    size += s.size() + 1;
  auto t = std::make_shared<Tensor>(DType::Uint8, std::vector<int64_t>{static_cast<int64_t>(size)});
  uint8_t *p = t->data();
  uint64_t count = strings.size(), at = head;
  std::memcpy(p, &count, 8);
  for (size_t i = 0; i < strings.size(); ++i) {
    std::memcpy(p + 8 * (1 + i), &at, 8);
    std::memcpy(p + at, strings[i].c_str(), strings[i].size() + 1);
    at += strings[i].size() + 1;
  }
  return t;
}

onnxc_k::StrBinaryParams string_binary_params(const Node &n) {
  std::vector<int64_t> a = input_dims(n, 0), b = input_dims(n, 1), y = output_dims(n, 0);
  onnxc_k::StrBinaryParams p{};
  p.n = product(y);
  if (a == y && b == y)
    return p;
  if (static_cast<int64_t>(y.size()) > onnxc_k::kStrMaxRank)
    node_fail(n, "rank {} is more than the {} string ops support", y.size(), onnxc_k::kStrMaxRank);
  p.rank = static_cast<int64_t>(y.size());
  std::vector<int64_t> sa = broadcast_strides(a, y), sb = broadcast_strides(b, y);
  for (size_t d = 0; d < y.size(); ++d) {
    p.dims[d] = y[d];
    p.a_strides[d] = sa[d];
    p.b_strides[d] = sb[d];
  }
  return p;
}

void require_string_input(const Node &n, size_t i) {
  if (input_dtype(n, i) != DType::String)
    node_fail(n, "input {} must have element type string, not {}", i,
              dtype_name(input_dtype(n, i)));
}

void add_table(KernelCall &call, size_t slot, TensorPtr table, const std::string &name) {
  if (call.args.size() <= slot)
    call.args.resize(slot + 1, nullptr);
  call.args[slot] = nullptr;
  call.derived.push_back({slot, std::move(table), name});
}

bool op_makes_strings(const Node &n) {
  static const char *const kOps[] = {"Identity",
                                     "Dropout",
                                     "Reshape",
                                     "Flatten",
                                     "Squeeze",
                                     "Unsqueeze",
                                     "Transpose",
                                     "Gather",
                                     "GatherElements",
                                     "GatherND",
                                     "Concat",
                                     "Slice",
                                     "Split",
                                     "Expand",
                                     "Tile",
                                     "Where",
                                     "DepthToSpace",
                                     "SpaceToDepth",
                                     "Cast",
                                     "CastLike",
                                     "Constant",
                                     "StringConcat",
                                     "StringNormalizer",
                                     "LabelEncoder",
                                     "CategoryMapper",
                                     "StringSplit",
                                     "Compress",
                                     "Unique",
                                     "If",
                                     "Loop",
                                     "Scan",
                                     "StringConstant"};
  for (const char *op : kOps)
    if (n.op_type == op)
      return true;
  return false;
}

const OpDef &op_StringConstant() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "StringConstant";
    d.domain = "onnxc";
    d.foldable = false;
    d.infer = [](Node &) {}; // the pass sets the output type
    d.lower = [](const Node &n) {
      onnxc_k::StrUnaryParams p{product(output_dims(n, 0)), onnxc_k::kCaseNone};
      KernelCall c{"onnxc_k_string_unpack", {n.inputs[0], n.outputs[0]}, {}};
      set_params(c, p);
      return c;
    };
    return d;
  }();
  return def;
}

const OpDef &op_StringCopy() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "StringCopy";
    d.domain = "onnxc";
    d.foldable = false;
    d.infer = [](Node &) {}; // the pass sets the output type
    d.lower = [](const Node &n) {
      onnxc_k::StrUnaryParams p{product(output_dims(n, 0)), onnxc_k::kCaseNone};
      const bool shaped = !n.inputs[0]->run_time_shape_from.empty(); // its shape: ShapeCopy
      KernelCall c{shaped ? "onnxc_k_string_copy_shaped" : "onnxc_k_string_copy",
                   {n.inputs[0], n.outputs[0]},
                   {}};
      set_params(c, p);
      return c;
    };
    return d;
  }();
  return def;
}

bool op_owns_strings(const Node &n) {
  if (n.op_type == "StringNormalizer") // with stopwords on run-time strings: always copies
    return attr_string(n, "case_change_action", "NONE") != "NONE" ||
           !n.outputs[0]->run_time_shape_from.empty();
  static const char *const kOps[] = {"StringConcat", "Cast",           "CastLike",
                                     "LabelEncoder", "CategoryMapper", "StringConstant",
                                     "StringSplit"};
  for (const char *op : kOps)
    if (n.op_type == op)
      return true;
  return false;
}

void allow_string_equal(OpDef &equal) {
  InferFn infer = equal.infer;
  LowerFn lower = equal.lower;
  equal.infer = [infer](Node &n) {
    if (input_dtype(n, 0) != DType::String && input_dtype(n, 1) != DType::String)
      return infer(n);
    require_string_input(n, 0);
    require_string_input(n, 1);
    set_output(n, 0, DType::Bool, broadcast_shapes(n, {input_dims(n, 0), input_dims(n, 1)}));
  };
  equal.lower = [lower](const Node &n) {
    if (input_dtype(n, 0) != DType::String)
      return lower(n);
    KernelCall c{"onnxc_k_equal_str", {n.inputs[0], n.inputs[1], n.outputs[0]}, {}};
    set_params(c, string_binary_params(n));
    return c;
  };
}

} // namespace onnxc
