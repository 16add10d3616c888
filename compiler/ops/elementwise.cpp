// OpDefs for the element-wise ops listed in templates/cpu/elementwise.def: schema (attributes),
// shape rule (identity for unary, multidirectional broadcasting for binary) and lowering to the
// generated kernels onnxc_k_<id>_<dtype>.
#include "compiler/ops/elementwise.h"
#include "compiler/ops/strings/string_util.h"
#include "compiler/ops/sym_util.h"

#include <algorithm>

namespace onnxc {
namespace {

DType dtype_from_suffix(std::string_view sfx) {
  for (int32_t i = 0; i <= kMaxDType; ++i)
    if (dtype_suffix(static_cast<DType>(i)) == sfx)
      return static_cast<DType>(i);
  return DType::Undefined;
}

#define ONNXC_DTYPE_OF(ct, sfx, ...) dtype_from_suffix(#sfx),

void check_dtype(const Node &n, DType t, const std::vector<DType> &allowed) {
  for (DType d : allowed)
    if (d == t)
      return;
  std::string names;
  for (DType d : allowed)
    names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
  node_fail(n, "element type {} is not supported (supported: {})", dtype_name(t), names);
}

struct ScalarAttr {
  std::string name;
  double def;
  double get(const Node &n) const { return name.empty() ? 0.0 : attr_float(n, name, float(def)); }
};

OpDef unary(std::string op, std::string id, std::vector<DType> types, ScalarAttr a0, ScalarAttr a1,
            bool predicate = false) {
  OpDef d;
  d.elementwise = true;
  d.max_inputs = d.max_outputs = 1;
  d.name = std::move(op);
  d.min_opset = 6;
  if (d.name == "Not") { // Not-1 is today's Not
    d.min_opset = 1;
    d.before_min_opset = true;
  }
  for (const ScalarAttr &a : {a0, a1})
    if (!a.name.empty())
      d.attrs.push_back({a.name, Attribute::Kind::Float});
  d.infer = [types, predicate](Node &n) {
    check_dtype(n, input_dtype(n, 0), types);
    set_output_sym(n, 0, predicate ? DType::Bool : input_dtype(n, 0), input_sym_dims(n, 0));
  };
  d.lower = [id, a0, a1, predicate](const Node &n) {
    int64_t count = product(output_dims(n, 0));
    KernelCall call = call_on_all(n, kernel_name(n, id, input_dtype(n, 0)),
                                  {count, param_f64(a0.get(n)), param_f64(a1.get(n))});
    if (!predicate)
      call.inplace = {{0, 1}};
    return call;
  };
  return d;
}

/// Params for the broadcasting binary kernel: {0, n, a0} if no broadcasting, else
/// {rank, out_dims, a_strides, b_strides, a0}.
std::vector<int64_t> binary_params(const Node &n, double a0) {
  std::vector<int64_t> a = input_dims(n, 0), b = input_dims(n, 1), y = output_dims(n, 0);
  if (a == y && b == y)
    return {0, product(y), param_f64(a0)};
  std::vector<int64_t> p{static_cast<int64_t>(y.size())};
  for (const auto &v : {y, broadcast_strides(a, y), broadcast_strides(b, y)})
    p.insert(p.end(), v.begin(), v.end());
  p.push_back(param_f64(a0));
  return p;
}

/// A binary op's attribute as a number: ints as they are; BitShift's "direction" RIGHT = 0,
/// LEFT = 1.
double binary_attr(const Node &n, const ScalarAttr &a) {
  if (a.name.empty())
    return 0.0;
  if (a.name != "direction")
    return static_cast<double>(attr_int(n, a.name, int64_t(a.def)));
  std::string dir = attr_string(n, a.name, "");
  if (dir != "LEFT" && dir != "RIGHT")
    node_fail(n, "attribute 'direction' must be \"LEFT\" or \"RIGHT\", not \"{}\"", dir);
  return dir == "LEFT" ? 1.0 : 0.0;
}

/// Pow's exponent may have another numeric type than its base (opset 12+); these have kernels.
bool is_mixed_pow(const Node &n) {
  auto in = [](DType t, std::initializer_list<DType> l) {
    return std::find(l.begin(), l.end(), t) != l.end();
  };
  return n.op_type == "Pow" &&
         in(input_dtype(n, 0), {DType::Float, DType::Double, DType::Int32, DType::Int64}) &&
         in(input_dtype(n, 1), {DType::Float, DType::Double, DType::Int32, DType::Int64,
                                DType::Uint32, DType::Uint64});
}

OpDef binary(std::string op, std::string id, std::vector<DType> types, bool compare,
             ScalarAttr a0 = {}) {
  OpDef d;
  d.elementwise = true;
  d.max_inputs = 2;
  d.max_outputs = 1;
  d.name = std::move(op);
  d.min_opset = 7;
  if (!a0.name.empty())
    d.attrs.push_back({a0.name, a0.name == "direction" ? Attribute::Kind::String
                                                       : Attribute::Kind::Int});
  d.infer = [types, compare](Node &n) {
    DType t = input_dtype(n, 0);
    check_dtype(n, t, types);
    if (input_dtype(n, 1) != t && !is_mixed_pow(n))
      node_fail(n, "inputs have different element types ({} and {})", dtype_name(t),
                dtype_name(input_dtype(n, 1)));
    set_output_sym(n, 0, compare ? DType::Bool : t,
                   broadcast_sym_shapes(n, {input_sym_dims(n, 0), input_sym_dims(n, 1)}));
  };
  d.lower = [id, a0](const Node &n) {
    std::string kernel = kernel_name(n, id, input_dtype(n, 0));
    bool mixed = input_dtype(n, 1) != input_dtype(n, 0);
    if (mixed) // onnxc_k_pow_<base>_<exponent>
      kernel += "_" + std::string(dtype_suffix(input_dtype(n, 1)));
    KernelCall call = call_on_all(n, kernel, binary_params(n, binary_attr(n, a0)));
    for (int i : {0, 1}) // an input of the output's shape (and size) may be overwritten
      if (input_dims(n, static_cast<size_t>(i)) == output_dims(n, 0) && !(mixed && i == 1)) {
        call.inplace = {{i, 2}};
        break;
      }
    return call;
  };
  return d;
}

} // namespace

std::vector<OpDef> elementwise_ops() {
  std::vector<OpDef> ops;
#define ONNXC_UNARY(op, id, types, n0, d0, n1, d1, expr)                                           \
  ops.push_back(unary(#op, #id, {types(ONNXC_DTYPE_OF)}, {n0, d0}, {n1, d1}));
#define ONNXC_BINARY(op, id, types, n0, d0, expr)                                                  \
  ops.push_back(binary(#op, #id, {types(ONNXC_DTYPE_OF)}, false, {n0, d0}));
#define ONNXC_PREDICATE(op, id, types, n0, d0, n1, d1, expr)                                       \
  ops.push_back(unary(#op, #id, {types(ONNXC_DTYPE_OF)}, {n0, d0}, {n1, d1}, true));
#define ONNXC_COMPARE(op, id, types, expr) ops.push_back(binary(#op, #id, {types(ONNXC_DTYPE_OF)}, true));
#include "templates/cpu/types.h"
#include "templates/cpu/elementwise.def"
  for (OpDef &d : ops)
    if (d.name == "Equal")
      allow_string_equal(d); // compiler/ops/strings/
  return ops;
}

} // namespace onnxc
