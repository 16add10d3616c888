// ai.onnx.ml feature transforms: Scaler, Normalizer, Binarizer, Imputer (kernels in
// templates/cpu/ml_misc.cpp), ArrayFeatureExtractor (the Gather kernel on the last axis) and
// ZipMap. onnxc has no map or sequence types: a ZipMap output is returned as its input, the
// [N, C] float probability matrix, whose column j belongs to class label j of the ZipMap's
// classlabels_int64s (docs/runtime-api.md).
#include "compiler/ops/ml/ml_util.h"

#include <cmath>

namespace onnxc {

namespace {
OpDef ml_op(const char *name) {
  OpDef d;
  d.name = name;
  d.domain = kMlDomain;
  d.max_opset = 5;
  return d;
}

void require_int_or_real(const Node &n) {
  require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double, DType::Int64, DType::Int32});
}

int64_t norm_code(const Node &n) {
  std::string s = attr_string(n, "norm", "MAX");
  if (s == "MAX")
    return 0;
  if (s == "L1")
    return 1;
  if (s == "L2")
    return 2;
  node_fail(n, "norm '{}' is not one of MAX, L1, L2", s);
}

/// The per-column list `v` must have 1 or `cols` entries (0 allowed if `may_be_empty`).
void check_per_column(const Node &n, const char *name, size_t size, int64_t cols,
                      bool may_be_empty) {
  if ((size == 0 && may_be_empty) || size == 1 || size == static_cast<size_t>(cols))
    return;
  node_fail(n, "attribute '{}' has {} entries, expected 1 or {} (one per column)", name, size,
            cols);
}
} // namespace

const OpDef &op_Scaler() {
  static const OpDef def = [] {
    OpDef d = ml_op("Scaler");
    d.infer = [](Node &n) {
      require_int_or_real(n);
      auto [rows, cols] = ml_rows_cols(n, 0);
      check_per_column(n, "offset", attr_floats(n, "offset").size(), cols, true);
      check_per_column(n, "scale", attr_floats(n, "scale").size(), cols, true);
      set_output(n, 0, DType::Float, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      auto [rows, cols] = ml_rows_cols(n, 0);
      std::vector<float> off = attr_floats(n, "offset"), sc = attr_floats(n, "scale");
      std::vector<int64_t> p{rows, cols, static_cast<int64_t>(off.size()),
                             static_cast<int64_t>(sc.size())};
      push_reals(p, {off.begin(), off.end()});
      push_reals(p, {sc.begin(), sc.end()});
      return call_on_all(n, kernel_name(n, "ml_scaler", input_dtype(n, 0)), p);
    };
    return d;
  }();
  return def;
}

const OpDef &op_Normalizer() {
  static const OpDef def = [] {
    OpDef d = ml_op("Normalizer");
    d.infer = [](Node &n) {
      require_int_or_real(n);
      ml_rows_cols(n, 0);
      norm_code(n);
      set_output(n, 0, DType::Float, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      auto [rows, cols] = ml_rows_cols(n, 0);
      return call_on_all(n, kernel_name(n, "ml_normalizer", input_dtype(n, 0)),
                         {rows, cols, norm_code(n)});
    };
    return d;
  }();
  return def;
}

const OpDef &op_Binarizer() {
  static const OpDef def = [] {
    OpDef d = ml_op("Binarizer");
    d.infer = [](Node &n) {
      require_real_input(n, 0);
      set_output(n, 0, input_dtype(n, 0), input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      return call_on_all(n, kernel_name(n, "ml_binarizer", input_dtype(n, 0)),
                         {product(input_dims(n, 0)), param_f64(attr_float(n, "threshold", 0))});
    };
    return d;
  }();
  return def;
}

namespace {
/// Imputer's replaced value and per-column imputed values for the input's dtype.
std::pair<double, std::vector<double>> imputer_values(const Node &n) {
  if (input_dtype(n, 0) == DType::Int64) {
    std::vector<int64_t> v = attr_ints(n, "imputed_value_int64s");
    return {static_cast<double>(attr_int(n, "replaced_value_int64", 0)), {v.begin(), v.end()}};
  }
  std::vector<float> v = attr_floats(n, "imputed_value_floats");
  return {attr_float(n, "replaced_value_float", 0), {v.begin(), v.end()}};
}
} // namespace

const OpDef &op_Imputer() {
  static const OpDef def = [] {
    OpDef d = ml_op("Imputer");
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Int64});
      auto [rows, cols] = ml_rows_cols(n, 0);
      check_per_column(n, "imputed_value_*", imputer_values(n).second.size(), cols, false);
      set_output(n, 0, input_dtype(n, 0), input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      auto [rows, cols] = ml_rows_cols(n, 0);
      auto [replaced, imputed] = imputer_values(n);
      std::vector<int64_t> p{rows, cols, static_cast<int64_t>(imputed.size()), param_f64(replaced)};
      push_reals(p, imputed);
      return call_on_all(n, kernel_name(n, "ml_imputer", input_dtype(n, 0)), p);
    };
    return d;
  }();
  return def;
}

const OpDef &op_ArrayFeatureExtractor() {
  static const OpDef def = [] {
    OpDef d = ml_op("ArrayFeatureExtractor");
    d.infer = [](Node &n) {
      std::vector<int64_t> x = input_dims(n, 0);
      if (x.empty())
        node_fail(n, "input X must have rank 1 or more");
      require_dtype(n, input_dtype(n, 1), {DType::Int64});
      int bits = dtype_bits(input_dtype(n, 0));
      if (input_dtype(n, 0) == DType::String || bits < 8)
        node_fail(n, "element type {} is not supported", dtype_name(input_dtype(n, 0)));
      if (const Tensor *idx = input_constant(n, 1))
        for (int64_t i = 0; i < idx->numel(); ++i)
          if (idx->int_at(i) < 0 || idx->int_at(i) >= x.back())
            node_fail(n, "index {} is out of range for the last axis of size {}", idx->int_at(i),
                      x.back());
      x.back() = product(input_dims(n, 1));
      set_output(n, 0, input_dtype(n, 0), x);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> x = input_dims(n, 0);
      return call_on_all(n, "onnxc_k_gather",
                         {dtype_bits(input_dtype(n, 0)) / 8, 8, product({x.begin(), x.end() - 1}),
                          x.back(), 1, product(input_dims(n, 1))});
    };
    return d;
  }();
  return def;
}

const OpDef &op_ZipMap() {
  static const OpDef def = [] {
    OpDef d = ml_op("ZipMap");
    d.infer = [](Node &n) {
      refuse_string_labels(n, "classlabels_strings");
      require_dtype(n, input_dtype(n, 0), {DType::Float});
      auto [rows, cols] = ml_rows_cols(n, 0);
      size_t labels = attr_ints(n, "classlabels_int64s").size();
      if (labels != static_cast<size_t>(cols))
        node_fail(n, "'classlabels_int64s' has {} labels but the input has {} columns", labels,
                  cols);
      set_output(n, 0, DType::Float, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      return KernelCall{
          "onnxc_k_copy", {n.inputs[0], n.outputs[0]}, {type_bytes(n.outputs[0]->type)}};
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
