// LSTM, GRU and RNN: shape rules (layout, directions, omitted outputs), the reference evaluator
// (the natively compiled recurrent kernel) on values computed by hand, and the error messages.
// The wide coverage (every attribute, packed GEMM sizes) is tests/recurrent/make_cases.py.
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/node_attrs.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace onnxc;

namespace {

TensorPtr floats(const std::vector<int64_t> &dims, std::vector<float> v) {
  auto t = std::make_shared<Tensor>(DType::Float, dims);
  REQUIRE(static_cast<int64_t>(v.size()) == t->numel());
  for (size_t i = 0; i < v.size(); ++i)
    t->data_as<float>()[i] = v[i];
  return t;
}

TensorPtr int32s(const std::vector<int64_t> &dims, std::vector<int32_t> v) {
  auto t = std::make_shared<Tensor>(DType::Int32, dims);
  for (size_t i = 0; i < v.size(); ++i)
    t->data_as<int32_t>()[i] = v[i];
  return t;
}

TensorPtr zeros(const std::vector<int64_t> &dims) {
  auto t = std::make_shared<Tensor>(DType::Float, dims);
  for (int64_t i = 0; i < t->numel(); ++i)
    t->data_as<float>()[i] = 0;
  return t;
}

struct RecurrentNode : test::AttrSetters<RecurrentNode> {
  Graph g;
  Node *node = nullptr;

  RecurrentNode(const char *op, std::vector<TensorPtr> ins, size_t outs) {
    std::vector<Value *> vals;
    for (size_t i = 0; i < ins.size(); ++i)
      vals.push_back(ins[i] ? g.add_constant("in" + std::to_string(i), ins[i]) : nullptr);
    node = g.add_node(op, vals, outs);
    node->def = find_op("", op);
    node->opset = 14;
    REQUIRE(node->def);
    for (Value *o : node->outputs)
      o->is_graph_output = true;
  }
  RecurrentNode &attr(const char *name, Attribute a) {
    node->attrs[name] = std::move(a);
    return *this;
  }
  RecurrentNode &strings(const char *name, std::vector<std::string> v) {
    Attribute a;
    a.kind = Attribute::Kind::Strings, a.strings = std::move(v);
    return attr(name, a);
  }
  void infer() { node->def->infer(*node); }
  std::vector<Tensor> run() {
    infer();
    std::vector<const Tensor *> in;
    for (Value *v : node->inputs)
      in.push_back(v ? v->constant.get() : nullptr);
    return evaluate_node(*node, in);
  }
  std::vector<int64_t> dims(size_t i) { return node->outputs[i]->type.static_dims(); }
};

using Dims = std::vector<int64_t>;

float at(const Tensor &t, int64_t i) { return t.data_as<float>()[i]; }

} // namespace

TEST_CASE("LSTM shapes: layout 1, bidirectional", "[ops][recurrent]") {
  RecurrentNode n("LSTM", {zeros({2, 5, 3}), zeros({2, 16, 3}), zeros({2, 16, 4})}, 3);
  n.i("layout", 1).s("direction", "bidirectional").i("hidden_size", 4).infer();
  CHECK(n.dims(0) == Dims{2, 5, 2, 4});
  CHECK(n.dims(1) == Dims{2, 2, 4});
  CHECK(n.dims(2) == Dims{2, 2, 4});
  RecurrentNode m("GRU", {zeros({5, 2, 3}), zeros({1, 12, 3}), zeros({1, 12, 4})}, 2);
  m.infer();
  CHECK(m.dims(0) == Dims{5, 1, 2, 4});
  CHECK(m.dims(1) == Dims{1, 2, 4});
}

TEST_CASE("RNN by hand: bias, sequence_lens, reverse, Relu", "[ops][recurrent]") {
  // seq 2, batch 2, input 1, hidden 1: h_t = f(0.5 x_t + 0.25 h_{t-1} + 0.1)
  auto x = floats({2, 2, 1}, {1, -3, 2, 4});
  auto w = floats({1, 1, 1}, {0.5f}), r = floats({1, 1, 1}, {0.25f});
  auto b = floats({1, 2}, {0.06f, 0.04f});
  RecurrentNode n("RNN", {x, w, r, b, int32s({2}, {2, 1})}, 2);
  std::vector<Tensor> out = n.run();
  const float h10 = std::tanh(0.6f), h20 = std::tanh(1.0f + 0.25f * h10 + 0.1f);
  const float h11 = std::tanh(-1.5f + 0.1f);
  CHECK(at(out[0], 0) == Approx(h10)); // Y[t=0, d=0, b=0]
  CHECK(at(out[0], 1) == Approx(h11));
  CHECK(at(out[0], 2) == Approx(h20));
  CHECK(at(out[0], 3) == 0.0f); // b=1 has length 1: zeros after it
  CHECK(at(out[1], 0) == Approx(h20));
  CHECK(at(out[1], 1) == Approx(h11)); // its last valid state

  RecurrentNode rev("RNN", {x, w, r, b}, 2);
  rev.s("direction", "reverse").strings("activations", {"Relu"});
  out = rev.run();
  const float g1 = std::max(0.0f, 1.0f + 0.1f), g0 = std::max(0.0f, 0.5f + 0.25f * g1 + 0.1f);
  CHECK(at(out[0], 2) == Approx(g1)); // step 1 runs first
  CHECK(at(out[0], 0) == Approx(g0));
  CHECK(at(out[1], 0) == Approx(g0)); // Y_h is the state after step 0
}

TEST_CASE("LSTM by hand: one step with an initial state", "[ops][recurrent]") {
  // hidden 1, input 1, gates i, o, f, c with W = 1, R = 0, no bias; x = 0.5, c0 = 2.
  auto x = floats({1, 1, 1}, {0.5f});
  auto w = floats({1, 4, 1}, {1, 1, 1, 1}), r = zeros({1, 4, 1});
  auto h0 = floats({1, 1, 1}, {0.3f}), c0 = floats({1, 1, 1}, {2.0f});
  RecurrentNode n("LSTM", {x, w, r, nullptr, nullptr, h0, c0}, 3);
  std::vector<Tensor> out = n.run();
  const float s = 1.0f / (1.0f + std::exp(-0.5f)), c = s * 2.0f + s * std::tanh(0.5f);
  CHECK(at(out[2], 0) == Approx(c));
  CHECK(at(out[1], 0) == Approx(s * std::tanh(c)));
}

TEST_CASE("Recurrent ops: errors", "[ops][recurrent]") {
  auto x = zeros({3, 2, 4});
  RecurrentNode h("LSTM", {x, zeros({1, 12, 4}), zeros({1, 12, 3})}, 1);
  h.i("hidden_size", 4);
  CHECK_THROWS_WITH(h.infer(), Catch::Contains("hidden_size is 4 but R has shape 1x12x3"));
  RecurrentNode d("GRU", {x, zeros({1, 9, 4}), zeros({1, 9, 3})}, 1);
  d.s("direction", "sideways");
  CHECK_THROWS_WITH(d.infer(), Catch::Contains("direction must be forward, reverse or"));
  RecurrentNode two("GRU", {x, zeros({1, 9, 4}), zeros({1, 9, 3})}, 1);
  two.s("direction", "bidirectional");
  CHECK_THROWS_WITH(two.infer(), Catch::Contains("W has shape 1x9x4 but must be 2x9x4"));
  RecurrentNode lens("RNN", {x, zeros({1, 3, 4}), zeros({1, 3, 3}), nullptr, zeros({2})}, 1);
  CHECK_THROWS_WITH(lens.infer(), Catch::Contains("sequence_lens must be int32"));
  RecurrentNode acts("LSTM", {x, zeros({1, 12, 4}), zeros({1, 12, 3})}, 1);
  acts.strings("activations", {"Sigmoid", "Tanh"});
  CHECK_THROWS_WITH(acts.infer(), Catch::Contains("activations lists 2 functions"));
  RecurrentNode bad_len("RNN",
                        {x, zeros({1, 3, 4}), zeros({1, 3, 3}), nullptr, int32s({2}, {4, 1})}, 1);
  CHECK_THROWS_WITH(bad_len.run(), Catch::Contains("sequence_lens has a value outside"));
}
