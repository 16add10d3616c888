// Half promotion (compiler/passes/promote_half.h): float16/bfloat16 nodes without a half kernel
// run in float between Casts, data movement stays in half, fuse-half-casts bypasses the
// rounding between consecutive promoted nodes; the graphs compute the right values (run node by
// node with the reference evaluator against a double-precision reference).
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/promote_half.h"
#include "compiler/passes/verify_graph.h"
#include "templates/cpu/half.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>

using namespace onnxc;
using Catch::Matchers::Contains;
namespace hf = onnxc_k::half;

namespace {

Value *input(Graph &g, const std::string &name, DType dt, std::vector<int64_t> dims) {
  Value *v = g.add_value(name, Type::of(dt, dims));
  v->is_graph_input = true;
  g.inputs.push_back(v);
  return v;
}

Node *op(Graph &g, const std::string &type, std::vector<Value *> ins) {
  Node *n = g.add_node(type, std::move(ins), 1);
  n->def = find_op("", type);
  n->opset = 17;
  n->name = type;
  REQUIRE(n->def);
  return n;
}

void output(Graph &g, Value *v) {
  v->is_graph_output = true;
  g.outputs.push_back(v);
}

Tensor half_tensor(const std::vector<float> &v) {
  Tensor t(DType::Float16, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    t.data_as<uint16_t>()[i] = hf::float_to_half(v[i]);
  return t;
}

/// Runs g node by node with the reference evaluator; returns graph output 0 as floats.
std::vector<float> run(const Graph &g, const Tensor &x) {
  std::map<const Value *, Tensor> env{{g.inputs[0], x}};
  for (const auto &n : g.nodes) {
    std::vector<const Tensor *> ins;
    for (const Value *v : n->inputs)
      ins.push_back(v->constant ? v->constant.get() : &env.at(v));
    env[n->outputs[0]] = std::move(evaluate_node(*n, ins)[0]);
  }
  const Tensor &y = env.at(g.outputs[0]);
  REQUIRE(y.dtype() == DType::Float16);
  std::vector<float> out;
  for (int64_t i = 0; i < y.numel(); ++i)
    out.push_back(hf::half_to_float(y.data_as<uint16_t>()[i]));
  return out;
}

int count_promotion_casts(const Graph &g) {
  int n = 0;
  for (const auto &node : g.nodes)
    n += node->op_type == "Cast" && node->attr(kHalfPromotionAttr);
  return n;
}

/// y = Sigmoid(Transpose(Mul(x, x) + x)) on float16 x[1x4].
struct Chain {
  Graph g;
  Node *mul, *add, *transpose, *sigmoid;
  Chain() {
    Value *x = input(g, "x", DType::Float16, {1, 4});
    mul = op(g, "Mul", {x, x});
    add = op(g, "Add", {mul->outputs[0], x});
    transpose = op(g, "Transpose", {add->outputs[0]});
    sigmoid = op(g, "Sigmoid", {transpose->outputs[0]});
    sigmoid->outputs[0]->name = "y";
    output(g, sigmoid->outputs[0]);
    infer_shapes(g);
    verify_graph(g, "infer-shapes");
  }
};

const std::vector<float> kX{-1.5f, 0.25f, 0.7f, 2.0f};

double reference(float x) { return 1.0 / (1.0 + std::exp(-(double(x) * x + x))); }

} // namespace

TEST_CASE("promote_half: compute ops run in float, data movement in half") {
  Chain c;
  CHECK(c.mul->inputs[0]->type.dtype == DType::Float);
  CHECK(c.mul->outputs[0]->type.dtype == DType::Float);
  CHECK(c.add->outputs[0]->type.dtype == DType::Float);
  CHECK(c.transpose->inputs[0]->type.dtype == DType::Float16); // native: no Casts around it
  CHECK(c.transpose->outputs[0]->type.dtype == DType::Float16);
  CHECK(c.sigmoid->outputs[0]->type.dtype == DType::Float);
  // The graph output keeps its value and name; a Cast back to half produces it.
  Value *y = c.g.outputs[0];
  CHECK(y->name == "y");
  CHECK(y->type.dtype == DType::Float16);
  CHECK(y->producer->op_type == "Cast");
  // x -> float once (shared by Mul and Add), Mul/Add/Sigmoid results back to half, and the
  // Transpose output to float for Sigmoid.
  CHECK(count_promotion_casts(c.g) == 6);
  std::vector<float> got = run(c.g, half_tensor(kX));
  for (size_t i = 0; i < kX.size(); ++i) {
    const float x = hf::half_to_float(hf::float_to_half(kX[i]));
    CHECK(std::fabs(got[i] - reference(x)) <= 1e-3 * reference(x));
  }
}

TEST_CASE("fuse-half-casts: consecutive promoted ops exchange float values") {
  Chain c;
  std::vector<float> rounded = run(c.g, half_tensor(kX));
  CHECK(fuse_half_casts(c.g) == 1); // Mul -> Add; the Transpose in half keeps its Casts
  verify_graph(c.g, "fuse-half-casts");
  CHECK(c.add->inputs[0] == c.mul->outputs[0]);
  CHECK(c.add->inputs[0]->type.dtype == DType::Float);
  std::vector<float> fused = run(c.g, half_tensor(kX));
  for (size_t i = 0; i < kX.size(); ++i) {
    const float x = hf::half_to_float(hf::float_to_half(kX[i]));
    CHECK(std::fabs(fused[i] - reference(x)) <= 1e-3 * reference(x));
    CHECK(std::fabs(fused[i] - rounded[i]) <= 1e-3 * reference(x));
  }
}

TEST_CASE("promote_half: bool outputs stay bool - a failing node reports its own error") {
  Graph g;
  Value *a = input(g, "a", DType::BFloat16, {3});
  Value *b = input(g, "b", DType::BFloat16, {3});
  Node *less = op(g, "Less", {a, b});
  output(g, less->outputs[0]);
  infer_shapes(g);
  CHECK(less->outputs[0]->type.dtype == DType::Bool);
  CHECK(g.outputs[0]->producer == less);

  Graph bad;
  Value *p = input(bad, "p", DType::Float16, {2});
  Value *q = input(bad, "q", DType::Float16, {3});
  output(bad, op(bad, "Mul", {p, q})->outputs[0]);
  CHECK_THROWS_WITH(infer_shapes(bad),
                    Contains("element type float16 is not supported") &&
                        Contains("; computed in float instead: ") &&
                        Contains("cannot be broadcast"));
}
