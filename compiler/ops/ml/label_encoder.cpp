// ai.onnx.ml LabelEncoder (opset 2 and later) for numeric keys and values: keys_int64s /
// keys_floats / keys_tensor and values_int64s / values_floats / values_tensor (int16, int32,
// int64, float, double), default_int64 / default_float / default_tensor. As ONNX Runtime: a
// repeated key keeps its first value (the ONNX text says the last; ONNX Runtime, the reference
// for the tests, keeps the first), a NaN key matches every NaN input. String keys map to
// numeric or string values (onnxc_k_label_encoder_str, templates/cpu/strings.cpp); numeric
// keys with string values, and opset 1, are refused. Kernel for numeric keys:
// templates/cpu/ml_encode.cpp (onnxc_k_ml_label_encoder).
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

Encoder read_encoder(const Node &n) {
  Encoder e{read_column(n, "keys"), read_column(n, "values")};
  if (e.keys.size() != e.values.size())
    node_fail(n, "{} keys but {} values; they must pair up", e.keys.size(), e.values.size());
  if (e.keys.dtype != DType::String && e.values.dtype == DType::String)
    node_fail(n, "numeric keys with string values are not supported yet");
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

/// String keys: the sorted unique keys (a repeated key keeps its first value) with their
/// values (raw int64 per key, or a string table), the default, onnxc_k_label_encoder_str.
KernelCall string_key_call(const Node &n, const Encoder &e) {
  std::map<std::string, size_t> first; // key -> index of its first pair
  for (size_t i = 0; i < e.keys.strs.size(); ++i)
    first.emplace(e.keys.strs[i], i);
  std::vector<std::string> keys, str_values;
  auto raw = std::make_shared<Tensor>(DType::Int64,
                                      std::vector<int64_t>{static_cast<int64_t>(first.size())});
  for (auto [k, i] : first) {
    raw->data_as<int64_t>()[keys.size()] =
        e.values.dtype == DType::String ? 0
        : e.values.is_real()            ? param_f64(e.values.reals[i])
                                        : e.values.ints[i];
    keys.push_back(k);
    if (e.values.dtype == DType::String)
      str_values.push_back(e.values.strs[i]);
  }
  onnxc_k::LabelStrParams p{product(input_dims(n, 0)), static_cast<int64_t>(keys.size()), -1, 0};
  KernelCall c{"onnxc_k_label_encoder_str", {nullptr, nullptr, nullptr, n.inputs[0], n.outputs[0]},
               {}};
  std::string base = n.outputs[0]->name;
  add_table(c, 0, pack_strings(keys), base + ".keys");
  if (e.values.dtype == DType::String) {
    std::vector<std::string> d{attr_string(n, "default_string", "_Unused")};
    if (TensorPtr t = attr_tensor(n, "default_tensor"))
      d = t->strings();
    if (d.size() != 1)
      node_fail(n, "'default_tensor' must hold one string");
    add_table(c, 1, pack_strings(str_values), base + ".values");
    add_table(c, 2, pack_strings(d), base + ".default");
  } else {
    p.out_code = ml_type_code(n, e.values.dtype);
    p.default_raw = default_raw(n, e.values);
    add_table(c, 1, raw, base + ".values");
  }
  set_params(c, p);
  return c;
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
      Encoder e = read_encoder(n);
      if (e.keys.dtype == DType::String)
        return string_key_call(n, e);
      return call_on_all(n, "onnxc_k_ml_label_encoder", encoder_params(n, e));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
