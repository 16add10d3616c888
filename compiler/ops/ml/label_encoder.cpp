// ai.onnx.ml LabelEncoder (opset 2 and later) for numeric keys and values: keys_int64s /
// keys_floats / keys_tensor and values_int64s / values_floats / values_tensor (int16, int32,
// int64, float, double), default_int64 / default_float / default_tensor. As ONNX Runtime: a
// repeated key keeps its first value (the ONNX text says the last; ONNX Runtime, the reference
// for the tests, keeps the first), a NaN key matches every NaN input. String keys or values
// (and opset 1, whose mapping is always string <-> int64) are refused: onnxc has no string
// tensors. Kernel: templates/cpu/ml_encode.cpp (onnxc_k_ml_label_encoder).
#include "compiler/ops/ml/ml_util.h"

#include <cmath>
#include <map>

namespace onnxc {

namespace {

/// Keys or values: their element type and numbers (integers exactly, floats as doubles).
struct Column {
  DType dtype = DType::Undefined;
  std::vector<int64_t> ints;
  std::vector<double> reals;
  size_t size() const { return is_real() ? reals.size() : ints.size(); }
  bool is_real() const { return dtype == DType::Float || dtype == DType::Double; }
};

Column tensor_column(const Node &n, const std::string &name, const Tensor &t) {
  if (t.dtype() == DType::String)
    refuse_strings(n, fmt::format("keys or values ('{}')", name));
  ml_type_code(n, t.dtype());
  Column c;
  c.dtype = t.dtype();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (c.is_real())
      c.reals.push_back(t.float_at(i));
    else
      c.ints.push_back(t.int_at(i));
  }
  return c;
}

/// Reads `prefix`_int64s / _floats / _strings / _tensor; exactly one must be present.
Column read_column(const Node &n, const std::string &prefix) {
  std::vector<std::string> given;
  for (const char *sfx : {"_int64s", "_floats", "_strings", "_tensor"})
    if (has_attr(n, prefix + sfx))
      given.push_back(prefix + sfx);
  if (given.size() != 1)
    node_fail(n,
              "exactly one of {0}_int64s, {0}_floats, {0}_strings, {0}_tensor must be given "
              "(the model gives {1})",
              prefix, given.size());
  const std::string &name = given[0];
  if (name == prefix + "_strings")
    refuse_strings(n, fmt::format("keys or values ('{}')", name));
  if (name == prefix + "_tensor")
    return tensor_column(n, name, *attr_tensor(n, name));
  Column c;
  if (name == prefix + "_int64s") {
    c.dtype = DType::Int64;
    c.ints = attr_ints(n, name);
  } else {
    c.dtype = DType::Float;
    std::vector<float> f = attr_floats(n, name);
    c.reals.assign(f.begin(), f.end());
  }
  return c;
}

/// The default value as the kernel's raw int64 (an integer, or a double's bits).
int64_t default_raw(const Node &n, const Column &values) {
  if (TensorPtr t = attr_tensor(n, "default_tensor")) {
    Column d = tensor_column(n, "default_tensor", *t);
    if (d.dtype != values.dtype || d.size() != 1)
      node_fail(n, "'default_tensor' must hold one {} value", dtype_name(values.dtype));
    return d.is_real() ? param_f64(d.reals[0]) : d.ints[0];
  }
  if (values.is_real())
    return param_f64(attr_float(n, "default_float", -0.0f));
  return attr_int(n, "default_int64", -1);
}

struct Encoder {
  Column keys, values;
};

Encoder read_encoder(const Node &n) {
  Encoder e{read_column(n, "keys"), read_column(n, "values")};
  if (e.keys.size() != e.values.size())
    node_fail(n, "{} keys but {} values; they must pair up", e.keys.size(), e.values.size());
  if (input_dtype(n, 0) == DType::String)
    refuse_strings(n, "inputs");
  if (input_dtype(n, 0) != e.keys.dtype)
    node_fail(n, "the input has element type {} but the keys are {}", dtype_name(input_dtype(n, 0)),
              dtype_name(e.keys.dtype));
  return e;
}

/// params {count, n, in code, out code, NaN key's value, has NaN key (1) or not (-1), default,
///         keys[n] (ascending; int64 or double bits), values[n] (int64 or double bits)}.
std::vector<int64_t> encoder_params(const Node &n, const Encoder &e) {
  auto raw_value = [&](size_t i) {
    return e.values.is_real() ? param_f64(e.values.reals[i]) : e.values.ints[i];
  };
  std::map<double, int64_t> reals; // key -> raw value; a repeated key keeps its first value
  std::map<int64_t, int64_t> ints;
  int64_t nan_value = 0, has_nan = -1;
  for (size_t i = 0; i < e.keys.size(); ++i) {
    if (!e.keys.is_real()) {
      ints.emplace(e.keys.ints[i], raw_value(i));
    } else if (!std::isnan(e.keys.reals[i])) {
      reals.emplace(e.keys.reals[i], raw_value(i));
    } else if (has_nan < 0) {
      nan_value = raw_value(i);
      has_nan = 1;
    }
  }
  size_t count = e.keys.is_real() ? reals.size() : ints.size();
  std::vector<int64_t> p{product(input_dims(n, 0)),     static_cast<int64_t>(count),
                         ml_type_code(n, e.keys.dtype), ml_type_code(n, e.values.dtype),
                         has_nan > 0 ? nan_value : 0,   has_nan,
                         default_raw(n, e.values)};
  for (auto [k, v] : reals)
    p.push_back(param_f64(k));
  for (auto [k, v] : ints)
    p.push_back(k);
  for (auto [k, v] : reals)
    p.push_back(v);
  for (auto [k, v] : ints)
    p.push_back(v);
  return p;
}

} // namespace

const OpDef &op_LabelEncoder() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "LabelEncoder";
    d.domain = kMlDomain;
    d.min_opset = 2;
    d.max_opset = 5;
    d.infer = [](Node &n) {
      Encoder e = read_encoder(n);
      set_output(n, 0, e.values.dtype, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      return call_on_all(n, "onnxc_k_ml_label_encoder", encoder_params(n, read_encoder(n)));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
