// ai.onnx.ml LabelEncoder (opset 2 and later) for numeric keys and values: keys_int64s /
// keys_floats / keys_tensor and values_int64s / values_floats / values_tensor (int16, int32,
// int64, float, double), default_int64 / default_float / default_tensor. As ONNX Runtime: a
// repeated key keeps its first value (the ONNX text says the last; ONNX Runtime, the reference
// for the tests, keeps the first), a NaN key matches every NaN input. String keys map to
// numeric or string values, integer keys to string values, and opset 1 maps classes_strings
// to their indices or back (compiler/ops/strings/string_maps.cpp); float keys with string
// values are refused. Kernel for numeric keys: templates/cpu/ml_encode.cpp.
#include "compiler/ops/ml/ml_util.h"
#include "compiler/ops/strings/string_util.h"

#include <cmath>
#include <map>

namespace onnxc {

namespace {

/// Keys or values: their element type and numbers (integers exactly, floats as doubles).
struct Column {
  DType dtype = DType::Undefined;
  std::vector<int64_t> ints;
  std::vector<double> reals;
  std::vector<std::string> strs;
  size_t size() const {
    return dtype == DType::String ? strs.size() : is_real() ? reals.size() : ints.size();
  }
  bool is_real() const { return dtype == DType::Float || dtype == DType::Double; }
};

Column tensor_column(const Node &n, [[maybe_unused]] const std::string &name, const Tensor &t) {
  Column c;
  c.dtype = t.dtype();
  if (t.dtype() == DType::String) {
    c.strs = t.strings();
    return c;
  }
  ml_type_code(n, t.dtype());
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
  if (name == prefix + "_strings") {
    Column c;
    c.dtype = DType::String;
    c.strs = attr_strings(n, name);
    return c;
  }
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

/// Opset 1: classes_strings[i] <-> i, in the direction of the input's type.
Encoder read_opset1(const Node &n) {
  Column names, indices;
  names.dtype = DType::String;
  names.strs = attr_strings(n, "classes_strings");
  indices.dtype = DType::Int64;
  for (size_t i = 0; i < names.strs.size(); ++i)
    indices.ints.push_back(static_cast<int64_t>(i));
  if (input_dtype(n, 0) == DType::String)
    return {names, indices};
  return {indices, names};
}

Encoder read_encoder(const Node &n) {
  Encoder e =
      n.opset < 2 ? read_opset1(n) : Encoder{read_column(n, "keys"), read_column(n, "values")};
  if (e.keys.size() != e.values.size())
    node_fail(n, "{} keys but {} values; they must pair up", e.keys.size(), e.values.size());
  if (e.keys.is_real() && e.values.dtype == DType::String)
    node_fail(n, "float keys with string values are not supported");
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

/// The default string of string values: default_tensor, else default_string.
std::string default_string(const Node &n) {
  if (TensorPtr t = attr_tensor(n, "default_tensor")) {
    if (t->dtype() != DType::String || t->numel() != 1)
      node_fail(n, "'default_tensor' must hold one string");
    return t->strings()[0];
  }
  return attr_string(n, "default_string", "_Unused");
}

/// Lowering when keys or values are strings (compiler/ops/strings/string_maps.cpp).
KernelCall string_call(const Node &n, const Encoder &e) {
  if (e.keys.dtype != DType::String)
    return int_keys_to_strings_call(n, e.keys.ints, e.values.strs, default_string(n));
  if (e.values.dtype != DType::String) {
    std::vector<int64_t> raw;
    for (size_t i = 0; i < e.values.size(); ++i)
      raw.push_back(e.values.is_real() ? param_f64(e.values.reals[i]) : e.values.ints[i]);
    return string_keys_call(n, e.keys.strs, raw, ml_type_code(n, e.values.dtype),
                            n.opset < 2 ? attr_int(n, "default_int64", -1)
                                        : default_raw(n, e.values));
  }
  // string -> string: values by key index, looked up in a string table.
  std::vector<int64_t> index;
  for (size_t i = 0; i < e.keys.strs.size(); ++i)
    index.push_back(static_cast<int64_t>(i));
  KernelCall c = string_keys_call(n, e.keys.strs, index, -1, 0);
  // The kernel reads string values from a table in key order: rebuild it for the sorted keys.
  std::map<std::string, size_t> first;
  for (size_t i = 0; i < e.keys.strs.size(); ++i)
    first.emplace(e.keys.strs[i], i);
  std::vector<std::string> values;
  for (const auto &kv : first)
    values.push_back(e.values.strs[kv.second]);
  c.derived.at(1).tensor = pack_strings(values);
  add_table(c, 2, pack_strings({default_string(n)}), n.outputs[0]->name + ".default");
  return c;
}

} // namespace

const OpDef &op_LabelEncoder() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "LabelEncoder";
    d.domain = kMlDomain;
    d.min_opset = 1;
    d.max_opset = 5;
    d.infer = [](Node &n) {
      Encoder e = read_encoder(n);
      set_output(n, 0, e.values.dtype, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      Encoder e = read_encoder(n);
      if (e.keys.dtype == DType::String || e.values.dtype == DType::String)
        return string_call(n, e);
      return call_on_all(n, "onnxc_k_ml_label_encoder", encoder_params(n, e));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
