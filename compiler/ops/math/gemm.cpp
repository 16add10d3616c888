// Gemm: Y = alpha * A' B' + beta * C, with A' = transA ? A^T : A, B' likewise; C (optional since
// opset 11) broadcasts unidirectionally to M x N. float/double.
#include "compiler/ops/nn/nn_util.h"

namespace onnxc {
namespace {

struct GemmDims {
  int64_t M, N, K;
};

GemmDims gemm_dims(const Node &n) {
  std::vector<int64_t> a = input_dims(n, 0), b = input_dims(n, 1);
  if (a.size() != 2 || b.size() != 2)
    node_fail(n, "A and B must be matrices (got {} and {})", dims_to_string(a), dims_to_string(b));
  const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
  GemmDims g{ta ? a[1] : a[0], tb ? b[0] : b[1], ta ? a[0] : a[1]};
  const int64_t kb = tb ? b[1] : b[0];
  if (g.K != kb)
    node_fail(n, "inner dimensions differ: A{} is {} and B{} is {} (K = {} vs {})", ta ? "^T" : "",
              dims_to_string(a), tb ? "^T" : "", dims_to_string(b), g.K, kb);
  if (n.has_input(2)) {
    std::vector<int64_t> c = input_dims(n, 2);
    const std::vector<int64_t> mn{g.M, g.N};
    bool ok = c.size() <= 2;
    for (size_t k = 0; ok && k < c.size(); ++k)
      ok = c[k] == 1 || c[k] == mn[2 - c.size() + k];
    if (!ok)
      node_fail(n, "C of shape {} does not broadcast to the {}x{} result", dims_to_string(c), g.M,
                g.N);
  }
  return g;
}

} // namespace

const OpDef &op_Gemm() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Gemm";
    d.attrs = {{"alpha", Attribute::Kind::Float},
               {"beta", Attribute::Kind::Float},
               {"transA", Attribute::Kind::Int},
               {"transB", Attribute::Kind::Int},
               {"broadcast", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double});
      for (size_t i = 1; i < 3; ++i)
        if (n.has_input(i) && input_dtype(n, i) != dt)
          node_fail(n, "input {} has element type {} but A has {}", i,
                    dtype_name(input_dtype(n, i)), dtype_name(dt));
      GemmDims g = gemm_dims(n);
      set_output(n, 0, dt, {g.M, g.N});
    };
    d.lower = [](const Node &n) {
      GemmDims g = gemm_dims(n);
      const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
      GemmSpec s;
      s.a = n.inputs[0], s.b = n.inputs[1], s.c = n.input(2), s.y = n.outputs[0];
      s.M = g.M, s.N = g.N, s.K = g.K;
      s.rsa = ta ? 1 : g.K, s.csa = ta ? g.M : 1;
      s.rsb = tb ? 1 : g.N, s.csb = tb ? g.K : 1;
      s.alpha = attr_float(n, "alpha", 1.0f), s.beta = attr_float(n, "beta", 1.0f);
      if (s.c) {
        std::vector<int64_t> st = broadcast_strides(input_dims(n, 2), {g.M, g.N});
        s.rsc = st[0], s.csc = st[1];
      }
      return gemm_call(n, s);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
