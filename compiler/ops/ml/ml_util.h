// Helpers shared by the ai.onnx.ml operators (compiler/ops/ml): the domain name, the
// post_transform codes the kernels understand, and attribute readers for the ML schemas'
// float lists that may also be given as tensors (`*_as_tensor`).
#pragma once

#include "compiler/ops/op_util.h"

#include <string>
#include <vector>

namespace onnxc {

/// The ONNX-ML operator domain.
inline constexpr const char *kMlDomain = "ai.onnx.ml";

/// post_transform codes shared with templates/cpu/ml_common.h (same order as the ONNX spec).
enum class PostTransform : int64_t {
  None = 0,
  Softmax = 1,
  Logistic = 2,
  SoftmaxZero = 3,
  Probit = 4
};

/// Reads the string attribute `post_transform` (NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT).
PostTransform post_transform_attr(const Node &n);
/// String list attribute, empty if absent.
std::vector<std::string> attr_strings(const Node &n, const std::string &name);
/// A float list given either as `name` (floats) or `name_as_tensor` (a float/double tensor);
/// returned as doubles. Empty if neither is present.
std::vector<double> attr_reals(const Node &n, const std::string &name);
/// Values of a tensor attribute as doubles (float/double/float16 tensors); empty if absent.
std::vector<double> attr_tensor_reals(const Node &n, const std::string &name);
/// Rows and columns of an ML input: [C] is one row, [N, C] is N rows; other ranks are refused.
std::pair<int64_t, int64_t> ml_rows_cols(const Node &n, size_t input);
/// Throws naming the node unless input `i` is float or double (the dtypes the ML kernels read).
void require_real_input(const Node &n, size_t i);
/// Throws naming the node if the classifier has string class labels (attribute `attr`), which
/// onnxc does not support: labels must be int64.
void refuse_string_labels(const Node &n, const std::string &attr);
/// Throws naming the node: string `what` (e.g. "categories ('cats_strings')") are not
/// supported by this encoder yet (it takes numbers).
[[noreturn]] void refuse_strings(const Node &n, const std::string &what);
/// Element-type code of the encoder kernels (templates/cpu/ml_encode.cpp): 0 float, 1 double,
/// 2 int64, 3 int32, 4 int16; throws naming the node for other types.
int64_t ml_type_code(const Node &n, DType t);
/// Appends `v` as params with param_f64.
void push_reals(std::vector<int64_t> &params, const std::vector<double> &v);

} // namespace onnxc
