// ai.onnx.ml OneHotEncoder (int64 categories) and FeatureVectorizer, with ONNX Runtime's
// conventions: a repeated category maps to its last position, float inputs are truncated to
// int64; FeatureVectorizer cuts or zero-pads each input row to its 'inputdimensions' entry.
// String categories and inputs are not supported yet: refused with the reason.
// Kernels: templates/cpu/ml_encode.cpp.
#include "compiler/ops/ml/ml_util.h"

#include <cmath>
#include <map>

namespace onnxc {

namespace {

OpDef ml_op(const char *name, int64_t min_opset) {
  OpDef d;
  d.name = name;
  d.domain = kMlDomain;
  d.min_opset = min_opset;
  d.max_opset = 5;
  return d;
}

void refuse_string_input(const Node &n, size_t i) {
  if (input_dtype(n, i) == DType::String)
    refuse_strings(n, fmt::format("inputs (input {})", i));
}

std::vector<int64_t> onehot_categories(const Node &n) {
  if (!attr_strings(n, "cats_strings").empty())
    refuse_strings(n, "categories ('cats_strings')");
  refuse_string_input(n, 0);
  std::vector<int64_t> cats = attr_ints(n, "cats_int64s");
  if (cats.empty())
    node_fail(n, "attribute 'cats_int64s' is missing or empty");
  return cats;
}

} // namespace

const OpDef &op_OneHotEncoder() {
  static const OpDef def = [] {
    OpDef d = ml_op("OneHotEncoder", 1);
    d.infer = [](Node &n) {
      std::vector<int64_t> cats = onehot_categories(n);
      require_dtype(n, input_dtype(n, 0),
                    {DType::Int64, DType::Int32, DType::Float, DType::Double});
      std::vector<int64_t> dims = input_dims(n, 0);
      dims.push_back(static_cast<int64_t>(cats.size()));
      set_output(n, 0, DType::Float, dims);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> cats = onehot_categories(n);
      std::map<int64_t, int64_t> index; // category -> its last position
      for (size_t i = 0; i < cats.size(); ++i)
        index[cats[i]] = static_cast<int64_t>(i);
      std::vector<int64_t> p{product(input_dims(n, 0)), static_cast<int64_t>(cats.size()),
                             ml_type_code(n, input_dtype(n, 0)), attr_int(n, "zeros", 1),
                             static_cast<int64_t>(index.size())};
      for (auto [k, v] : index)
        p.push_back(k);
      for (auto [k, v] : index)
        p.push_back(v);
      return call_on_all(n, "onnxc_k_ml_onehot", p);
    };
    return d;
  }();
  return def;
}

namespace {
/// Rows and columns of one FeatureVectorizer input: [C] is one row, [N, ...] is N rows.
std::pair<int64_t, int64_t> vectorizer_rows_cols(const Node &n, size_t i) {
  std::vector<int64_t> d = input_dims(n, i);
  if (d.empty())
    node_fail(n, "input {} is a scalar; inputs must have rank 1 or more", i);
  if (d.size() == 1)
    return {1, d[0]};
  return {d[0], product({d.begin() + 1, d.end()})};
}

/// FeatureVectorizer's params {rows, inputs, total, per input {type code, columns, width}}.
std::vector<int64_t> vectorizer_params(const Node &n) {
  std::vector<int64_t> widths = attr_ints(n, "inputdimensions");
  if (widths.size() != n.inputs.size())
    node_fail(n, "'inputdimensions' has {} entries for {} inputs", widths.size(), n.inputs.size());
  std::vector<int64_t> p{0, static_cast<int64_t>(widths.size()), 0};
  for (size_t i = 0; i < widths.size(); ++i) {
    if (!n.has_input(i))
      node_fail(n, "input {} is omitted; every input must be present", i);
    refuse_string_input(n, i);
    require_dtype(n, input_dtype(n, i), {DType::Int32, DType::Int64, DType::Float, DType::Double});
    auto [rows, cols] = vectorizer_rows_cols(n, i);
    if (i > 0 && rows != p[0])
      node_fail(n, "input {} has {} rows but input 0 has {}", i, rows, p[0]);
    if (widths[i] < 0)
      node_fail(n, "'inputdimensions' has a negative entry {}", widths[i]);
    p[0] = rows;
    p[2] += widths[i];
    p.insert(p.end(), {ml_type_code(n, input_dtype(n, i)), cols, widths[i]});
  }
  return p;
}
} // namespace

const OpDef &op_FeatureVectorizer() {
  static const OpDef def = [] {
    OpDef d = ml_op("FeatureVectorizer", 1);
    d.infer = [](Node &n) {
      std::vector<int64_t> p = vectorizer_params(n);
      set_output(n, 0, DType::Float, {p[0], p[2]});
    };
    d.lower = [](const Node &n) {
      return call_on_all(n, "onnxc_k_ml_feature_vectorizer", vectorizer_params(n));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
