// Lookups between strings and integers: ai.onnx.ml CategoryMapper (int64 <-> string), and the
// calls LabelEncoder uses for string keys and for integer keys with string values. A repeated
// key keeps its first value (as ONNX Runtime). Kernels: onnxc_k_label_encoder_str and
// onnxc_k_int_to_string (templates/cpu/strings.cpp).
#include "compiler/ops/op_util.h"
#include "compiler/ops/strings/string_util.h"

#include <cstring>
#include <map>

namespace onnxc {

KernelCall string_keys_call(const Node &n, const std::vector<std::string> &keys,
                            const std::vector<int64_t> &raw_values, int64_t out_code,
                            int64_t default_raw) {
  std::map<std::string, int64_t> first;
  for (size_t i = 0; i < keys.size() && i < raw_values.size(); ++i)
    first.emplace(keys[i], raw_values[i]);
  std::vector<std::string> sorted;
  auto raw = std::make_shared<Tensor>(DType::Int64,
                                      std::vector<int64_t>{static_cast<int64_t>(first.size())});
  for (const auto &[k, v] : first) {
    raw->data_as<int64_t>()[sorted.size()] = v;
    sorted.push_back(k);
  }
  onnxc_k::LabelStrParams p{product(input_dims(n, 0)), static_cast<int64_t>(sorted.size()),
                            out_code, default_raw};
  KernelCall c{
      "onnxc_k_label_encoder_str", {nullptr, nullptr, nullptr, n.inputs[0], n.outputs[0]}, {}};
  add_table(c, 0, pack_strings(sorted), n.outputs[0]->name + ".keys");
  add_table(c, 1, raw, n.outputs[0]->name + ".values");
  set_params(c, p);
  return c;
}

KernelCall int_keys_to_strings_call(const Node &n, const std::vector<int64_t> &keys,
                                    const std::vector<std::string> &values,
                                    const std::string &fallback) {
  std::map<int64_t, std::string> first;
  for (size_t i = 0; i < keys.size() && i < values.size(); ++i)
    first.emplace(keys[i], values[i]);
  std::vector<std::string> sorted_values;
  auto k = std::make_shared<Tensor>(DType::Int64,
                                    std::vector<int64_t>{static_cast<int64_t>(first.size())});
  for (const auto &[key, v] : first) {
    k->data_as<int64_t>()[sorted_values.size()] = key;
    sorted_values.push_back(v);
  }
  int64_t in_bytes = dtype_bits(input_dtype(n, 0)) / 8;
  if (input_dtype(n, 0) != DType::Int64 && input_dtype(n, 0) != DType::Int32 &&
      input_dtype(n, 0) != DType::Int16)
    node_fail(n, "input must be int64, int32 or int16 to map to strings, not {}",
              dtype_name(input_dtype(n, 0)));
  onnxc_k::IntToStrParams p{product(input_dims(n, 0)), static_cast<int64_t>(first.size()),
                            in_bytes};
  KernelCall c{"onnxc_k_int_to_string", {nullptr, nullptr, nullptr, n.inputs[0], n.outputs[0]}, {}};
  add_table(c, 0, k, n.outputs[0]->name + ".keys");
  add_table(c, 1, pack_strings(sorted_values), n.outputs[0]->name + ".values");
  add_table(c, 2, pack_strings({fallback}), n.outputs[0]->name + ".default");
  set_params(c, p);
  return c;
}

const OpDef &op_CategoryMapper() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "CategoryMapper";
    d.domain = "ai.onnx.ml";
    d.min_opset = 1;
    d.max_opset = 5;
    d.attrs = {{"cats_int64s", Attribute::Kind::Ints},
               {"cats_strings", Attribute::Kind::Strings},
               {"default_int64", Attribute::Kind::Int},
               {"default_string", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      DType in = input_dtype(n, 0);
      if (in != DType::String && in != DType::Int64)
        node_fail(n, "input must be string or int64, not {}", dtype_name(in));
      if (attr_ints(n, "cats_int64s", {}).size() != attr_strings(n, "cats_strings").size())
        node_fail(n, "cats_int64s and cats_strings must have the same length");
      set_output(n, 0, in == DType::String ? DType::Int64 : DType::String, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> ints = attr_ints(n, "cats_int64s", {});
      std::vector<std::string> strs = attr_strings(n, "cats_strings");
      if (input_dtype(n, 0) == DType::String)
        return string_keys_call(n, strs, ints, 2, attr_int(n, "default_int64", -1));
      return int_keys_to_strings_call(n, ints, strs, attr_string(n, "default_string", "_Unused"));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
