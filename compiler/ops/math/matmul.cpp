// MatMul: numpy matrix product. 1-D operands are promoted (A: [K] -> [1, K], B: [K] -> [K, 1])
// and the added dim is removed from the result; leading batch dims broadcast. float/double.
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/sym_util.h"

#include <utility>

namespace onnxc {

MatMulShape matmul_shape(const Node &n, size_t ai, size_t bi) {
  MatMulShape s;
  std::vector<int64_t> a = input_dims(n, ai), b = input_dims(n, bi);
  if (b.size() >= 2 && attr_int(n, kTransBAttr, 0) != 0) /* fuse-transpose: B stored [.., N, K] */
    std::swap(b[b.size() - 2], b[b.size() - 1]);
  if (a.empty() || b.empty())
    node_fail(n, "matrix product operands must have rank >= 1 (got {} and {})", dims_to_string(a),
              dims_to_string(b));
  s.a = a.size() == 1 ? std::vector<int64_t>{1, a[0]} : a;
  s.b = b.size() == 1 ? std::vector<int64_t>{b[0], 1} : b;
  const int64_t K = s.a.back(), Kb = s.b[s.b.size() - 2];
  if (K != Kb)
    node_fail(n,
              "inner dimensions differ: A is {} and B is {} (A's last dim must equal B's "
              "second-to-last)",
              dims_to_string(a), dims_to_string(b));
  std::vector<int64_t> ab(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
  s.batch = broadcast_shapes(n, {ab, bb});
  s.out = s.batch;
  if (a.size() > 1)
    s.out.push_back(s.a[s.a.size() - 2]);
  if (b.size() > 1)
    s.out.push_back(s.b.back());
  return s;
}

const OpDef &op_MatMul() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "MatMul";
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
      if (input_dtype(n, 1) != input_dtype(n, 0))
        node_fail(n, "A and B have different element types");
      if (!has_symbolic_input(n)) {
        set_output(n, 0, input_dtype(n, 0), matmul_shape(n).out);
        return;
      }
      std::vector<SymInt> a = input_sym_dims(n, 0), b = input_sym_dims(n, 1);
      if (a.empty() || b.empty())
        node_fail(n, "matrix product operands must have rank >= 1");
      if (a.back() != b[b.size() > 1 ? b.size() - 2 : 0])
        node_fail(n, "inner dimensions differ: A is {} and B is {}", sym_dims_to_string(a),
                  sym_dims_to_string(b));
      std::vector<SymInt> out =
          broadcast_sym_shapes(n, {{a.begin(), a.end() - std::min<size_t>(a.size(), 2)},
                                   {b.begin(), b.end() - std::min<size_t>(b.size(), 2)}});
      if (a.size() > 1)
        out.push_back(a[a.size() - 2]);
      if (b.size() > 1)
        out.push_back(b.back());
      set_output_sym(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      MatMulShape ms = matmul_shape(n);
      GemmSpec s;
      s.a = n.inputs[0], s.b = n.inputs[1], s.y = n.outputs[0];
      s.M = ms.a[ms.a.size() - 2], s.K = ms.a.back(), s.N = ms.b.back();
      s.rsa = s.K, s.csa = 1, s.rsb = s.N, s.csb = 1;
      if (attr_int(n, kTransBAttr, 0) != 0) /* B stored [.., N, K]: B(k, n) at n K + k */
        s.rsb = 1, s.csb = s.K;
      s.batch = ms.batch;
      std::vector<int64_t> ab(ms.a.begin(), ms.a.end() - 2), bb(ms.b.begin(), ms.b.end() - 2);
      s.a_bs = broadcast_strides(ab, ms.batch);
      s.b_bs = broadcast_strides(bb, ms.batch);
      s.a_count = product(ab), s.b_count = product(bb);
      if (attr_int(n, kBiasAttr, 0) != 0 && n.input(2)) /* fuse-bias: C = the bias per column */
        s.c = n.inputs[2], s.rsc = 0, s.csc = 1;
      if (n.attr(kScaleAttr)) { /* fuse-scale: alpha */
        const std::vector<float> sc = attr_floats(n, kScaleAttr);
        if (sc.size() != 2 || sc[0] == 0)
          node_fail(n, "internal error: malformed {} attribute", kScaleAttr);
        s.alpha = sc[1] != 0 ? 1.0 / static_cast<double>(sc[0]) : static_cast<double>(sc[0]);
      }
      return gemm_call(n, s);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
