// Symbolic dims through bind-shapes and shape inference (issue 8): run-time dims stay
// expressions over the model's symbols, shapes computed as values (Shape -> Gather -> Concat ->
// Reshape) are followed, and what cannot be decided at compile time is refused by name.
#include "compiler/ir/error.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/infer_shapes.h"

#include "tests/passes/graph_builders.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

using namespace onnxc;
using namespace onnxc::test;

namespace {

std::string shape(const Value *v) { return shape_to_string(v->type); }


ShapeBindings symbolic() {
  ShapeBindings b;
  b.keep_symbolic = true;
  return b;
}

} // namespace

TEST_CASE("symbolic: an attention block keeps batch and seq through Shape/Gather/Concat/Reshape") {
  Graph g;
  Value *x = input(g, "x", {Dim::symbolic("batch"), Dim::symbolic("seq"), Dim(768)});
  ShapeBindings b = symbolic();
  parse_dim_flag("seq=1..512", b);
  bind_input_shapes(g, b);
  REQUIRE(g.symbols.size() == 2);
  CHECK(g.symbols.at("seq").lo == 1);
  CHECK(g.symbols.at("seq").hi == 512);
  CHECK(g.symbols.at("batch").hi == SymRange::kDefaultMax);

  Value *s = op(g, "Shape", {x})->outputs[0];
  Value *b0 = op(g, "Unsqueeze", {op(g, "Gather", {s, ints(g, {0}, true)})->outputs[0],
                                  ints(g, {0})})->outputs[0];
  Value *s1 = op(g, "Gather", {s, ints(g, {1})})->outputs[0];
  Value *target = g.add_node("Concat", {b0, s1, ints(g, {12}), ints(g, {64})}, 1)->outputs[0];
  target->producer->def = find_op("", "Concat");
  target->producer->opset = 17;
  target->producer->attrs["axis"].kind = Attribute::Kind::Int;
  Value *heads = op(g, "Reshape", {x, target})->outputs[0];
  Node *tq = op(g, "Transpose", {heads});
  tq->attrs["perm"] = Attribute{Attribute::Kind::Ints};
  tq->attrs["perm"].ints = {0, 2, 1, 3};
  Node *tk = op(g, "Transpose", {heads});
  tk->attrs["perm"] = Attribute{Attribute::Kind::Ints};
  tk->attrs["perm"].ints = {0, 2, 3, 1};
  Value *scores = op(g, "MatMul", {tq->outputs[0], tk->outputs[0]})->outputs[0];
  Value *probs = op(g, "Softmax", {scores})->outputs[0];
  Value *up = op(g, "MatMul", {x, floats(g, {768, 3072})})->outputs[0];
  Value *flat = op(g, "Reshape", {up, ints(g, {-1, 3072})})->outputs[0];
  Value *merged = op(g, "Reshape", {x, ints(g, {0, -1})})->outputs[0];
  infer_shapes(g);

  CHECK(s->sym_value.has_value());
  CHECK(target->sym_value.has_value());
  CHECK(shape(heads) == "batchxseqx12x64");
  CHECK(shape(probs) == "batchx12xseqxseq");
  CHECK(shape(up) == "batchxseqx3072");
  CHECK(shape(flat) == "(batch*seq)x3072");
  CHECK(shape(merged) == "batchx(768*seq)");
}

TEST_CASE("symbolic: static parts of a symbolic shape fold to constants") {
  Graph g;
  Value *x = input(g, "x", {Dim::symbolic("n"), Dim(3), Dim(5)});
  bind_input_shapes(g, symbolic());
  Value *s = op(g, "Shape", {x})->outputs[0];
  Value *c = op(g, "Gather", {s, ints(g, {2, 1})})->outputs[0];
  Value *m = op(g, "Mul", {op(g, "Gather", {s, ints(g, {0})})->outputs[0], ints(g, {2})})
                 ->outputs[0];
  infer_shapes(g);
  REQUIRE(c->constant);
  CHECK(c->constant->to_int64_vector() == std::vector<int64_t>{5, 3});
  REQUIRE(m->sym_value);
  CHECK(m->sym_value->at(0) == SymInt::symbol("n") * 2);
}

TEST_CASE("symbolic: unnamed dims get names, broadcasting symbols that may differ is refused") {
  Graph g;
  Value *a = input(g, "in.a", {Dim(), Dim(4)});
  Value *b = input(g, "b", {Dim::symbolic("m"), Dim(4)});
  bind_input_shapes(g, symbolic());
  CHECK(shape(a) == "in_a_dim0x4");
  CHECK(g.symbols.count("in_a_dim0") == 1);
  op(g, "Add", {a, b});
  std::string err = error_of([&] { infer_shapes(g); });
  CHECK_THAT(err, Catch::Contains("Add"));
  CHECK_THAT(err, Catch::Contains("'in_a_dim0' and 'm'"));
  CHECK_THAT(err, Catch::Contains("--dim"));
}

TEST_CASE("symbolic: a batch passes through Conv, pooling and Tile - a spatial dim is refused by name") {
  Graph g;
  Value *x = input(g, "x", {Dim::symbolic("batch"), Dim(3), Dim(8), Dim(8)});
  bind_input_shapes(g, symbolic());
  Node *conv = op(g, "Conv", {x, floats(g, {4, 3, 3, 3})});
  conv->attrs["strides"] = Attribute{Attribute::Kind::Ints};
  conv->attrs["strides"].ints = {2, 2};
  Value *pooled = op(g, "GlobalAveragePool", {conv->outputs[0]})->outputs[0];
  Value *tiled = op(g, "Tile", {pooled, ints(g, {1, 1, 2, 2})})->outputs[0];
  CHECK(error_of([&] { infer_shapes(g); }).empty());
  CHECK(shape(conv->outputs[0]) == "batchx4x3x3");
  CHECK(shape(pooled) == "batchx4x1x1");
  CHECK(shape(tiled) == "batchx4x2x2");

  Graph h; // a symbolic spatial dim is not a batch: Conv refuses it by name
  Value *y = input(h, "y", {Dim(1), Dim(3), Dim::symbolic("height"), Dim(8)});
  bind_input_shapes(h, symbolic());
  op(h, "Conv", {y, floats(h, {4, 3, 3, 3})});
  const std::string err = error_of([&] { infer_shapes(h); });
  CHECK_THAT(err, Catch::Contains("Conv"));
  CHECK_THAT(err, Catch::Contains("with height = 1"));
  CHECK_THAT(err, Catch::Contains("--dim height=LO..HI"));
}

TEST_CASE("symbolic: compiling still binds every dim - a range says what to do") {
  Graph g;
  input(g, "x", {Dim::symbolic("batch"), Dim(3)});
  ShapeBindings b;
  parse_dim_flag("batch=1..8", b);
  CHECK_THAT(error_of([&] { bind_input_shapes(g, b); }),
             Catch::Contains("--dim batch=N"));
  ShapeBindings fixed;
  parse_dim_flag("batch=4..4", fixed); // a one-value range is a binding
  bind_input_shapes(g, fixed);
  CHECK(shape(g.inputs[0]) == "4x3");
  ShapeBindings bad;
  CHECK_THROWS_AS(parse_dim_flag("batch=9..2", bad), Error);
  CHECK_THROWS_AS(parse_dim_flag("batch=1..", bad), Error);
  CHECK_THROWS_AS(parse_dim_flag("batch=0..8", bad), Error); // run-time dims are at least 1
}

TEST_CASE("symbolic: Slice on symbolic dims clamps as ONNX does") {
  Graph g;
  Value *x = input(g, "x", {Dim::symbolic("batch"), Dim::symbolic("seq"), Dim(64)});
  bind_input_shapes(g, symbolic());
  auto slice = [&](std::vector<int64_t> starts, std::vector<int64_t> ends,
                   std::vector<int64_t> axes, std::vector<int64_t> steps) {
    return op(g, "Slice", {x, ints(g, starts), ints(g, ends), ints(g, axes), ints(g, steps)})
        ->outputs[0];
  };
  const int64_t end = std::numeric_limits<int64_t>::max();
  Value *first = slice({0}, {1}, {1}, {1});         // x[:, 0:1]
  Value *rest = slice({1}, {end}, {1}, {1});        // x[:, 1:]
  Value *last2 = slice({-2}, {end}, {1}, {1});      // x[:, -2:]
  Value *even = slice({0}, {end}, {1}, {2});        // x[:, ::2]
  Value *chan = slice({8, 0}, {16, end}, {2, 0}, {1, 1});
  infer_shapes(g);
  CHECK(shape(first) == "batchx1x64");
  CHECK(shape(rest) == "batchx(seq - 1)x64");
  for (int64_t seq : {1, 2, 3, 100}) // x[:, -2:] keeps min(seq, 2) rows
    CHECK((*last2->type.shape)[1].sym.eval([&](const std::string &) { return seq; }) ==
          std::min<int64_t>(seq, 2));
  CHECK(shape(even) == "batchx((seq + 1)/2)x64");
  CHECK(shape(chan) == "batchxseqx8");
  Node *back = op(g, "Slice", {x, ints(g, {-1}), ints(g, {0}), ints(g, {1}), ints(g, {-1})});
  (void)back;
  CHECK_THAT(error_of([&] { infer_shapes(g); }), Catch::Contains("negative step"));
}
