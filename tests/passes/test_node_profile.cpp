// describe_for_profile / estimate_flops: what `onnxc compile --profile` embeds per kernel call.
#include "compiler/passes/node_profile.h"

#include <catch2/catch.hpp>

using namespace onnxc;

namespace {

Value *typed(Graph &g, const std::string &name, std::vector<Dim> dims) {
  Value *v = g.add_value(name);
  v->type.dtype = DType::Float;
  v->type.shape = std::move(dims);
  return v;
}

Node *node(Graph &g, const std::string &op, std::vector<Value *> ins, std::vector<Dim> out) {
  Node *n = g.add_node(op, std::move(ins), 1);
  n->outputs[0]->type.dtype = DType::Float;
  n->outputs[0]->type.shape = std::move(out);
  return n;
}

void set_int(Node *n, const std::string &name, int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::Int;
  a.i = v;
  n->attrs[name] = a;
}

} // namespace

TEST_CASE("estimate_flops: Conv counts 2 per multiply-add of every output element") {
  Graph g;
  // 1x4x8x8 input, 6 filters of 2 channels (group 2) and 3x3 kernel -> 1x6x8x8.
  Node *n =
      node(g, "Conv", {typed(g, "x", {1, 4, 8, 8}), typed(g, "w", {6, 2, 3, 3})}, {1, 6, 8, 8});
  CHECK(estimate_flops(*n) == 2ull * (6 * 8 * 8) * (2 * 3 * 3));
}

TEST_CASE("estimate_flops: ConvTranspose scatters every input element over the kernel") {
  Graph g;
  Node *n = node(g, "ConvTranspose", {typed(g, "x", {1, 3, 5, 5}), typed(g, "w", {3, 4, 2, 2})},
                 {1, 4, 10, 10});
  CHECK(estimate_flops(*n) == 2ull * (3 * 5 * 5) * (4 * 2 * 2));
}

TEST_CASE("estimate_flops: MatMul and Gemm (with transA)") {
  Graph g;
  Node *mm = node(g, "MatMul", {typed(g, "a", {2, 3, 7}), typed(g, "b", {7, 5})}, {2, 3, 5});
  CHECK(estimate_flops(*mm) == 2ull * 30 * 7);
  Node *gemm = node(g, "Gemm", {typed(g, "ga", {9, 4}), typed(g, "gb", {9, 6})}, {4, 6});
  set_int(gemm, "transA", 1);
  CHECK(estimate_flops(*gemm) == 2ull * 24 * 9);
}

TEST_CASE("estimate_flops: element-wise ~ numel, data movement 0") {
  Graph g;
  Node *add = node(g, "Add", {typed(g, "p", {4, 5}), typed(g, "q", {5})}, {4, 5});
  CHECK(estimate_flops(*add) == 20);
  Node *t = node(g, "Transpose", {typed(g, "r", {4, 5})}, {5, 4});
  CHECK(estimate_flops(*t) == 0);
}

TEST_CASE("describe_for_profile: name, op and shapes - unnamed nodes use their description") {
  Graph g;
  Node *n = node(g, "Relu", {typed(g, "x", {1, 3})}, {1, 3});
  n->index = 7;
  NodeProfile p = describe_for_profile(*n);
  CHECK(p.name == "node #7 (Relu)");
  CHECK(p.op_type == "Relu");
  CHECK(p.input_shapes == "1x3");
  CHECK(p.output_shapes == "1x3");
  n->name = "relu1";
  CHECK(describe_for_profile(*n).name == "relu1");
}
