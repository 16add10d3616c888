// Run-time batch by per-sample execution (passes/sample_wise.h): which graphs keep the samples
// of a batch apart, and the reason, naming the node, for those that do not.
#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/sample_wise.h"

#include "tests/passes/graph_builders.h"

#include <catch2/catch.hpp>

using namespace onnxc;
using namespace onnxc::test;

namespace {

/// Graph with input x = batch x 3 x 8 x 8 (or `dims`), built by `body`, shapes inferred
/// symbolically; returns what check_sample_wise says.
SampleWise analyse(const std::function<void(Graph &, Value *)> &body,
                   std::vector<Dim> dims = {Dim::symbolic("batch"), Dim(3), Dim(8), Dim(8)}) {
  Graph g;
  Value *x = input(g, "x", std::move(dims));
  body(g, x);
  ShapeBindings b;
  b.keep_symbolic = true;
  bind_input_shapes(g, b);
  REQUIRE(find_batch_symbol(g) == std::optional<std::string>("batch"));
  infer_shapes(g);
  return check_sample_wise(g, "batch");
}

Value *out(Graph &g, Node *n) {
  output(g, n->outputs[0]);
  return n->outputs[0];
}

} // namespace

TEST_CASE("sample-wise: a CNN head keeps the samples apart") {
  SampleWise s = analyse([](Graph &g, Value *x) {
    Node *conv = op(g, "Conv", {x, floats(g, {4, 3, 3, 3}), floats(g, {4})});
    conv->attrs["pads"].kind = Attribute::Kind::Ints;
    conv->attrs["pads"].ints = {1, 1, 1, 1};
    Value *r = op(g, "Relu", {conv->outputs[0]})->outputs[0];
    Value *bias = op(g, "Add", {r, floats(g, {1, 4, 1, 1})})->outputs[0];
    // Reshape to (batch, 256) through Shape -> Gather -> Concat, as exporters write it.
    Value *shp = op(g, "Shape", {bias})->outputs[0];
    Value *n = op(g, "Gather", {shp, ints(g, {0})})->outputs[0];
    Value *target = op(g, "Concat", {n, ints(g, {-1})})->outputs[0];
    target->producer->attrs["axis"].kind = Attribute::Kind::Int;
    Value *flat = op(g, "Reshape", {bias, target})->outputs[0];
    Value *y = op(g, "MatMul", {flat, floats(g, {256, 10})})->outputs[0];
    Node *sm = op(g, "Softmax", {y});
    out(g, sm);
  });
  CHECK(s.reason.empty());
  CHECK(s.batched_inputs == std::vector<bool>{true});
  CHECK(s.batched_outputs == std::vector<bool>{true});
}

TEST_CASE("sample-wise: ops that mix the samples are refused, naming the node") {
  auto refused = [](const std::function<void(Graph &, Value *)> &body) {
    return analyse(body).reason;
  };
  // A concatenation along the batch axis.
  CHECK_THAT(refused([](Graph &g, Value *x) {
               Node *c = op(g, "Concat", {x, x});
               c->attrs["axis"].kind = Attribute::Kind::Int; // axis 0
               out(g, c);
             }),
             Catch::Contains("Concat") && Catch::Contains("axis 0"));
  // Softmax across the batch.
  CHECK_THAT(refused([](Graph &g, Value *x) {
               Node *r = op(g, "Softmax", {x});
               r->attrs["axis"].kind = Attribute::Kind::Int; // axis 0
               out(g, r);
             }),
             Catch::Contains("Softmax") && Catch::Contains("axis 0"));
  // A Reshape that merges the batch into another dim: (batch, 192) -> (batch*2, 96).
  CHECK_THAT(refused([](Graph &g, Value *x) {
               Value *f = op(g, "Flatten", {x})->outputs[0];
               out(g, op(g, "Reshape", {f, ints(g, {-1, 96})}));
             }),
             Catch::Contains("Reshape"));
  // A transpose that moves the batch to axis 1 of a graph output.
  CHECK_THAT(refused([](Graph &g, Value *x) {
               Node *t = op(g, "Transpose", {x});
               t->attrs["perm"].kind = Attribute::Kind::Ints;
               t->attrs["perm"].ints = {1, 0, 2, 3};
               out(g, t);
             }),
             Catch::Contains("has the batch at axis 1, not 0"));
  // The batch size used as a number: x / Size(x).
  CHECK_THAT(refused([](Graph &g, Value *x) {
               Value *n = op(g, "Size", {x})->outputs[0];
               Node *c = op(g, "Cast", {n});
               c->attrs["to"].kind = Attribute::Kind::Int;
               c->attrs["to"].i = 1;
               out(g, op(g, "Div", {x, c->outputs[0]}));
             }),
             Catch::Contains("batch size"));
  // A graph output that is the batch size.
  CHECK_THAT(refused([](Graph &g, Value *x) { out(g, op(g, "Shape", {x})); }),
             Catch::Contains("depends on the batch size"));
}

TEST_CASE("sample-wise: the batch only at dim 0 of the inputs") {
  Graph g;
  input(g, "x", {Dim(3), Dim::symbolic("batch")});
  ShapeBindings b;
  b.keep_symbolic = true;
  bind_input_shapes(g, b);
  CHECK_FALSE(find_batch_symbol(g));
  Graph h;
  input(h, "x", {Dim::symbolic("batch"), Dim(3)});
  input(h, "y", {Dim::symbolic("n"), Dim(3)});
  bind_input_shapes(h, b);
  CHECK_FALSE(find_batch_symbol(h)); // two symbols: not one batch
}

TEST_CASE("sample-wise: an embedding lookup and a batch-independent input") {
  SampleWise s = analyse(
      [](Graph &g, Value *ids) {
        ids->type.dtype = DType::Int64;
        Value *table = floats(g, {100, 16});
        Value *emb = op(g, "Gather", {table, ids})->outputs[0]; // batch x 5 x 16
        Value *scale = input(g, "scale", {Dim(16)});
        out(g, op(g, "Mul", {emb, scale}));
      },
      {Dim::symbolic("batch"), Dim(5)});
  CHECK(s.reason.empty());
  CHECK(s.batched_inputs == std::vector<bool>{true, false});
}
