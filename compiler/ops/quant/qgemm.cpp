// com.microsoft QGemm (ONNX Runtime's contrib op, also what the fuse-qdq pass turns a QDQ Gemm
// into): Y = quantize(alpha * (A - za)(B - zb) * sa * sb + C * sa * sb) with A M x K (transA = 0),
// B K x N or N x K (transB), uint8/int8, A's scale and zero point per tensor, B's per tensor or
// per column, C an int32 bias of N elements. Only the quantised output (y_scale given) is
// supported. Kernel: onnxc_k_qmatmul in templates/cpu/quant_gemm.cpp.
#include "compiler/ops/quant/quant_util.h"

namespace onnxc {
namespace {

struct QGemmShape {
  int64_t M, K, N;
  bool b_col;
};

QGemmShape qgemm_shape(const Node &n) {
  std::vector<int64_t> a = input_dims(n, 0), b = input_dims(n, 3);
  if (a.size() != 2 || b.size() != 2)
    node_fail(n, "A and B must be matrices, got {} and {}", dims_to_string(a), dims_to_string(b));
  if (attr_int(n, "transA", 0) != 0)
    node_fail(n, "transA = 1 is not supported");
  const bool tb = attr_int(n, "transB", 0) != 0;
  QGemmShape s{a[0], a[1], tb ? b[0] : b[1], false};
  if ((tb ? b[1] : b[0]) != s.K)
    node_fail(n, "inner dimensions differ: A is {}, B is {} (transB = {})", dims_to_string(a),
              dims_to_string(b), tb);
  per_element(n, 1, 1, "a_scale");
  if (n.has_input(2))
    per_element(n, 2, 1, "a_zero_point");
  s.b_col = per_element(n, 4, s.N, "b_scale (per tensor or per column)");
  if (n.has_input(5) && per_element(n, 5, s.N, "b_zero_point") != s.b_col && s.N > 1)
    node_fail(n, "b_scale and b_zero_point must both be per tensor or both per column");
  if (n.has_input(6) && (product(input_dims(n, 6)) != s.N || input_dims(n, 6).back() != s.N))
    node_fail(n, "bias C must have N = {} elements (shape [N] or [1, N]), got {}", s.N,
              dims_to_string(input_dims(n, 6)));
  return s;
}

void check_types(const Node &n) {
  for (size_t i : {0, 3})
    require_dtype(n, input_dtype(n, i), {DType::Uint8, DType::Int8});
  for (size_t i : {1, 4, 7})
    if (n.has_input(i))
      require_dtype(n, input_dtype(n, i), {DType::Float});
  if (n.has_input(6))
    require_dtype(n, input_dtype(n, 6), {DType::Int32});
  if (!n.has_input(7))
    node_fail(n, "QGemm without y_scale (float output) is not supported");
  if (n.has_input(2) && input_dtype(n, 2) != input_dtype(n, 0))
    node_fail(n, "a_zero_point must have A's element type");
  if (n.has_input(5) && input_dtype(n, 5) != input_dtype(n, 3))
    node_fail(n, "b_zero_point must have B's element type");
}

DType output_dtype(const Node &n) { return n.has_input(8) ? input_dtype(n, 8) : DType::Uint8; }

} // namespace

const OpDef &op_QGemm() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "QGemm";
    d.domain = "com.microsoft";
    d.min_opset = 1;
    d.max_opset = 1;
    d.attrs = {{"alpha", Attribute::Kind::Float},
               {"transA", Attribute::Kind::Int},
               {"transB", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      check_types(n);
      QGemmShape s = qgemm_shape(n);
      DType y = output_dtype(n);
      if (y != DType::Uint8 && y != DType::Int8)
        node_fail(n, "y_zero_point element type {} is not supported (uint8, int8)", dtype_name(y));
      set_output(n, 0, y, {s.M, s.N});
    };
    d.lower = [](const Node &n) {
      QGemmShape s = qgemm_shape(n);
      const bool tb = attr_int(n, "transB", 0) != 0;
      KernelCall c;
      c.kernel = "onnxc_k_qmatmul";
      c.args = {n.inputs[0], n.inputs[3], n.input(2), n.input(5), n.inputs[1],
                n.inputs[4], n.inputs[7], n.input(8), n.input(6), n.outputs[0]};
      c.params = {static_cast<int64_t>(input_dtype(n, 0)),
                  static_cast<int64_t>(input_dtype(n, 3)),
                  static_cast<int64_t>(output_dtype(n)),
                  static_cast<int64_t>(DType::Float),
                  s.M,
                  s.N,
                  s.K,
                  false,
                  s.b_col,
                  1,
                  1,
                  tb ? 1 : s.N,
                  tb ? s.K : 1,
                  param_f64(attr_float(n, "alpha", 1.0f)),
                  0};
      c.scratch_bytes = int_gemm_scratch(s.M, 1, s.K, s.N);
      return c;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
