// Pass tests: small graphs before/after shape binding, inference, folding, DCE and memory
// planning.
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/check_supported.h"
#include "compiler/passes/eliminate_dead_code.h"
#include "compiler/passes/fold_constants.h"
#include "compiler/passes/form_regions.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/plan_memory.h"
#include "compiler/passes/verify_graph.h"

#include "tests/passes/graph_builders.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>

using namespace onnxc;
using namespace onnxc::test;

namespace {

Value *const_i64(Graph &g, const std::string &name, const std::vector<int64_t> &v) {
  Value *c = g.add_constant(name, std::make_shared<Tensor>(Tensor::vector_i64(v)));
  g.initializers.push_back(c);
  return c;
}

} // namespace

TEST_CASE("bind_input_shapes binds --shape and --dim and names the flag when unbound") {
  Graph g;
  Value *x = input(g, "x", {Dim::symbolic("batch"), Dim(3)});
  ShapeBindings none;
  CHECK_THAT(error_of([&] { bind_input_shapes(g, none); }), Catch::Contains("--dim batch=N"));
  ShapeBindings b;
  parse_dim_flag("batch=4", b);
  bind_input_shapes(g, b);
  CHECK(x->type.static_dims() == std::vector<int64_t>{4, 3});

  Graph g2;
  Value *y = input(g2, "y", {Dim(), Dim(2)});
  ShapeBindings s;
  parse_shape_flag("y=5x2", s);
  bind_input_shapes(g2, s);
  CHECK(y->type.static_dims() == std::vector<int64_t>{5, 2});

  ShapeBindings wrong;
  parse_shape_flag("y=5x3", wrong);
  CHECK_THAT(error_of([&] { bind_input_shapes(g2, wrong); }), Catch::Contains("fixed to 2"));
  ShapeBindings unknown;
  parse_shape_flag("nope=1", unknown);
  CHECK_THAT(error_of([&] { bind_input_shapes(g2, unknown); }),
             Catch::Contains("no input named 'nope'"));
  CHECK_THAT(error_of([&] { parse_shape_flag("x=1xbad", unknown); }),
             Catch::Contains("invalid dimension"));
}

TEST_CASE("infer_shapes broadcasts and reports mismatches naming the node") {
  Graph g;
  Value *a = input(g, "a", {2, 3});
  Value *b = input(g, "b", {3});
  Node *add = op(g, "Add", {a, b});
  add->name = "add0";
  output(g, add->outputs[0]);
  infer_shapes(g);
  CHECK(add->outputs[0]->type.static_dims() == std::vector<int64_t>{2, 3});

  Graph bad;
  Value *c = input(bad, "c", {2, 3});
  Value *d = input(bad, "d", {4});
  Node *n = op(bad, "Mul", {c, d});
  n->name = "mul0";
  output(bad, n->outputs[0]);
  std::string msg = error_of([&] { infer_shapes(bad); });
  CHECK_THAT(msg, Catch::Contains("node 'mul0' (Mul"));
  CHECK_THAT(msg, Catch::Contains("2x3 and 4 cannot be broadcast"));
}

TEST_CASE("constant propagation folds a chain of constant nodes into a weight") {
  Graph g;
  Value *x = input(g, "x", {2, 2});
  Value *c1 = g.add_constant("c1", std::make_shared<Tensor>(Tensor(DType::Float, {2, 2})));
  g.initializers.push_back(c1);
  Node *e = op(g, "Exp", {c1});                           // exp(0) = 1: constant
  Node *s = op(g, "Add", {e->outputs[0], e->outputs[0]}); // 2: constant
  Node *m = op(g, "Mul", {x, s->outputs[0]});             // x * 2: run time
  output(g, m->outputs[0]);
  infer_shapes(g);
  REQUIRE(s->outputs[0]->constant);
  const float *two = s->outputs[0]->constant->data_as<float>();
  CHECK(two[0] == 2.0f);
  CHECK(two[3] == 2.0f);
  CHECK(fold_constants(g) == 2);
  CHECK(g.nodes.size() == 1);
  CHECK(g.nodes[0]->op_type == "Mul");
  verify_graph(g, "fold-constants");
}

TEST_CASE("random ops are never folded: RandomUniform has no inputs, Bernoulli constant ones") {
  Graph g;
  Node *u = op(g, "RandomUniform", {});
  u->attrs["shape"].kind = Attribute::Kind::Ints;
  u->attrs["shape"].ints = {2, 3};
  u->attrs["seed"].kind = Attribute::Kind::Float; // seeded: still drawn at run time
  u->attrs["seed"].f = 1.0f;
  Value *p = g.add_constant("p", std::make_shared<Tensor>(Tensor(DType::Float, {4})));
  g.initializers.push_back(p);
  Node *b = op(g, "Bernoulli", {p});
  output(g, u->outputs[0]);
  output(g, b->outputs[0]);
  infer_shapes(g);
  CHECK(u->outputs[0]->type.static_dims() == std::vector<int64_t>{2, 3});
  CHECK(b->outputs[0]->type.dtype == DType::Float);
  CHECK_FALSE(u->outputs[0]->constant);
  CHECK_FALSE(b->outputs[0]->constant);
  CHECK(fold_constants(g) == 0);
  CHECK(g.nodes.size() == 2);
}

TEST_CASE("dead code elimination keeps only what outputs need") {
  Graph g;
  Value *x = input(g, "x", {4});
  Node *used = op(g, "Relu", {x});
  Node *dead = op(g, "Exp", {x});
  Node *dead2 = op(g, "Neg", {dead->outputs[0]});
  (void)dead2;
  output(g, used->outputs[0]);
  infer_shapes(g);
  CHECK(eliminate_dead_code(g) == 2);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0]->op_type == "Relu");
  CHECK(x->uses.size() == 1);
  verify_graph(g, "dce");
}

TEST_CASE("check_supported lists every unsupported node") {
  Graph g;
  Value *x = input(g, "x", {4});
  Node *n = g.add_node("FancyOp", {x}, 1);
  n->name = "fancy";
  n->opset = 17;
  Node *m = g.add_node("Relu", {x}, 1);
  m->def = find_op("", "Relu");
  m->opset = 3;
  auto bad = find_unsupported_ops(g);
  REQUIRE(bad.size() == 2);
  CHECK_THAT(bad[0],
             Catch::Contains("node 'fancy' (FancyOp") &&
                 Catch::Contains("onnxc does not support ai.onnx operator FancyOp (opset 17)"));
  CHECK_THAT(bad[1], Catch::Contains("opset 3"));
  CHECK_THROWS_AS(check_supported_ops(g), Error);
}

TEST_CASE("check_supported names standard-domain ops as unsupported, others as custom") {
  Graph g;
  Value *x = input(g, "x", {4});
  Node *ml = g.add_node("FancyMlOp", {x}, 1);
  ml->domain = "ai.onnx.ml";
  ml->opset = 3;
  Node *custom = g.add_node("Fancy", {x}, 1);
  custom->domain = "com.example";
  custom->opset = 1;
  auto bad = find_unsupported_ops(g);
  REQUIRE(bad.size() == 2);
  CHECK_THAT(bad[0], Catch::Contains("onnxc does not support ai.onnx.ml operator FancyMlOp "
                                     "(opset 3) yet"));
  CHECK_THAT(bad[0], !Catch::Contains("custom"));
  CHECK_THAT(bad[1], Catch::Contains("Fancy of domain 'com.example' is a custom operator"));
}

namespace {

/// True if two arena values' byte ranges overlap.
bool overlaps(const Value *a, const Value *b) {
  int64_t ae = a->offset + type_bytes(a->type), be = b->offset + type_bytes(b->type);
  return a->offset < be && b->offset < ae;
}

/// form-regions, lower-regions (CPU) and plan-memory, as the pipeline runs them.
ExecutionPlan plan_of(Graph &g, const std::string &name, bool inplace = true,
                      bool concat_in_place = true) {
  ExecutionPlan plan = form_regions(g, name);
  lower_regions(g, plan, lower_region_cpu);
  PlanOptions o;
  o.inplace = inplace;
  o.concat_in_place = concat_in_place;
  plan_memory(plan, o);
  return plan;
}

} // namespace

/// x -> r1 -> r2 -> r3 -> r4 -> y = Exp(r4), and Add(y, r1): a chain, with r1 live to the end.
struct Chain {
  Graph g;
  Value *x;
  std::vector<Value *> mids;
  Value *last;
  Chain() {
    x = input(g, "x", {256});
    Value *cur = x;
    for (int i = 0; i < 4; ++i) {
      Node *n = op(g, i % 2 ? "Relu" : "Neg", {cur});
      cur = n->outputs[0];
      mids.push_back(cur);
    }
    last = op(g, "Exp", {cur})->outputs[0];
    output(g, last);
    output(g, op(g, "Add", {last, mids[0]})->outputs[0]);
    infer_shapes(g);
  }
};

TEST_CASE("memory planner reuses arena space only between non-overlapping lifetimes") {
  Chain c; // without in-place outputs, so that every value has its own interval
  ExecutionPlan plan = plan_of(c.g, "chain", /*inplace=*/false);
  const std::vector<Value *> &mids = c.mids;
  REQUIRE(plan.calls.size() == 6);
  for (Value *v : mids)
    CHECK(v->storage == Storage::Arena);
  CHECK(c.last->storage == Storage::GraphOutput);
  CHECK(c.x->storage == Storage::GraphInput);
  // r1 lives across everything: no other intermediate may share its bytes.
  for (size_t i = 1; i < mids.size(); ++i)
    CHECK_FALSE(overlaps(mids[0], mids[i]));
  // Consecutive values are live together.
  for (size_t i = 1; i + 1 < mids.size(); ++i)
    CHECK_FALSE(overlaps(mids[i], mids[i + 1]));
  // r2 and r4 never coexist: the planner reuses r2's space.
  CHECK(mids[1]->offset == mids[3]->offset);
  CHECK(plan.arena_size == 3 * 1024);
  CHECK(plan.intermediates_size == 4 * 1024);
  CHECK(plan.inplace_values == 0);
  for (Value *v : mids)
    CHECK(v->offset % ExecutionPlan::kArenaAlignment == 0);
}

TEST_CASE("memory planner computes element-wise outputs in place of inputs that die there") {
  Chain c;
  ExecutionPlan plan = plan_of(c.g, "chain");
  const std::vector<Value *> &mids = c.mids;
  // r1 is read again at the end, so r2 cannot take its buffer; r3 takes r2's, r4 takes r3's.
  CHECK_FALSE(overlaps(mids[0], mids[1]));
  CHECK(mids[2]->offset == mids[1]->offset);
  CHECK(mids[3]->offset == mids[2]->offset);
  CHECK(plan.inplace_values == 2);
  CHECK(plan.arena_size == 2 * 1024);
  CHECK(plan.intermediates_size == 4 * 1024);
}

TEST_CASE("memory planner gives a Reshape, Flatten or Squeeze the buffer of an input that dies "
          "there") {
  // x (4x64) -> Neg -> Reshape [16, 16] -> Flatten -> Unsqueeze [0] -> Squeeze [0] -> Relu: each
  // renaming op's output takes its input's buffer (its copy kernel then copies nothing); before,
  // every one was a copy into a buffer of its own.
  Graph g;
  Value *x = input(g, "x", {4, 64});
  Value *a = op(g, "Neg", {x})->outputs[0];
  Value *r = op(g, "Reshape", {a, const_i64(g, "shape", {16, 16})})->outputs[0];
  Value *f = op(g, "Flatten", {r})->outputs[0];
  Value *u = op(g, "Unsqueeze", {f, const_i64(g, "axes", {0})})->outputs[0];
  Value *q = op(g, "Squeeze", {u, const_i64(g, "axes0", {0})})->outputs[0];
  output(g, op(g, "Relu", {q})->outputs[0]);
  infer_shapes(g);
  ExecutionPlan plan = plan_of(g, "renames");
  for (Value *v : {r, f, u, q})
    CHECK(v->offset == a->offset);
  CHECK(plan.inplace_values == 4);
  CHECK(plan.arena_size == 1024);
}

namespace {
/// x (1x16x4x4) -> a = Neg(x), b = Relu(x), c = Exp(x) -> Concat(axis) -> Sigmoid -> y, and
/// optionally b also read by a Neg after the Concat (a second output).
struct ConcatOfThree {
  Graph g;
  Value *a, *b, *c, *cat;
  ConcatOfThree(int64_t axis, bool b_read_later) {
    Value *x = input(g, "x", {1, 16, 4, 4});
    a = op(g, "Neg", {x})->outputs[0];
    b = op(g, "Relu", {x})->outputs[0];
    c = op(g, "Exp", {x})->outputs[0];
    Node *concat = op(g, "Concat", {a, b, c});
    concat->attrs["axis"].kind = Attribute::Kind::Int;
    concat->attrs["axis"].i = axis;
    cat = concat->outputs[0];
    output(g, op(g, "Sigmoid", {cat})->outputs[0]);
    if (b_read_later)
      output(g, op(g, "Neg", {b})->outputs[0]);
    infer_shapes(g);
  }
};
} // namespace

TEST_CASE("memory planner computes a Concat's inputs in its output's buffer") {
  ConcatOfThree t(1, false);
  ExecutionPlan plan = plan_of(t.g, "concat");
  CHECK(plan.concats_in_place == 1);
  REQUIRE(plan.calls.size() == 4); // Neg, Relu, Exp, Sigmoid: no copy
  for (const PlannedCall &pc : plan.calls)
    CHECK(pc.call.kernel.find("concat") == std::string::npos);
  REQUIRE(t.cat->storage == Storage::Arena);
  CHECK(t.a->offset == t.cat->offset);
  CHECK(t.b->offset == t.cat->offset + 1024);
  CHECK(t.c->offset == t.cat->offset + 2048);
  // The output's buffer is live from the first input's call on.
  CHECK(plan.arena_size == 3 * 1024);
}

TEST_CASE("memory planner keeps a Concat whose inputs are not whole runs of its output or are "
          "read elsewhere") {
  // The Concat keeps its call (Neg, Relu, Exp, Concat, Sigmoid, and `extra` more) and its input
  // `in` its own buffer.
  auto kept = [](const ExecutionPlan &plan, const Value *in, const Value *cat, size_t extra) {
    CHECK(plan.concats_in_place == 0);
    CHECK(plan.calls.size() == 5 + extra);
    CHECK_FALSE(overlaps(in, cat));
  };
  SECTION("axis 2: each input is 16 runs") {
    ConcatOfThree t(2, false);
    kept(plan_of(t.g, "concat2"), t.a, t.cat, 0);
  }
  SECTION("an input also read after the Concat") {
    ConcatOfThree t(1, true);
    kept(plan_of(t.g, "concat_reread"), t.b, t.cat, 1);
  }
  SECTION("turned off") {
    ConcatOfThree t(1, false);
    kept(plan_of(t.g, "concat_off", true, false), t.c, t.cat, 0);
  }
}

TEST_CASE("memory planner copies constant and input graph outputs") {
  Graph g;
  Value *x = input(g, "x", {3});
  output(g, x); // an input that is also an output
  Value *c = const_i64(g, "c", {1, 2, 3});
  output(g, c);
  infer_shapes(g);
  ExecutionPlan plan = plan_of(g, "passthrough");
  REQUIRE(plan.calls.size() == 2);
  REQUIRE(plan.regions.size() == 2);
  CHECK(plan.regions[0].kind == Region::Kind::OutputCopy);
  CHECK(plan.regions[0].src == x);
  CHECK(plan.calls[0].call.kernel == "onnxc_k_copy");
  CHECK(plan.outputs[0]->storage == Storage::GraphOutput);
  CHECK(plan.outputs[1]->io_index == 1);
  CHECK(c->storage == Storage::Weight);
  CHECK(plan.weights_size == 64);
}

TEST_CASE("pipeline rejects unknown --print-after passes") {
  Model m;
  m.graph = std::make_unique<Graph>();
  PipelineOptions o;
  o.print_after = "nope";
  CHECK_THAT(error_of([&] { run_pipeline(m, o); }), Catch::Contains("no such pass"));
}

TEST_CASE("regression: DCE of a node whose only input is an initializer frees it safely") {
  // eliminate_dead_code used to read freed Values while pruning Graph::initializers.
  Graph g;
  Value *x = input(g, "x", {3});
  Value *w = const_i64(g, "w", {1, 2, 3});
  Node *dead = op(g, "Neg", {w});
  (void)dead;
  Node *live = op(g, "Relu", {x});
  output(g, live->outputs[0]);
  infer_shapes(g, {.propagate_constants = false});
  CHECK(eliminate_dead_code(g) == 1);
  CHECK(g.initializers.empty());
  CHECK(g.find_value("w") == nullptr);
  verify_graph(g, "dce");
}

TEST_CASE("bind_input_shapes with a const input turns a graph input into a constant that shape "
          "rules can read") {
  Graph g;
  Value *x = input(g, "x", {2, 3});
  Value *shape = input(g, "shape", {2}, DType::Int64);
  Node *r = op(g, "Reshape", {x, shape});
  Node *relu = op(g, "Softmax", {r->outputs[0]});
  output(g, relu->outputs[0]);
  // Without a value, the Reshape's output is shaped at run time, which only a graph output
  // or an element-wise op may use (not a Softmax): the error names the fix, the input is
  // computed at run time.
  std::string msg = error_of([&] { infer_shapes(g); });
  CHECK_THAT(msg, Catch::Contains("must be a compile-time constant") &&
                      Catch::Contains("computed at run time from 'shape'"));
  ShapeBindings b;
  b.input_values["shape"] = std::make_shared<Tensor>(Tensor::vector_i64({3, 2}));
  bind_input_shapes(g, b);
  CHECK(g.inputs.size() == 1);
  CHECK(shape->is_constant());
  infer_shapes(g);
  CHECK(r->outputs[0]->type.static_dims() == std::vector<int64_t>{3, 2});
  CHECK(r->outputs[0]->run_time_shape_from.empty());

  ShapeBindings wrong;
  wrong.input_values["x"] = std::make_shared<Tensor>(Tensor::vector_i64({1}));
  CHECK_THAT(error_of([&] { bind_input_shapes(g, wrong); }),
             Catch::Contains("declares element type float"));
}

TEST_CASE("regression: a shape subgraph on a run-time input folds (Shape -> Gather -> Concat -> "
          "Reshape)") {
  // Shape of a graph input used to stay a run-time computation, so Reshape saw no constant.
  Graph g;
  Value *x = input(g, "x", {2, 3, 4});
  Node *shape = op(g, "Shape", {x});
  Value *idx = const_i64(g, "idx", {0});
  Node *gather = op(g, "Gather", {shape->outputs[0], idx});
  Value *minus1 = const_i64(g, "minus1", {-1});
  Node *concat = op(g, "Concat", {gather->outputs[0], minus1});
  concat->attrs["axis"].kind = Attribute::Kind::Int;
  concat->attrs["axis"].i = 0;
  Node *reshape = op(g, "Reshape", {x, concat->outputs[0]});
  output(g, reshape->outputs[0]);
  infer_shapes(g);
  REQUIRE(concat->outputs[0]->constant);
  CHECK(concat->outputs[0]->constant->to_int64_vector() == std::vector<int64_t>{2, -1});
  CHECK(reshape->outputs[0]->type.static_dims() == std::vector<int64_t>{2, 12});
  CHECK(fold_constants(g) == 3);
  eliminate_dead_code(g);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0]->op_type == "Reshape");
}
