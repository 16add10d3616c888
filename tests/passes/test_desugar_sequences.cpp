// desugar-sequences: sequence and optional ops become tensor ops (then evaluated by
// infer_shapes' constant propagation and compared with values computed here by hand), graph
// inputs and outputs are flattened, and what cannot be desugared is refused naming the node.
#include "compiler/ir/error.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/desugar_sequences.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/verify_graph.h"

#include "tests/passes/graph_builders.h"

#include <catch2/catch.hpp>
#include <memory>

using namespace onnxc;
using test::error_of;
using test::output;

namespace {

/// A named node (its name shows in the messages these tests check).
Node *op(Graph &g, const std::string &type, std::vector<Value *> ins, size_t outs = 1) {
  Node *n = test::op(g, type, std::move(ins), outs);
  n->name = type + std::to_string(n->index);
  return n;
}

void set_int(Node *n, const std::string &name, int64_t v) {
  n->attrs[name].kind = Attribute::Kind::Int;
  n->attrs[name].i = v;
}

/// A constant float tensor of `dims` holding base, base+1, ...
Value *iota(Graph &g, const std::string &name, std::vector<int64_t> dims, float base) {
  auto t = std::make_shared<Tensor>(DType::Float, dims);
  for (int64_t i = 0; i < t->numel(); ++i)
    t->data_as<float>()[i] = base + static_cast<float>(i);
  Value *c = g.add_constant(name, t);
  g.initializers.push_back(c);
  return c;
}

Value *scalar(Graph &g, const std::string &name, int64_t v) {
  Value *c = g.add_constant(name, std::make_shared<Tensor>(Tensor::scalar_i64(v)));
  g.initializers.push_back(c);
  return c;
}

Type sequence_of(DType dt, std::vector<Dim> dims) {
  Type elem;
  elem.dtype = dt;
  elem.shape = std::move(dims);
  Type t;
  t.kind = TypeKind::Sequence;
  t.elem = std::make_shared<const Type>(elem);
  return t;
}

std::vector<float> floats(const Value *v) {
  REQUIRE(v->constant);
  const float *p = v->constant->data_as<float>();
  return std::vector<float>(p, p + v->constant->numel());
}

bool has_sequence_ops(const Graph &g) {
  for (const auto &n : g.nodes)
    if (is_sequence_op(*n))
      return true;
  return false;
}

} // namespace

TEST_CASE("desugar: construct, insert, erase, at, length and concat become tensor ops") {
  Graph g;
  Value *a = iota(g, "a", {2}, 0), *b = iota(g, "b", {2}, 10), *c = iota(g, "c", {2}, 20);
  Value *d = iota(g, "d", {2}, 30);
  Node *seq = op(g, "SequenceConstruct", {a, b, c});
  // [a, b, c] -> insert d at 1: [a, d, b, c] -> erase -1: [a, d, b]
  Node *ins = op(g, "SequenceInsert", {seq->outputs[0], d, scalar(g, "p1", 1)});
  Node *era = op(g, "SequenceErase", {ins->outputs[0], scalar(g, "pm1", -1)});
  Node *at = op(g, "SequenceAt", {era->outputs[0], scalar(g, "pm2", -2)});
  Node *len = op(g, "SequenceLength", {era->outputs[0]});
  Node *cat = op(g, "ConcatFromSequence", {era->outputs[0]});
  set_int(cat, "axis", 0);
  Node *stack = op(g, "ConcatFromSequence", {era->outputs[0]});
  set_int(stack, "axis", 1);
  set_int(stack, "new_axis", 1);
  for (Node *n : {at, len, cat, stack})
    output(g, n->outputs[0]);
  desugar_sequences(g, {});
  CHECK_FALSE(has_sequence_ops(g));
  verify_graph(g, "desugar-sequences");
  infer_shapes(g);
  CHECK(floats(g.outputs[0]) == std::vector<float>{30, 31});
  REQUIRE(g.outputs[1]->constant);
  CHECK(g.outputs[1]->constant->int_at(0) == 3);
  CHECK(floats(g.outputs[2]) == std::vector<float>{0, 1, 30, 31, 10, 11});
  CHECK(g.outputs[3]->type.static_dims() == std::vector<int64_t>{2, 3});
  CHECK(floats(g.outputs[3]) == std::vector<float>{0, 30, 10, 1, 31, 11});
}

TEST_CASE("desugar: SplitToSequence with a scalar split and keepdims=0") {
  Graph g;
  Value *x = iota(g, "x", {2, 5}, 0);
  Node *s = op(g, "SplitToSequence", {x, scalar(g, "two", 2)});
  set_int(s, "axis", 1);
  Node *n = op(g, "SplitToSequence", {x});
  set_int(n, "axis", -1);
  set_int(n, "keepdims", 0);
  Node *last = op(g, "SequenceAt", {s->outputs[0], scalar(g, "m1", -1)});
  Node *mid = op(g, "SequenceAt", {n->outputs[0], scalar(g, "three", 3)});
  Node *len = op(g, "SequenceLength", {s->outputs[0]});
  output(g, last->outputs[0]);
  output(g, mid->outputs[0]);
  output(g, len->outputs[0]);
  desugar_sequences(g, {});
  infer_shapes(g);
  // columns {0,1}, {2,3}, {4}: the last piece is x[:, 4:5]
  CHECK(g.outputs[0]->type.static_dims() == std::vector<int64_t>{2, 1});
  CHECK(floats(g.outputs[0]) == std::vector<float>{4, 9});
  CHECK(g.outputs[1]->type.static_dims() == std::vector<int64_t>{2});
  CHECK(floats(g.outputs[1]) == std::vector<float>{3, 8});
  CHECK(g.outputs[2]->constant->int_at(0) == 3);
}

TEST_CASE("desugar: sequence graph inputs and outputs are flattened into NAME.k tensors") {
  Graph g;
  Value *x = g.add_value("x", sequence_of(DType::Float, {Dim::symbolic("N")}));
  x->is_graph_input = true;
  g.inputs.push_back(x);
  Value *t = iota(g, "t", {3}, 0);
  Node *ins = op(g, "SequenceInsert", {x, t, scalar(g, "zero", 0)});
  output(g, ins->outputs[0]);
  ins->outputs[0]->name = "y";
  std::string msg = error_of([&] { desugar_sequences(g, {}); });
  CHECK_THAT(msg, Catch::Contains("sequence-typed graph input 'x'"));
  CHECK_THAT(msg, Catch::Contains("--seq-length x=N"));

  ShapeBindings b;
  b.sequence_lengths["x"] = 2;
  desugar_sequences(g, b);
  REQUIRE(g.inputs.size() == 2);
  CHECK(g.inputs[0]->name == "x.0");
  CHECK(g.inputs[1]->name == "x.1");
  CHECK(g.inputs[1]->type.kind == TypeKind::Tensor);
  CHECK(g.inputs[1]->type.dtype == DType::Float);
  REQUIRE(g.outputs.size() == 3);
  CHECK(g.outputs[0]->name == "y.0");
  CHECK(g.outputs[2]->name == "y.2");
  // y = [t, x.0, x.1]: each output is an Identity of its element
  CHECK(g.outputs[0]->producer->inputs[0] == t);
  CHECK(g.outputs[2]->producer->inputs[0] == g.inputs[1]);
  verify_graph(g, "desugar-sequences");
}

TEST_CASE("desugar: optionals known at compile time") {
  Graph g;
  Value *a = iota(g, "a", {2}, 5);
  Node *some = op(g, "Optional", {a});
  Node *none = op(g, "Optional", {});
  Node *has_some = op(g, "OptionalHasElement", {some->outputs[0]});
  Node *has_none = op(g, "OptionalHasElement", {none->outputs[0]});
  Node *get = op(g, "OptionalGetElement", {some->outputs[0]});
  for (Node *n : {has_some, has_none, get})
    output(g, n->outputs[0]);
  output(g, none->outputs[0]); // an empty optional output is no output at all
  desugar_sequences(g, {});
  infer_shapes(g);
  REQUIRE(g.outputs.size() == 3);
  CHECK(g.outputs[0]->constant->int_at(0) == 1);
  CHECK(g.outputs[1]->constant->int_at(0) == 0);
  CHECK(floats(g.outputs[2]) == std::vector<float>{5, 6});

  Graph e;
  Node *empty = op(e, "Optional", {});
  Node *bad = op(e, "OptionalGetElement", {empty->outputs[0]});
  output(e, bad->outputs[0]);
  CHECK_THAT(error_of([&] { desugar_sequences(e, {}); }),
             Catch::Contains("is empty at compile time"));
}

TEST_CASE("desugar: SequenceMap instantiates its body per element") {
  Graph g;
  Node *seq = op(g, "SequenceConstruct", {iota(g, "a", {2}, 0), iota(g, "b", {2}, 10)});
  Value *bias = iota(g, "bias", {2}, 100);
  Node *map = op(g, "SequenceMap", {seq->outputs[0], bias});
  auto body = std::make_shared<Graph>();
  body->parent = &g;
  Value *in0 = body->add_value("in0"), *in1 = body->add_value("in1");
  in0->is_graph_input = in1->is_graph_input = true;
  body->inputs = {in0, in1};
  Node *add = op(*body, "Add", {in0, in1});
  body->outputs = {add->outputs[0]};
  map->attrs["body"].kind = Attribute::Kind::Graph;
  map->attrs["body"].g = body;
  Node *cat = op(g, "ConcatFromSequence", {map->outputs[0]});
  set_int(cat, "axis", 0);
  output(g, cat->outputs[0]);
  desugar_sequences(g, {});
  CHECK_FALSE(has_sequence_ops(g));
  infer_shapes(g);
  CHECK(floats(g.outputs[0]) == std::vector<float>{100, 102, 110, 112});
}

TEST_CASE("desugar: run-time positions and sequences read by Scan are refused naming the node") {
  Graph g;
  Value *p = g.add_value("pos", Type::of(DType::Int64, {}));
  p->is_graph_input = true;
  g.inputs.push_back(p);
  // Elements of different ranks: which rank the result has depends on the run-time position.
  Node *seq = op(g, "SequenceConstruct", {iota(g, "a", {2}, 0), iota(g, "b", {3, 1}, 0)});
  Node *at = op(g, "SequenceAt", {seq->outputs[0], p});
  output(g, at->outputs[0]);
  std::string msg = error_of([&] { desugar_sequences(g, {}); });
  CHECK_THAT(msg, Catch::Contains("node 'SequenceAt1' (SequenceAt"));
  CHECK_THAT(msg, Catch::Contains("must be a compile-time constant"));
  CHECK_THAT(msg, Catch::Contains("computed at run time from 'pos'"));

  // The same position compiled in as a value (--const-input) is accepted.
  ShapeBindings b;
  b.input_values["pos"] = std::make_shared<Tensor>(Tensor::scalar_i64(0));
  Graph g2;
  Value *p2 = g2.add_value("pos", Type::of(DType::Int64, {}));
  p2->is_graph_input = true;
  g2.inputs.push_back(p2);
  Node *s2 = op(g2, "SequenceConstruct", {iota(g2, "a", {2}, 0)});
  output(g2, op(g2, "SequenceAt", {s2->outputs[0], p2})->outputs[0]);
  desugar_sequences(g2, b);
  CHECK_FALSE(has_sequence_ops(g2));

  // Elements of one static type: the position stays a run-time input, checked by a Gather
  // from the table of positions and selecting with Where.
  Graph g3;
  Value *p3 = g3.add_value("pos", Type::of(DType::Int64, {}));
  p3->is_graph_input = true;
  g3.inputs.push_back(p3);
  Node *s3 = op(g3, "SequenceConstruct", {iota(g3, "a", {2}, 0), iota(g3, "b", {2}, 5)});
  output(g3, op(g3, "SequenceAt", {s3->outputs[0], p3})->outputs[0]);
  desugar_sequences(g3, {});
  CHECK_FALSE(has_sequence_ops(g3));
  CHECK(g3.inputs.size() == 1);
  bool gather = false, where = false;
  for (const auto &n : g3.nodes) {
    gather = gather || n->op_type == "Gather";
    where = where || n->op_type == "Where";
  }
  CHECK(gather);
  CHECK(where);

  // Elements of one rank but different shapes: an onnxc.SelectShaped (shaped by the run).
  Graph g4;
  Value *p4 = g4.add_value("pos", Type::of(DType::Int64, {}));
  p4->is_graph_input = true;
  g4.inputs.push_back(p4);
  Node *s4 = op(g4, "SequenceConstruct", {iota(g4, "a", {2}, 0), iota(g4, "b", {3}, 5)});
  output(g4, op(g4, "SequenceAt", {s4->outputs[0], p4})->outputs[0]);
  desugar_sequences(g4, {});
  CHECK_FALSE(has_sequence_ops(g4));
  bool selected = false;
  for (const auto &n : g4.nodes)
    selected = selected || (n->op_type == "SelectShaped" && n->domain == "onnxc");
  CHECK(selected);

  Graph l;
  Node *empty = op(l, "SequenceEmpty", {});
  Node *scan = op(l, "Scan", {empty->outputs[0]});
  scan->name = "scan0";
  output(l, scan->outputs[0]);
  msg = error_of([&] { desugar_sequences(l, {}); });
  CHECK_THAT(msg, Catch::Contains("node 'scan0' (Scan"));
  CHECK_THAT(msg, Catch::Contains("a sequence"));
  CHECK_THAT(msg, Catch::Contains("issue 8"));
}

namespace {

/// A branch graph returning SequenceConstruct of `n` constants starting at `base`.
std::shared_ptr<Graph> sequence_branch(Graph &parent, int n, float base) {
  auto b = std::make_shared<Graph>();
  b->parent = &parent;
  std::vector<Value *> elems;
  for (int k = 0; k < n; ++k)
    elems.push_back(iota(*b, "c" + std::to_string(k), {2}, base + 10 * k));
  Node *s = op(*b, "SequenceConstruct", elems);
  output(*b, s->outputs[0]);
  return b;
}

Node *if_node(Graph &g, Value *cond, std::shared_ptr<Graph> then, std::shared_ptr<Graph> els) {
  Node *n = op(g, "If", {cond});
  n->name = "if0";
  n->attrs["then_branch"].kind = n->attrs["else_branch"].kind = Attribute::Kind::Graph;
  n->attrs["then_branch"].g = std::move(then);
  n->attrs["else_branch"].g = std::move(els);
  return n;
}

} // namespace

TEST_CASE("desugar: an If whose branches give sequences of one length gets one output each") {
  Graph g;
  Value *cond = g.add_value("cond", Type::of(DType::Bool, {}));
  cond->is_graph_input = true;
  g.inputs.push_back(cond);
  Node *n = if_node(g, cond, sequence_branch(g, 2, 0), sequence_branch(g, 2, 100));
  Node *cat = op(g, "ConcatFromSequence", {n->outputs[0]});
  set_int(cat, "axis", 0);
  output(g, cat->outputs[0]);
  desugar_sequences(g, {});
  CHECK_FALSE(has_sequence_ops(g));
  REQUIRE(n->outputs.size() == 2);
  CHECK(n->attr("else_branch")->g->outputs.size() == 2);
  CHECK(g.outputs[0]->producer->op_type == "Concat"); // `cat` itself is gone
  CHECK(g.outputs[0]->producer->inputs == n->outputs);
  infer_shapes(g);
  CHECK(g.outputs[0]->type.static_dims() == std::vector<int64_t>{4});

  Graph h;
  Value *c2 = h.add_value("cond", Type::of(DType::Bool, {}));
  c2->is_graph_input = true;
  h.inputs.push_back(c2);
  Node *m = if_node(h, c2, sequence_branch(h, 1, 0), sequence_branch(h, 2, 0));
  output(h, m->outputs[0]);
  std::string msg = error_of([&] { desugar_sequences(h, {}); });
  CHECK_THAT(msg, Catch::Contains("node 'if0' (If"));
  CHECK_THAT(msg, Catch::Contains("a sequence of 1 in then_branch but a sequence of 2"));
}

namespace {

/// Loop(M, cond absent, SequenceEmpty) whose body appends its iteration number (as a
/// 1-element vector with `as_vector`).
Node *appending_loop(Graph &g, Value *trips, bool as_vector = false) {
  Node *empty = op(g, "SequenceEmpty", {});
  Node *loop = op(g, "Loop", {trips, nullptr, empty->outputs[0]});
  loop->name = "loop0";
  auto body = std::make_shared<Graph>();
  body->parent = &g;
  Value *iter = body->add_value("iter", Type::of(DType::Int64, {}));
  Value *cond = body->add_value("cond_in", Type::of(DType::Bool, {}));
  Value *seq = body->add_value("seq_in", sequence_of(DType::Int64, {}));
  for (Value *v : {iter, cond, seq}) {
    v->is_graph_input = true;
    body->inputs.push_back(v);
  }
  output(*body, op(*body, "Identity", {cond})->outputs[0]);
  Value *elem = iter;
  if (as_vector) {
    Value *axes =
        body->add_constant("axes", std::make_shared<const Tensor>(Tensor::vector_i64({0})));
    elem = op(*body, "Unsqueeze", {iter, axes})->outputs[0];
  }
  output(*body, op(*body, "SequenceInsert", {seq, elem})->outputs[0]);
  loop->attrs["body"].kind = Attribute::Kind::Graph;
  loop->attrs["body"].g = body;
  return loop;
}

} // namespace

TEST_CASE("desugar: a Loop carrying a sequence is unrolled for a known trip count") {
  Graph g;
  Node *loop = appending_loop(g, scalar(g, "m", 3));
  Node *cat = op(g, "ConcatFromSequence", {loop->outputs[0]});
  set_int(cat, "axis", 0);
  set_int(cat, "new_axis", 1);
  output(g, cat->outputs[0]);
  desugar_sequences(g, {});
  CHECK_FALSE(has_sequence_ops(g));
  for (const auto &n : g.nodes)
    CHECK(n->op_type != "Loop");
  infer_shapes(g);
  REQUIRE(g.outputs[0]->constant);
  CHECK(g.outputs[0]->constant->to_int64_vector() == std::vector<int64_t>{0, 1, 2});
}

TEST_CASE("desugar: a Loop carrying a sequence with a run-time trip count is copied 16 times") {
  // As a graph output: NAME.length, then one output per element the 16 copies can append.
  Graph r;
  Value *m = r.add_value("M", Type::of(DType::Int64, {}));
  m->is_graph_input = true;
  r.inputs.push_back(m);
  Node *loop = appending_loop(r, m, true);
  const std::string name = loop->outputs[0]->name;
  output(r, loop->outputs[0]);
  desugar_sequences(r, {});
  CHECK_FALSE(has_sequence_ops(r));
  REQUIRE(r.outputs.size() == 17);
  CHECK(r.outputs[0]->name == name + ".length");
  CHECK(r.outputs[16]->name == name + ".15");
  int asserts = 0, loops = 0;
  for (const auto &n : r.nodes) {
    asserts += n->domain == "onnxc" && n->op_type == "Assert";
    loops += n->op_type == "Loop";
  }
  CHECK(asserts == 1); // a 17th iteration fails the run
  CHECK(loops == 0);

  // Read by another op: refused, naming the reader.
  Graph u;
  Value *mu = u.add_value("M", Type::of(DType::Int64, {}));
  mu->is_graph_input = true;
  u.inputs.push_back(mu);
  Node *cat = op(u, "ConcatFromSequence", {appending_loop(u, mu, true)->outputs[0]});
  set_int(cat, "axis", 0);
  output(u, cat->outputs[0]);
  std::string msg = error_of([&] { desugar_sequences(u, {}); });
  CHECK_THAT(msg, Catch::Contains("(ConcatFromSequence"));
  CHECK_THAT(msg, Catch::Contains("a sequence whose length the run decides"));
}
