// Constant (a tensor from one of its value* attributes) and ConstantOfShape (a tensor of the
// constant shape input filled with the one-element `value` attribute, default float 0).
// Both evaluate at compile time (OpDef::eval); they lower to writing / filling the output. A
// ConstantOfShape shape computed at run time shapes the output at run time (onnxc_k_fill_rt;
// no bound: the result goes to run-scoped memory under the context's dynamic limit).
#include "compiler/ops/op_util.h"
#include "templates/cpu/shaped_params.h"

#include <cstring>

namespace onnxc {

static const char *const kUnsupportedValues[] = {"sparse_value"};

/// The tensor a Constant node produces.
static Tensor constant_value(const Node &n) {
  for (const char *name : kUnsupportedValues)
    if (has_attr(n, name))
      node_fail(n, "attribute '{}' is not supported (sparse constants)", name);
  if (has_attr(n, "value_string") || has_attr(n, "value_strings")) {
    bool one = has_attr(n, "value_string");
    const Attribute *a = n.attr(one ? "value_string" : "value_strings");
    std::vector<std::string> v = one ? std::vector<std::string>{a->s} : a->strings;
    Tensor t(DType::String, one ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(v.size())});
    t.strings() = v;
    return t;
  }
  if (TensorPtr t = attr_tensor(n, "value")) {
    if (t->dtype() != DType::String && dtype_bits(t->dtype()) == 0)
      node_fail(n, "constants of element type {} are not supported", dtype_name(t->dtype()));
    return *t;
  }
  auto floats = [](const std::vector<float> &v, std::vector<int64_t> shape) {
    Tensor t(DType::Float, std::move(shape));
    if (!v.empty())
      std::memcpy(t.data(), v.data(), v.size() * sizeof(float));
    return t;
  };
  if (has_attr(n, "value_float"))
    return floats({attr_float(n, "value_float", 0)}, {});
  if (has_attr(n, "value_floats")) {
    std::vector<float> v = attr_floats(n, "value_floats");
    return floats(v, {static_cast<int64_t>(v.size())});
  }
  if (has_attr(n, "value_int"))
    return Tensor::scalar_i64(attr_int(n, "value_int", 0));
  if (has_attr(n, "value_ints"))
    return Tensor::vector_i64(attr_ints(n, "value_ints"));
  node_fail(n, "has no value attribute (value, value_float(s) or value_int(s))");
}

const OpDef &op_Constant() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Constant";
    d.attrs = {
        {"value", Attribute::Kind::Tensor},         {"value_float", Attribute::Kind::Float},
        {"value_floats", Attribute::Kind::Floats},  {"value_int", Attribute::Kind::Int},
        {"value_ints", Attribute::Kind::Ints},      {"value_string", Attribute::Kind::String},
        {"value_strings", Attribute::Kind::Strings}};
    d.infer = [](Node &n) {
      Tensor t = constant_value(n);
      set_output(n, 0, t.dtype(), t.shape());
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return std::vector<Tensor>{constant_value(n)};
    };
    d.lower = [](const Node &n) { return write_constant_call(n, constant_value(n)); };
    return d;
  }();
  return def;
}

/// ConstantOfShape's fill value (a one-element tensor).
static Tensor fill_value(const Node &n) {
  TensorPtr v = attr_tensor(n, "value");
  if (!v)
    return Tensor(DType::Float, {});
  if (v->numel() != 1)
    node_fail(n, "attribute 'value' must have exactly one element, it has {}", v->numel());
  int bits = dtype_bits(v->dtype());
  if (v->dtype() == DType::String || bits < 8)
    node_fail(n, "element type {} is not supported", dtype_name(v->dtype()));
  return *v;
}

static std::vector<int64_t> fill_shape(const Node &n) {
  std::vector<int64_t> shape = require_constant(n, 0, "input").to_int64_vector();
  for (int64_t d : shape)
    if (d < 0)
      node_fail(n, "shape {} has a negative dimension", dims_to_string(shape));
  return shape;
}

const OpDef &op_ConstantOfShape() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "ConstantOfShape";
    d.min_opset = 9;
    d.attrs = {{"value", Attribute::Kind::Tensor}};
    d.infer = [](Node &n) {
      if (values_at_run_time(n, 0)) {
        const std::vector<int64_t> s = input_dims(n, 0);
        if (s.size() != 1 || input_dtype(n, 0) != DType::Int64)
          node_fail(n, "input must be a 1-D int64 tensor, it is {}",
                    shape_to_string(n.inputs[0]->type));
        set_run_time_shaped_output(n, 0, fill_value(n).dtype(),
                                   std::vector<int64_t>(static_cast<size_t>(s[0]), 1), 0);
        return;
      }
      set_output(n, 0, fill_value(n).dtype(), fill_shape(n));
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      Tensor v = fill_value(n), out(v.dtype(), fill_shape(n));
      for (size_t off = 0; off < out.nbytes(); off += v.nbytes())
        std::memcpy(out.data() + off, v.data(), v.nbytes());
      return std::vector<Tensor>{std::move(out)};
    };
    d.lower = [](const Node &n) {
      Tensor v = fill_value(n);
      int64_t bits = 0;
      std::memcpy(&bits, v.data(), v.nbytes());
      if (n.inputs[0] && !n.inputs[0]->constant) {
        onnxc_k::FillRtParams p{static_cast<int64_t>(v.nbytes()), product(input_dims(n, 0)), bits};
        KernelCall call{"onnxc_k_fill_rt", {n.inputs[0], n.outputs[0]}, {}};
        set_params(call, p);
        return call;
      }
      return KernelCall{"onnxc_k_fill",
                        {n.outputs[0]},
                        {product(output_dims(n, 0)), static_cast<int64_t>(v.nbytes()), bits}};
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
