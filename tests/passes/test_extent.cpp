// Run-time extent (passes/lower_extent.h): the calls lowered once for every value of a symbol's
// range must give, at every value, exactly the kernel and params a lowering of the graph
// specialised for that value gives; range-aware simplification of dims; sample-wise batches at
// inner axes.
#include "compiler/ir/error.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/sym_util.h"
#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/form_regions.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/lower_extent.h"
#include "compiler/passes/pack_weights.h"
#include "compiler/passes/sample_wise.h"

#include "tests/passes/graph_builders.h"

#include <catch2/catch.hpp>

using namespace onnxc;
using namespace onnxc::test;

namespace {

/// x [seq, 8] -> MatMul(x, W [8, 16]) -> Softmax -> Transpose, with the weight packed
/// (pack-weights). `as_extent`: the MatMul marked as lower-extent marks what it lowers (it then
/// reads the packed weight for every seq, also where a specialised build would take its
/// matrix-vector path on the unpacked one).
void build(Graph &g, Dim seq, bool as_extent = false) {
  Value *x = input(g, "x", {seq, Dim(8)});
  Node *mm = op(g, "MatMul", {x, floats(g, {8, 16})});
  if (as_extent) {
    mm->attrs[kExtentLoweringAttr].kind = Attribute::Kind::Int;
    mm->attrs[kExtentLoweringAttr].i = 1;
  }
  Value *y = mm->outputs[0];
  Value *p = op(g, "Softmax", {y})->outputs[0];
  Node *t = op(g, "Transpose", {p});
  t->attrs["perm"].kind = Attribute::Kind::Ints;
  t->attrs["perm"].ints = {1, 0};
  output(g, t->outputs[0]);
}

/// The params call pc runs with at extent s (its extent words evaluated).
std::vector<int64_t> params_at(const PlannedCall &pc, int64_t s) {
  std::vector<int64_t> p = pc.call.params;
  for (const ExtentWord &w : pc.extent_words)
    p.at(w.word) = extent_word_value(w, s);
  return p;
}

} // namespace

TEST_CASE("run-time extent: every value of the range runs what a specialised build runs") {
  constexpr int64_t kHi = 40;
  Graph g;
  build(g, Dim::symbolic("seq"));
  ShapeBindings b;
  b.keep_symbolic = true;
  parse_dim_flag("seq=1..40", b);
  bind_input_shapes(g, b);
  infer_shapes(g);
  pack_weights(g);
  ExecutionPlan plan = form_regions(g, "m");
  lower_regions_extent(g, plan, lower_region_cpu, "seq");
  REQUIRE(plan.extent);
  CHECK(plan.extent->inputs == std::vector<std::vector<bool>>{{true, false}});
  CHECK(plan.extent->outputs == std::vector<std::vector<bool>>{{false, true}});
  // The MatMul's two paths are two variants, split where the specialised lowering switches:
  // the packed weight, then (seq > N = 16) the product transposed so that the wide side is
  // packed. No matrix-vector variant for seq <= 4: it would keep the weight unpacked too.
  std::vector<std::pair<int64_t, int64_t>> guards;
  for (const PlannedCall &pc : plan.calls)
    if (pc.guard)
      guards.push_back(*pc.guard);
  CHECK(guards == std::vector<std::pair<int64_t, int64_t>>{{1, 16}, {17, kHi}});
  // Types are left at the range's maximum, for plan-memory.
  CHECK(shape_to_string(plan.outputs[0]->type) == "16x40");

  for (int64_t s = 1; s <= kHi; ++s) {
    Graph h;
    build(h, Dim(s), true);
    infer_shapes(h);
    pack_weights(h);
    ExecutionPlan want = form_regions(h, "m");
    std::vector<const PlannedCall *> got;
    for (const PlannedCall &pc : plan.calls)
      if (!pc.guard || (pc.guard->first <= s && s <= pc.guard->second))
        got.push_back(&pc);
    REQUIRE(got.size() == want.regions.size());
    for (size_t i = 0; i < got.size(); ++i) {
      KernelCall k = lower_region_cpu(want.regions[i]);
      INFO("seq = " << s << ", call " << i << " (" << k.kernel << ")");
      CHECK(got[i]->call.kernel == k.kernel);
      CHECK(params_at(*got[i], s) == k.params);
      CHECK(got[i]->call.scratch_bytes >= k.scratch_bytes);
      CHECK(got[i]->call.derived.empty()); // attached as weights, once for every variant
    }
  }
}

TEST_CASE("run-time extent: a word's pieces are exact, affine or quadratic, across breaks") {
  // 3 + 2t + 5t(t-1)/2 from s = 10, then the constant 7 from s = 20.
  ExtentWord w{0, {{10, 3, 2, 5}, {20, 7, 0, 0}}};
  for (int64_t s = 10; s < 20; ++s) {
    const int64_t t = s - 10;
    CHECK(extent_word_value(w, s) == 3 + 2 * t + 5 * t * (t - 1) / 2);
  }
  CHECK(extent_word_value(w, 20) == 7);
  CHECK(extent_word_value(w, 1000) == 7);
}

TEST_CASE("run-time extent: dims simplified by the declared range") {
  const SymInt seq = SymInt::symbol("seq");
  std::map<std::string, SymRange> ranges{{"seq", SymRange{1, 128}}};
  CHECK(simplify_in_ranges(SymInt::min(seq, 128), ranges) == seq);
  CHECK(simplify_in_ranges(SymInt::floordiv(seq, 200), ranges) == SymInt(0));
  ranges["seq"].hi = 129; // min(seq, 128) is 128 at 129: not seq any more
  CHECK(simplify_in_ranges(SymInt::min(seq, 128), ranges) == SymInt::min(seq, 128));
  CHECK(simplify_in_ranges(seq * 2, ranges) == seq * 2);
}

TEST_CASE("sample-wise: the batch may move to an inner axis and back") {
  auto analyse = [](const std::function<void(Graph &, Value *)> &body) {
    Graph g;
    Value *x = input(g, "x", {Dim::symbolic("batch"), Dim(5), Dim(16)});
    body(g, x);
    ShapeBindings b;
    b.keep_symbolic = true;
    bind_input_shapes(g, b);
    infer_shapes(g);
    return check_sample_wise(g, "batch");
  };
  auto transpose = [](Graph &g, Value *v, std::vector<int64_t> perm) {
    Node *t = op(g, "Transpose", {v});
    t->attrs["perm"].kind = Attribute::Kind::Ints;
    t->attrs["perm"].ints = std::move(perm);
    return t->outputs[0];
  };
  // Attention's layout: heads in front of the batch, scores per (head, sample), then back.
  SampleWise ok = analyse([&](Graph &g, Value *x) {
    Value *h = op(g, "Reshape", {x, ints(g, {0, 5, 2, 8})})->outputs[0]; // batch x 5 x 2 x 8
    Value *q = transpose(g, h, {2, 0, 1, 3});                            // 2 x batch x 5 x 8
    Value *k = transpose(g, h, {2, 0, 3, 1});                            // 2 x batch x 8 x 5
    Value *s = op(g, "Softmax", {op(g, "MatMul", {q, k})->outputs[0]})->outputs[0];
    Value *a = op(g, "MatMul", {s, q})->outputs[0]; // 2 x batch x 5 x 8
    Value *back = transpose(g, a, {1, 2, 0, 3});    // batch x 5 x 2 x 8
    output(g, op(g, "Reshape", {back, ints(g, {0, 5, 16})})->outputs[0]);
  });
  CHECK(ok.reason.empty());
  // The batch contracted by a matrix product mixes the samples.
  SampleWise contracted = analyse([&](Graph &g, Value *x) {
    Value *xt = transpose(g, x, {1, 2, 0}); // 5 x 16 x batch
    Value *xs = transpose(g, x, {1, 0, 2}); // 5 x batch x 16
    output(g, op(g, "MatMul", {xt, xs})->outputs[0]);
  });
  CHECK_THAT(contracted.reason, Catch::Contains("MatMul") && Catch::Contains("contracted"));
  // A graph output with the batch elsewhere than axis 0.
  SampleWise moved = analyse([&](Graph &g, Value *x) { output(g, transpose(g, x, {1, 0, 2})); });
  CHECK_THAT(moved.reason, Catch::Contains("has the batch at axis 1, not 0"));
}
