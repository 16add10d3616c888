#include "compiler/ops/ml/ml_util.h"

namespace onnxc {

PostTransform post_transform_attr(const Node &n) {
  std::string s = attr_string(n, "post_transform", "NONE");
  if (s == "NONE")
    return PostTransform::None;
  if (s == "SOFTMAX")
    return PostTransform::Softmax;
  if (s == "LOGISTIC")
    return PostTransform::Logistic;
  if (s == "SOFTMAX_ZERO")
    return PostTransform::SoftmaxZero;
  if (s == "PROBIT")
    return PostTransform::Probit;
  node_fail(n, "post_transform '{}' is not one of NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT",
            s);
}

std::vector<std::string> attr_strings(const Node &n, const std::string &name) {
  const Attribute *a = n.attr(name);
  if (!a)
    return {};
  if (a->kind != Attribute::Kind::Strings)
    node_fail(n, "attribute '{}' must be of type STRINGS, but the model gives {}", name,
              attribute_kind_name(a->kind));
  return a->strings;
}

std::vector<double> attr_tensor_reals(const Node &n, const std::string &name) {
  TensorPtr t = attr_tensor(n, name);
  if (!t)
    return {};
  if (t->dtype() != DType::Float && t->dtype() != DType::Double && t->dtype() != DType::Float16)
    node_fail(n, "attribute '{}' must be a float or double tensor, not {}", name,
              dtype_name(t->dtype()));
  std::vector<double> out(static_cast<size_t>(t->numel()));
  for (int64_t i = 0; i < t->numel(); ++i)
    out[static_cast<size_t>(i)] = t->float_at(i);
  return out;
}

std::vector<double> attr_reals(const Node &n, const std::string &name) {
  if (has_attr(n, name + "_as_tensor")) {
    if (has_attr(n, name))
      node_fail(n, "attributes '{}' and '{}_as_tensor' are both given; only one may be", name,
                name);
    return attr_tensor_reals(n, name + "_as_tensor");
  }
  std::vector<float> f = attr_floats(n, name);
  return {f.begin(), f.end()};
}

std::pair<int64_t, int64_t> ml_rows_cols(const Node &n, size_t input) {
  std::vector<int64_t> d = input_dims(n, input);
  if (d.size() == 1)
    return {1, d[0]};
  if (d.size() == 2)
    return {d[0], d[1]};
  node_fail(n, "input {} must have rank 1 or 2 ([C] or [N, C]), not shape {}", input,
            dims_to_string(d));
}

void require_real_input(const Node &n, size_t i) {
  DType t = input_dtype(n, i);
  if (t != DType::Float && t != DType::Double)
    node_fail(n,
              "input {} has element type {}; onnxc supports float and double here (insert a "
              "Cast to float before this node)",
              i, dtype_name(t));
}

void refuse_string_labels(const Node &n, const std::string &attr) {
  if (!attr_strings(n, attr).empty())
    node_fail(n,
              "string class labels ('{}') are not supported yet (onnxc's classifiers give int64 "
              "labels); train with integer labels (e.g. encode y with sklearn's LabelEncoder) "
              "and re-export",
              attr);
}

void refuse_strings(const Node &n, const std::string &what) {
  node_fail(n,
            "string {} are not supported yet (this encoder takes numbers); encode strings as "
            "integers first (a LabelEncoder or CategoryMapper node, or sklearn's OrdinalEncoder "
            "before export)",
            what);
}

int64_t ml_type_code(const Node &n, DType t) {
  switch (t) {
  case DType::Float:
    return 0;
  case DType::Double:
    return 1;
  case DType::Int64:
    return 2;
  case DType::Int32:
    return 3;
  case DType::Int16:
    return 4;
  default:
    node_fail(n, "element type {} is not supported here (int16, int32, int64, float, double)",
              dtype_name(t));
  }
}

void push_reals(std::vector<int64_t> &params, const std::vector<double> &v) {
  for (double x : v)
    params.push_back(param_f64(x));
}

} // namespace onnxc
