// MatMulInteger (uint8/int8 operands, int32 result) and QLinearMatMul (requantised uint8/int8
// result): numpy matrix products with zero points per tensor, per row of A or per column of B
// (and scales likewise for QLinearMatMul). Kernel: onnxc_k_qmatmul in templates/cpu/quant_gemm.cpp.
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/quant/quant_util.h"

namespace onnxc {
namespace {

/// Where a matrix product's operands and quantisation inputs are (input indices; -1: none).
struct QMatMulInputs {
  int a, b, a_zp, b_zp, a_scale, b_scale, y_scale, y_zp;
};

constexpr QMatMulInputs kMatMulInteger{0, 1, 2, 3, -1, -1, -1, -1};
constexpr QMatMulInputs kQLinearMatMul{0, 3, 2, 5, 1, 4, 6, 7};

void require_int8(const Node &n, int i) {
  require_dtype(n, input_dtype(n, i), {DType::Uint8, DType::Int8});
}

/// Checks dtypes and zero-point / scale shapes; returns {a per-row, b per-column}.
std::pair<bool, bool> check_qmatmul(const Node &n, const QMatMulInputs &q) {
  require_int8(n, q.a);
  require_int8(n, q.b);
  if (n.has_input(q.a_zp) && input_dtype(n, q.a_zp) != input_dtype(n, q.a))
    node_fail(n, "A's zero point must have A's element type");
  if (n.has_input(q.b_zp) && input_dtype(n, q.b_zp) != input_dtype(n, q.b))
    node_fail(n, "B's zero point must have B's element type");
  MatMulShape ms = matmul_shape(n, q.a, q.b);
  const int64_t M = ms.a[ms.a.size() - 2], N = ms.b.back();
  bool a_row = false, b_col = false;
  if (n.has_input(q.a_zp))
    a_row = per_element(n, q.a_zp, M, "A's zero point (per tensor or per row)");
  if (n.has_input(q.b_zp))
    b_col = per_element(n, q.b_zp, N, "B's zero point (per tensor or per column)");
  if (q.a_scale >= 0) {
    const bool sa_row = per_element(n, q.a_scale, M, "a_scale (per tensor or per row)");
    const bool sb_col = per_element(n, q.b_scale, N, "b_scale (per tensor or per column)");
    if ((n.has_input(q.a_zp) && sa_row != a_row) || (n.has_input(q.b_zp) && sb_col != b_col))
      node_fail(n, "a scale and its zero point must both be per tensor or both per row/column");
    per_element(n, q.y_scale, 1, "y_scale");
    if (n.has_input(q.y_zp))
      per_element(n, q.y_zp, 1, "y_zero_point");
    a_row = sa_row, b_col = sb_col;
  }
  return {a_row, b_col};
}

KernelCall qmatmul_call(const Node &n, const QMatMulInputs &q) {
  auto [a_row, b_col] = check_qmatmul(n, q);
  MatMulShape ms = matmul_shape(n, q.a, q.b);
  const int64_t M = ms.a[ms.a.size() - 2], K = ms.a.back(), N = ms.b.back();
  std::vector<int64_t> ab(ms.a.begin(), ms.a.end() - 2), bb(ms.b.begin(), ms.b.end() - 2);
  const int64_t b_count = product(bb);
  KernelCall c;
  c.kernel = "onnxc_k_qmatmul";
  c.args = {n.inputs[q.a],
            n.inputs[q.b],
            n.input(q.a_zp),
            n.input(q.b_zp),
            input_or_null(n, q.a_scale),
            input_or_null(n, q.b_scale),
            input_or_null(n, q.y_scale),
            input_or_null(n, q.y_zp),
            nullptr,
            n.outputs[0]};
  const int64_t s_dt = q.a_scale >= 0 ? static_cast<int64_t>(input_dtype(n, q.a_scale)) : 0;
  c.params = {static_cast<int64_t>(input_dtype(n, q.a)),
              static_cast<int64_t>(input_dtype(n, q.b)),
              static_cast<int64_t>(n.outputs[0]->type.dtype),
              s_dt,
              M,
              N,
              K,
              a_row,
              b_col,
              product(ab),
              b_count,
              N,              // B's row stride
              1,              // B's column stride
              param_f64(1.0), // alpha
              static_cast<int64_t>(ms.batch.size())};
  c.params.insert(c.params.end(), ms.batch.begin(), ms.batch.end());
  for (const auto *dims : {&ab, &bb}) {
    std::vector<int64_t> st = broadcast_strides(*dims, ms.batch);
    c.params.insert(c.params.end(), st.begin(), st.end());
  }
  c.scratch_bytes = int_gemm_scratch(product(ab) * M, b_count, K, N);
  return c;
}

} // namespace

const OpDef &op_MatMulInteger() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "MatMulInteger";
    d.min_opset = 10;
    d.infer = [](Node &n) {
      check_qmatmul(n, kMatMulInteger);
      set_output(n, 0, DType::Int32, matmul_shape(n).out);
    };
    d.lower = [](const Node &n) { return qmatmul_call(n, kMatMulInteger); };
    return d;
  }();
  return def;
}

const OpDef &op_QLinearMatMul() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "QLinearMatMul";
    d.min_opset = 10;
    d.infer = [](Node &n) {
      const QMatMulInputs &q = kQLinearMatMul;
      check_qmatmul(n, q);
      DType s = input_dtype(n, q.a_scale);
      require_dtype(n, s, {DType::Float, DType::Float16, DType::BFloat16});
      if (input_dtype(n, q.b_scale) != s || input_dtype(n, q.y_scale) != s)
        node_fail(n, "a_scale, b_scale and y_scale must have the same element type");
      DType y = n.has_input(q.y_zp) ? input_dtype(n, q.y_zp) : input_dtype(n, q.a);
      if (y != DType::Uint8 && y != DType::Int8)
        node_fail(n, "y_zero_point element type {} is not supported (uint8, int8)", dtype_name(y));
      set_output(n, 0, y, matmul_shape(n, q.a, q.b).out);
    };
    d.lower = [](const Node &n) { return qmatmul_call(n, kQLinearMatMul); };
    return d;
  }();
  return def;
}

} // namespace onnxc
