// The attention family: shape rules for every optional input/output combination of Attention
// (3-D/4-D, GQA, KV cache, qk_matmul_output), RotaryEmbedding, LinearAttention,
// CausalConvWithState, SwiGLU and FlexAttention; the natively compiled kernels (the reference
// evaluator) on values computed by hand; the error messages. Larger cases against numpy:
// tests/attention/make_cases.py.
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/node_attrs.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace onnxc;

namespace {

using Dims = std::vector<int64_t>;

TensorPtr filled(DType dt, const Dims &dims, std::vector<double> v = {}) {
  auto t = std::make_shared<Tensor>(dt, dims);
  for (int64_t i = 0; i < t->numel(); ++i) {
    const double x = v.empty() ? 0.0 : v[static_cast<size_t>(i)];
    if (dt == DType::Float)
      t->data_as<float>()[i] = static_cast<float>(x);
    else if (dt == DType::Int64)
      t->data_as<int64_t>()[i] = static_cast<int64_t>(x);
    else if (dt == DType::Bool)
      t->data_as<bool>()[i] = x != 0;
  }
  return t;
}
TensorPtr f32(const Dims &d, std::vector<double> v = {}) { return filled(DType::Float, d, v); }

struct OpNode : test::AttrSetters<OpNode> {
  Graph g;
  Node *node = nullptr;

  /// A node with the given inputs (nullptr: omitted) and outputs (false: unused, as the frontend
  /// makes an omitted optional output).
  OpNode(const char *op, std::vector<TensorPtr> ins, std::vector<bool> outs, int64_t opset = 24,
         const char *domain = "") {
    std::vector<Value *> vals;
    for (size_t i = 0; i < ins.size(); ++i)
      vals.push_back(ins[i] ? g.add_constant("in" + std::to_string(i), ins[i]) : nullptr);
    node = g.add_node(op, vals, outs.size());
    node->domain = domain;
    node->def = find_op(domain, op);
    node->opset = opset;
    REQUIRE(node->def);
    for (size_t i = 0; i < outs.size(); ++i) // an omitted output: a value nobody uses
      node->outputs[i]->is_graph_output = outs[i];
  }
  void infer() { node->def->infer(*node); }
  std::vector<Tensor> run() {
    infer();
    std::vector<const Tensor *> in;
    for (Value *v : node->inputs)
      in.push_back(v ? v->constant.get() : nullptr);
    return evaluate_node(*node, in);
  }
  Dims dims(size_t i) { return node->outputs[i]->type.static_dims(); }
};

float at(const Tensor &t, int64_t i) { return t.data_as<float>()[i]; }

} // namespace

TEST_CASE("Attention shapes: 4-D GQA with cache and every output", "[ops][attention]") {
  OpNode n("Attention",
           {f32({2, 6, 3, 8}), f32({2, 2, 4, 8}), f32({2, 2, 4, 5}), f32({3, 9}), f32({2, 2, 5, 8}),
            f32({2, 2, 5, 5})},
           {true, true, true, true});
  n.infer();
  CHECK(n.dims(0) == Dims{2, 6, 3, 5});
  CHECK(n.dims(1) == Dims{2, 2, 9, 8});
  CHECK(n.dims(2) == Dims{2, 2, 9, 5});
  CHECK(n.dims(3) == Dims{2, 6, 3, 9});
}

TEST_CASE("Attention shapes: 3-D, omitted outputs in the middle", "[ops][attention]") {
  OpNode n("Attention", {f32({2, 3, 4 * 8}), f32({2, 7, 2 * 8}), f32({2, 7, 2 * 6})},
           {true, false, false, true});
  n.i("q_num_heads", 4).i("kv_num_heads", 2).infer();
  CHECK(n.dims(0) == Dims{2, 3, 4 * 6});
  CHECK(n.dims(3) == Dims{2, 4, 3, 7});
  OpNode only_y("Attention", {f32({1, 2, 16}), f32({1, 2, 16}), f32({1, 2, 16})}, {true});
  only_y.i("q_num_heads", 2).i("kv_num_heads", 2).infer();
  CHECK(only_y.dims(0) == Dims{1, 2, 16});
}

TEST_CASE("Attention by hand: causal, GQA and a boolean mask", "[ops][attention]") {
  // One batch, 2 query heads on 1 kv head, L = T = 2, D = 1, scale 1.
  // Query row 0 sees key 0 only (causal); row 1 sees keys 0 and 1.
  auto q = f32({1, 2, 2, 1}, {1, 2, 0, -1}), k = f32({1, 1, 2, 1}, {1, 3});
  auto v = f32({1, 1, 2, 1}, {10, 20});
  OpNode n("Attention", {q, k, v}, {true, false, false, true});
  n.i("is_causal", 1).f("scale", 1.0f).i("qk_matmul_output_mode", 3);
  std::vector<Tensor> out = n.run();
  const float p1 = 1.0f / (1.0f + std::exp(6.0f - 2.0f)); // h0 row 1: softmax(2, 6)
  CHECK(at(out[0], 0) == Approx(10.0f));
  CHECK(at(out[0], 1) == Approx(10.0f * p1 + 20.0f * (1 - p1)));
  const float p2 = 1.0f / (1.0f + std::exp(-3.0f + 1.0f)); // h1 row 1: softmax(-1, -3)
  CHECK(at(out[0], 3) == Approx(10.0f * p2 + 20.0f * (1 - p2)));
  CHECK(at(out[3], 1) == 0.0f); // the masked-out key has probability 0

  // A boolean mask that hides every key of row 0: that row's output is zeros.
  OpNode m("Attention", {q, k, v, filled(DType::Bool, {2, 2}, {0, 0, 1, 1})}, {true});
  out = m.run();
  CHECK(at(out[0], 0) == 0.0f);
  CHECK(at(out[0], 2) == 0.0f);
  CHECK(at(out[0], 1) > 10.0f);
}

TEST_CASE("RotaryEmbedding, SwiGLU and CausalConvWithState by hand", "[ops][attention]") {
  // One head of size 2 rotated by 90 degrees: (x1, x2) -> (-x2, x1).
  OpNode r("RotaryEmbedding", {f32({1, 1, 1, 2}, {3, 4}), f32({1, 1, 1}, {0}), f32({1, 1, 1}, {1})},
           {true}, 23);
  std::vector<Tensor> out = r.run();
  CHECK(at(out[0], 0) == Approx(-4.0f));
  CHECK(at(out[0], 1) == Approx(3.0f));

  OpNode s("SwiGLU", {f32({2}, {1, -2}), f32({2}, {3, 5})}, {true}, 28);
  s.f("alpha", 0.5f);
  out = s.run();
  CHECK(at(out[0], 0) == Approx(3.0f / (1.0f + std::exp(-0.5f))));
  CHECK(at(out[0], 1) == Approx(-10.0f / (1.0f + std::exp(1.0f))));

  // K = 2, weights (1, 10), past state 7: y_l = x_{l-1} + 10 x_l.
  OpNode c("CausalConvWithState",
           {f32({1, 1, 3}, {1, 2, 3}), f32({1, 1, 2}, {1, 10}), nullptr, f32({1, 1, 1}, {7})},
           {true, true}, 27);
  out = c.run();
  CHECK(at(out[0], 0) == Approx(17.0f));
  CHECK(at(out[0], 2) == Approx(32.0f));
  CHECK(at(out[1], 0) == Approx(3.0f));
  CHECK(c.dims(1) == Dims{1, 1, 1});
}

TEST_CASE("LinearAttention shapes and a linear step by hand", "[ops][attention]") {
  OpNode n("LinearAttention",
           {f32({2, 3, 8 * 4}), f32({2, 3, 2 * 4}), f32({2, 3, 2 * 6}), nullptr, f32({2, 3, 2}),
            f32({2, 3, 1})},
           {true, true}, 27);
  n.i("q_num_heads", 8).i("kv_num_heads", 2).infer();
  CHECK(n.dims(0) == Dims{2, 3, 8 * 6});
  CHECK(n.dims(1) == Dims{2, 2, 4, 6});
  // Dk = Dv = 1, linear rule, scale 1: state = k v accumulated; y_t = q_t * state_t.
  OpNode l("LinearAttention",
           {f32({1, 2, 1}, {2, 3}), f32({1, 2, 1}, {1, 4}), f32({1, 2, 1}, {5, 6})}, {true, true},
           27);
  l.i("q_num_heads", 1).i("kv_num_heads", 1).s("update_rule", "linear").f("scale", 1.0f);
  std::vector<Tensor> out = l.run();
  CHECK(at(out[0], 0) == Approx(10.0f));
  CHECK(at(out[0], 1) == Approx(3.0f * (5 + 24)));
  CHECK(at(out[1], 0) == Approx(29.0f));
}

TEST_CASE("Attention family: errors", "[ops][attention]") {
  OpNode past("Attention",
              {f32({1, 2, 3, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8}), nullptr, f32({1, 2, 5, 8}),
               nullptr},
              {true});
  CHECK_THROWS_WITH(past.infer(),
                    Catch::Contains("past_key and past_value must be given together"));
  OpNode mode("Attention", {f32({1, 2, 3, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8})}, {true});
  mode.i("qk_matmul_output_mode", 4);
  CHECK_THROWS_WITH(mode.infer(), Catch::Contains("qk_matmul_output_mode must be 0 to 3"));
  OpNode mask("Attention", {f32({1, 2, 3, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8}), f32({3, 5})},
              {true});
  CHECK_THROWS_WITH(mask.infer(), Catch::Contains("attn_mask's last dim 5 exceeds"));
  OpNode pos("RotaryEmbedding",
             {f32({1, 1, 2, 2}), f32({4, 1}), f32({4, 1}), filled(DType::Int64, {1, 2}, {0, 4})},
             {true}, 23);
  CHECK_THROWS_WITH(pos.run(), Catch::Contains("position id lies outside"));
  OpNode act("CausalConvWithState", {f32({1, 1, 3}), f32({1, 1, 2})}, {true, true}, 27);
  act.s("activation", "relu");
  CHECK_THROWS_WITH(act.infer(), Catch::Contains("activation 'relu' is not one of"));
  OpNode glu("SwiGLU", {f32({2}), f32({3})}, {true}, 28);
  CHECK_THROWS_WITH(glu.infer(), Catch::Contains("must have the same shape"));
  OpNode flex("FlexAttention", {f32({1, 2, 3, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8})}, {true}, 1,
              "ai.onnx.preview");
  // infer-shapes expands a FlexAttention with modifiers (compiler/passes/expand_ops.h); one
  // that reaches the op's own rule is an internal error, never a silently dropped modifier.
  flex.node->attrs["score_mod"].kind = Attribute::Kind::Graph;
  CHECK_THROWS_WITH(flex.infer(), Catch::Contains("graph attribute 'score_mod' was not expanded"));
}
