// Tensor, shape, reduction and variadic ops: each test builds one node by hand, runs its shape
// rule and the reference evaluator (the natively compiled kernel, or OpDef::eval), and checks
// real values — negative axes, broadcasting, zero-size tensors, scalars and error messages.
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/one_node.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace onnxc;
using Catch::Matchers::Contains;
using test::f32;
using test::i64;
using test::make;
using test::OneNode;
using test::values;

namespace {

TensorPtr i32(std::vector<int64_t> d, std::vector<int32_t> v) { return make(DType::Int32, d, v); }
TensorPtr boolean(std::vector<int64_t> d, std::vector<uint8_t> v) {
  return make(DType::Bool, d, v);
}
/// 0, 1, 2, ... as float.
TensorPtr iota(std::vector<int64_t> d) {
  auto t = std::make_shared<Tensor>(DType::Float, d);
  for (int64_t i = 0; i < t->numel(); ++i)
    t->data_as<float>()[i] = static_cast<float>(i);
  return t;
}

using Dims = std::vector<int64_t>;
using F = std::vector<float>;
using I = std::vector<int64_t>;

} // namespace

TEST_CASE("Reshape: 0 copies a dim, -1 is inferred, allowzero, errors", "[ops][tensor]") {
  OneNode a("Reshape", 13, {iota({2, 3, 4}), i64({3}, {0, -1, 2})});
  Tensor y = a.run1();
  CHECK(y.shape() == Dims{2, 6, 2});
  CHECK(values<float>(y)[23] == 23.0f);

  OneNode bad("Reshape", 13, {iota({2, 3}), i64({2}, {4, 2})});
  CHECK_THROWS_WITH(bad.infer(), Contains("cannot reshape input 2x3 (6 elements) to 4x2"));
  OneNode two("Reshape", 13, {iota({2, 3}), i64({2}, {-1, -1})});
  CHECK_THROWS_WITH(two.infer(), Contains("more than one -1"));
  // A shape computed at run time: the output is shaped at run time (its rank from the shape's
  // length, room for every element), by the kernel that checks the shape.
  OneNode runtime("Reshape", 13, {iota({2, 3})}, 1, {i64({2}, {3, 2})});
  runtime.infer();
  CHECK(runtime.node->outputs[0]->run_time_shape_from == runtime.node->inputs[1]->name);
  CHECK(runtime.node->outputs[0]->type.static_dims() == Dims{6, 1});
  CHECK(runtime.node->def->lower(*runtime.node).kernel == "onnxc_k_shape_copy");
  OneNode matrix("Reshape", 13, {iota({2, 3})}, 1, {i64({2, 1}, {3, 2})});
  CHECK_THROWS_WITH(matrix.infer(), Contains("shape must be a 1-D int64 tensor"));
}

TEST_CASE("Flatten, Identity, Dropout", "[ops][tensor]") {
  OneNode a("Flatten", 13, {iota({2, 3, 4})});
  a.i("axis", -1);
  CHECK(a.run1().shape() == Dims{6, 4});
  OneNode b("Flatten", 13, {iota({2, 3})});
  b.i("axis", 0);
  CHECK(b.run1().shape() == Dims{1, 6});
  OneNode c("Flatten", 13, {iota({2, 3})});
  c.i("axis", 3);
  CHECK_THROWS_WITH(c.infer(), Contains("axis 3 is out of range"));

  OneNode id("Identity", 16, {f32({}, {4.5f})});
  Tensor y = id.run1();
  CHECK(y.rank() == 0);
  CHECK(values<float>(y) == F{4.5f});

  OneNode d("Dropout", 13, {iota({2, 2})}, 2);
  std::vector<Tensor> out = d.run();
  CHECK(values<float>(out[0]) == F{0, 1, 2, 3});
  CHECK(out[1].dtype() == DType::Bool);
  CHECK(values<uint8_t>(out[1]) == std::vector<uint8_t>{1, 1, 1, 1});
  OneNode train("Dropout", 13, {iota({2}), f32({}, {0.5f}), boolean({}, {1})});
  CHECK_THROWS_WITH(train.infer(), Contains("training mode"));
}

TEST_CASE("Squeeze and Unsqueeze: attribute and input axes", "[ops][tensor]") {
  OneNode a("Squeeze", 11, {iota({1, 3, 1, 2})});
  a.ints("axes", {-2});
  CHECK(a.run1().shape() == Dims{1, 3, 2});
  OneNode b("Squeeze", 13, {iota({1, 3, 1, 2})});
  CHECK(b.run1().shape() == Dims{3, 2});
  OneNode c("Squeeze", 13, {iota({1, 3, 1}), i64({2}, {0, 2})});
  CHECK(c.run1().shape() == Dims{3});
  OneNode bad("Squeeze", 13, {iota({1, 3}), i64({1}, {1})});
  CHECK_THROWS_WITH(bad.infer(), Contains("cannot squeeze axis 1: its size is 3"));

  OneNode u("Unsqueeze", 13, {f32({}, {7}), i64({2}, {0, -1})});
  Tensor y = u.run1();
  CHECK(y.shape() == Dims{1, 1});
  CHECK(values<float>(y) == F{7});
  OneNode v("Unsqueeze", 11, {iota({3, 4})});
  v.ints("axes", {1, -1});
  CHECK(v.run1().shape() == Dims{3, 1, 4, 1});
  OneNode dup("Unsqueeze", 13, {iota({3}), i64({2}, {0, -3})});
  CHECK_THROWS_WITH(dup.infer(), Contains("repeated axis"));
}

TEST_CASE("Concat: negative axis, zero-size inputs, mismatched shapes", "[ops][tensor]") {
  OneNode a("Concat", 13, {iota({2, 2}), f32({2, 1}, {10, 11})});
  a.i("axis", -1);
  Tensor y = a.run1();
  CHECK(y.shape() == Dims{2, 3});
  CHECK(values<float>(y) == F{0, 1, 10, 2, 3, 11});

  OneNode b("Concat", 13, {i64({2}, {1, 2}), i64({1}, {3})});
  b.i("axis", 0);
  CHECK(values<int64_t>(b.run1()) == I{1, 2, 3});

  OneNode bad("Concat", 13, {iota({2, 2}), iota({3, 1})});
  bad.i("axis", 1);
  CHECK_THROWS_WITH(bad.infer(), Contains("input 1 has shape 3x1, which does not match"));
}

TEST_CASE("Slice: steps, clamping, attributes before opset 10", "[ops][tensor]") {
  const int64_t big = std::numeric_limits<int64_t>::max();
  OneNode a("Slice", 13,
            {iota({3, 4}), i64({2}, {-1, big}), i64({2}, {-big, -big}), i64({2}, {0, 1}),
             i64({2}, {-2, -3})});
  Tensor y = a.run1();
  CHECK(y.shape() == Dims{2, 2});
  CHECK(values<float>(y) == F{11, 8, 3, 0});

  OneNode b("Slice", 9, {iota({3, 4})});
  b.ints("starts", {1}).ints("ends", {100}).ints("axes", {1});
  Tensor z = b.run1();
  CHECK(z.shape() == Dims{3, 3});
  CHECK(values<float>(z) == F{1, 2, 3, 5, 6, 7, 9, 10, 11});

  OneNode zero("Slice", 13,
               {iota({4}), i64({1}, {0}), i64({1}, {4}), i64({1}, {0}), i64({1}, {0})});
  CHECK_THROWS_WITH(zero.infer(), Contains("step for axis 0 is 0"));
}

TEST_CASE("Gather: axes, negative indices, out-of-range indices", "[ops][tensor]") {
  OneNode a("Gather", 13, {iota({2, 3}), i64({2}, {-1, 0})});
  a.i("axis", 1);
  Tensor y = a.run1();
  CHECK(y.shape() == Dims{2, 2});
  CHECK(values<float>(y) == F{2, 0, 5, 3});

  OneNode s("Gather", 13, {iota({3, 2}), i32({}, {1})});
  Tensor row = s.run1();
  CHECK(row.shape() == Dims{2});
  CHECK(values<float>(row) == F{2, 3});

  OneNode bad("Gather", 13, {iota({3}), i64({2}, {0, 3})});
  CHECK_THROWS_WITH(bad.infer(), Contains("index 3 (element 1 of the indices) is out of range"));
  OneNode runtime("Gather", 13, {iota({3})}, 1, {i64({1}, {-4})});
  CHECK_THROWS_WITH(runtime.run(), Contains("Gather: index out of range"));

  OneNode e("GatherElements", 13, {iota({2, 3}), i64({2, 2}, {2, -3, 1, 0})});
  e.i("axis", 1);
  CHECK(values<float>(e.run1()) == F{2, 0, 4, 3});
  OneNode ebad("GatherElements", 13, {iota({2, 3})}, 1, {i64({1, 1}, {5})});
  CHECK_THROWS_WITH(ebad.run(), Contains("GatherElements: index out of range"));
}

TEST_CASE("Split: equal parts, sizes, num_outputs", "[ops][tensor]") {
  OneNode a("Split", 11, {iota({2, 4})}, 2);
  a.i("axis", -1);
  std::vector<Tensor> out = a.run();
  CHECK(values<float>(out[0]) == F{0, 1, 4, 5});
  CHECK(values<float>(out[1]) == F{2, 3, 6, 7});

  OneNode b("Split", 13, {iota({5}), i64({2}, {1, 4})}, 2);
  out = b.run();
  CHECK(values<float>(out[1]) == F{1, 2, 3, 4});

  OneNode c("Split", 18, {iota({5})}, 3);
  c.i("num_outputs", 3);
  out = c.run();
  CHECK(out[0].shape() == Dims{2});
  CHECK(out[2].shape() == Dims{1});
  CHECK(values<float>(out[2]) == F{4});

  OneNode z("Split", 18, {iota({4})}, 3); // parts of 2: the last one is empty
  z.i("num_outputs", 3);
  out = z.run();
  CHECK(out[1].shape() == Dims{2});
  CHECK(out[2].shape() == Dims{0});
  OneNode neg("Split", 18, {iota({5})}, 4); // parts of 2 would leave -1 for the last
  neg.i("num_outputs", 4);
  CHECK_THROWS_WITH(neg.infer(), Contains("num_outputs 4 cannot split an axis of size 5"));

  OneNode bad("Split", 13, {iota({5})}, 2);
  CHECK_THROWS_WITH(bad.infer(), Contains("cannot be split evenly"));
}

TEST_CASE("Expand, Tile, Where broadcast", "[ops][tensor]") {
  OneNode a("Expand", 13, {f32({3, 1}, {1, 2, 3}), i64({3}, {2, 1, 2})});
  Tensor y = a.run1();
  CHECK(y.shape() == Dims{2, 3, 2});
  CHECK(values<float>(y) == F{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});

  OneNode t("Tile", 13, {f32({2}, {1, 2}), i64({1}, {3})});
  CHECK(values<float>(t.run1()) == F{1, 2, 1, 2, 1, 2});

  OneNode w("Where", 16, {boolean({2, 1}, {1, 0}), f32({3}, {1, 2, 3}), f32({}, {-1})});
  Tensor z = w.run1();
  CHECK(z.shape() == Dims{2, 3});
  CHECK(values<float>(z) == F{1, 2, 3, -1, -1, -1});
  OneNode wbad("Where", 16, {boolean({2}, {1, 0}), f32({3}, {1, 2, 3}), f32({}, {-1})});
  CHECK_THROWS_WITH(wbad.infer(), Contains("cannot be broadcast"));
}

TEST_CASE("Shape, Size, Constant, ConstantOfShape, Range", "[ops][tensor]") {
  OneNode a("Shape", 13, {}, 1, {iota({2, 3, 4})});
  CHECK(values<int64_t>(a.run1()) == I{2, 3, 4});
  OneNode b("Shape", 15, {}, 1, {iota({2, 3, 4})});
  b.i("start", -2);
  CHECK(values<int64_t>(b.run1()) == I{3, 4});
  OneNode c("Shape", 15, {}, 1, {iota({2, 3, 4})});
  c.i("end", -5);
  CHECK(c.run1().shape() == Dims{0});
  OneNode s("Size", 13, {}, 1, {iota({2, 0})});
  Tensor sz = s.run1();
  CHECK(sz.rank() == 0);
  CHECK(values<int64_t>(sz) == I{0});

  OneNode k("Constant", 13, {});
  k.ints("value_ints", {4, 5});
  CHECK(values<int64_t>(k.run1()) == I{4, 5});
  OneNode kf("Constant", 13, {});
  kf.f("value_float", 2.5f);
  CHECK(kf.run1().rank() == 0);

  OneNode z("ConstantOfShape", 13, {i64({2}, {2, 3})});
  z.t("value", i64({1}, {7}));
  Tensor zt = z.run1();
  CHECK(zt.dtype() == DType::Int64);
  CHECK(values<int64_t>(zt) == I(6, 7));
  OneNode zd("ConstantOfShape", 13, {i64({1}, {0})});
  CHECK(zd.run1().shape() == Dims{0});

  OneNode r("Range", 13, {i64({}, {10}), i64({}, {4}), i64({}, {-3})});
  CHECK(values<int64_t>(r.run1()) == I{10, 7});
  OneNode rf("Range", 13, {f32({}, {0}), f32({}, {1}), f32({}, {0.25f})});
  CHECK(values<float>(rf.run1()) == F{0, 0.25f, 0.5f, 0.75f});
}

TEST_CASE("Reductions: axes as attribute and input, keepdims, empty axes", "[ops][reduce]") {
  OneNode m("ReduceMean", 13, {iota({2, 3})});
  m.ints("axes", {-1});
  Tensor y = m.run1();
  CHECK(y.shape() == Dims{2, 1});
  CHECK(values<float>(y) == F{1, 4});

  OneNode s("ReduceSum", 13, {iota({2, 3, 2}), i64({2}, {0, 2})});
  s.i("keepdims", 0);
  CHECK(values<float>(s.run1()) == F{0 + 1 + 6 + 7, 2 + 3 + 8 + 9, 4 + 5 + 10 + 11});
  OneNode all("ReduceSum", 13, {iota({2, 3})});
  Tensor t = all.run1();
  CHECK(t.shape() == Dims{1, 1});
  CHECK(values<float>(t) == F{15});
  OneNode noop("ReduceSum", 13, {iota({2}), i64({0}, {})});
  noop.i("noop_with_empty_axes", 1);
  CHECK(values<float>(noop.run1()) == F{0, 1});

  OneNode mx("ReduceMax", 18, {f32({2, 2}, {1, -5, NAN, 2}), i64({1}, {1})});
  std::vector<float> v = values<float>(mx.run1());
  CHECK(v[0] == 1);
  CHECK(std::isnan(v[1]));
  OneNode l2("ReduceL2", 11, {f32({2}, {3, 4})});
  l2.i("keepdims", 0);
  CHECK(values<float>(l2.run1()) == F{5});
  OneNode lse("ReduceLogSumExp", 13, {f32({2}, {1000, 1000})});
  CHECK(values<float>(lse.run1())[0] == Approx(1000 + std::log(2.0f)));
  OneNode p("ReduceProd", 13, {i64({3}, {2, -3, 4})});
  CHECK(values<int64_t>(p.run1()) == I{-24});
  OneNode mi("ReduceMean", 13, {i64({2}, {3, 4})});
  CHECK(values<int64_t>(mi.run1()) == I{3});

  OneNode bad("ReduceSum", 13, {iota({2}), i64({1}, {1})});
  CHECK_THROWS_WITH(bad.infer(), Contains("axis 1 is out of range"));
}

TEST_CASE("ArgMax and ArgMin", "[ops][reduce]") {
  OneNode a("ArgMax", 13, {f32({2, 3}, {1, 5, 5, 7, 0, 7})});
  a.i("axis", 1);
  Tensor y = a.run1();
  CHECK(y.shape() == Dims{2, 1});
  CHECK(values<int64_t>(y) == I{1, 0});
  OneNode last("ArgMax", 13, {f32({2, 3}, {1, 5, 5, 7, 0, 7})});
  last.i("axis", -1).i("select_last_index", 1).i("keepdims", 0);
  CHECK(values<int64_t>(last.run1()) == I{2, 2});
  OneNode mn("ArgMin", 13, {i32({2, 2}, {4, 1, 2, 3})});
  mn.i("keepdims", 0);
  CHECK(values<int64_t>(mn.run1()) == I{1, 0});
}

TEST_CASE("Clip: attributes, constant and run-time bounds", "[ops][math]") {
  OneNode a("Clip", 6, {f32({4}, {-2, -0.5f, 0.5f, 2})});
  a.f("min", -1).f("max", 1);
  CHECK(values<float>(a.run1()) == F{-1, -0.5f, 0.5f, 1});
  OneNode b("Clip", 13, {f32({3}, {-2, 0, 2}), nullptr, f32({}, {1})});
  CHECK(values<float>(b.run1()) == F{-2, 0, 1});
  OneNode c("Clip", 13, {i64({3}, {-2, 0, 9})}, 1, {i64({}, {-1}), i64({}, {5})});
  CHECK(values<int64_t>(c.run1()) == I{-1, 0, 5});
  OneNode d("Clip", 13, {f32({2}, {-3, 3}), f32({}, {2}), f32({}, {1})});
  CHECK(values<float>(d.run1()) == F{1, 1});
}

TEST_CASE("Sum, Mean, Max, Min of broadcast inputs", "[ops][math]") {
  OneNode s("Sum", 13, {f32({2, 1}, {1, 2}), f32({3}, {10, 20, 30}), f32({}, {100})});
  Tensor y = s.run1();
  CHECK(y.shape() == Dims{2, 3});
  CHECK(values<float>(y) == F{111, 121, 131, 112, 122, 132});
  OneNode m("Mean", 13, {f32({2}, {1, 2}), f32({2}, {3, 6})});
  CHECK(values<float>(m.run1()) == F{2, 4});
  OneNode mx("Max", 13, {i64({2}, {1, 5}), i64({1}, {3})});
  CHECK(values<int64_t>(mx.run1()) == I{3, 5});
  OneNode mn("Min", 13, {f32({1}, {4})});
  CHECK(values<float>(mn.run1()) == F{4});
}

TEST_CASE("Pad: constant, reflect, edge, wrap, negative pads", "[ops][tensor]") {
  OneNode a("Pad", 13, {f32({3}, {1, 2, 3}), i64({2}, {2, 1}), f32({}, {9})});
  CHECK(values<float>(a.run1()) == F{9, 9, 1, 2, 3, 9});
  OneNode r("Pad", 13, {f32({3}, {1, 2, 3}), i64({2}, {2, 2})});
  r.s("mode", "reflect");
  CHECK(values<float>(r.run1()) == F{3, 2, 1, 2, 3, 2, 1});
  OneNode e("Pad", 13, {iota({2, 2}), i64({4}, {0, 1, 1, 0})});
  e.s("mode", "edge");
  Tensor y = e.run1();
  CHECK(y.shape() == Dims{3, 3});
  CHECK(values<float>(y) == F{0, 0, 1, 2, 2, 3, 2, 2, 3});
  OneNode w("Pad", 19, {f32({3}, {1, 2, 3}), i64({2}, {1, 2})});
  w.s("mode", "wrap");
  CHECK(values<float>(w.run1()) == F{3, 1, 2, 3, 1, 2});
  OneNode crop("Pad", 11, {f32({4}, {1, 2, 3, 4}), i64({2}, {-1, 1})});
  CHECK(values<float>(crop.run1()) == F{2, 3, 4, 0});
  OneNode old("Pad", 2, {f32({2}, {1, 2})});
  old.ints("pads", {1, 0}).f("value", 5);
  CHECK(values<float>(old.run1()) == F{5, 1, 2});
  OneNode axes("Pad", 18, {iota({2, 2}), i64({2}, {1, 0}), nullptr, i64({1}, {-1})});
  CHECK(values<float>(axes.run1()) == F{0, 0, 1, 0, 2, 3});
}

TEST_CASE("DepthToSpace and SpaceToDepth", "[ops][tensor]") {
  OneNode dcr("DepthToSpace", 13, {iota({1, 4, 1, 1})});
  dcr.i("blocksize", 2);
  Tensor y = dcr.run1();
  CHECK(y.shape() == Dims{1, 1, 2, 2});
  CHECK(values<float>(y) == F{0, 1, 2, 3});
  OneNode crd("DepthToSpace", 13, {iota({1, 8, 1, 1})});
  crd.i("blocksize", 2).s("mode", "CRD");
  CHECK(values<float>(crd.run1()) == F{0, 1, 2, 3, 4, 5, 6, 7});
  OneNode dcr2("DepthToSpace", 13, {iota({1, 8, 1, 1})});
  dcr2.i("blocksize", 2);
  CHECK(values<float>(dcr2.run1()) == F{0, 2, 4, 6, 1, 3, 5, 7});
  OneNode s2d("SpaceToDepth", 13, {iota({1, 1, 2, 2})});
  s2d.i("blocksize", 2);
  Tensor z = s2d.run1();
  CHECK(z.shape() == Dims{1, 4, 1, 1});
  CHECK(values<float>(z) == F{0, 1, 2, 3});
}

// Zero-size tensors have no bytes (Tensor::data() may be nullptr): shape rules and kernels must
// handle them without touching memory.
TEST_CASE("Zero-size tensors: shapes", "[ops][tensor]") {
  OneNode z("Reshape", 14, {iota({0, 3}), i64({2}, {3, 0})});
  z.i("allowzero", 1);
  z.infer();
  CHECK(z.out_dims() == Dims{3, 0});
  OneNode c("Concat", 13, {iota({2, 2}), f32({2, 0}, {})});
  c.i("axis", 1);
  c.infer();
  CHECK(c.out_dims() == Dims{2, 2});
  OneNode s("Slice", 13, {iota({4}), i64({1}, {3}), i64({1}, {1})});
  s.infer();
  CHECK(s.out_dims() == Dims{0});
  OneNode t("Tile", 13, {iota({2, 2}), i64({2}, {2, 0})});
  t.infer();
  CHECK(t.out_dims() == Dims{4, 0});
  OneNode r("ReduceSum", 13, {iota({0, 2}), i64({1}, {0})});
  r.infer();
  CHECK(r.out_dims() == Dims{1, 2});
}

TEST_CASE("Zero-size tensors: evaluation", "[ops][tensor]") {
  OneNode c("Concat", 13, {iota({2, 2}), f32({2, 1}, {10, 11}), f32({2, 0}, {})});
  c.i("axis", -1);
  CHECK(values<float>(c.run1()) == F{0, 1, 10, 2, 3, 11});
  OneNode s("Slice", 13, {iota({4}), i64({1}, {3}), i64({1}, {1})});
  CHECK(s.run1().shape() == Dims{0});
  OneNode empty("ReduceSum", 13, {iota({0, 2}), i64({1}, {0})});
  CHECK(values<float>(empty.run1()) == F{0, 0});
  OneNode emax("ReduceMax", 18, {iota({2, 0}), i64({1}, {1})});
  CHECK(values<float>(emax.run1())[0] == -std::numeric_limits<float>::infinity());
  OneNode t("Tile", 13, {iota({2, 2}), i64({2}, {2, 0})});
  CHECK(t.run1().shape() == Dims{4, 0});
  OneNode g("Gather", 13, {iota({2, 3}), i64({0}, {})});
  g.i("axis", 1);
  CHECK(g.run1().shape() == Dims{2, 0});
  OneNode p("Pad", 13, {iota({0}), i64({2}, {1, 1}), f32({}, {3})});
  CHECK(values<float>(p.run1()) == F{3, 3});
  OneNode sp("Split", 13, {iota({3}), i64({2}, {0, 3})}, 2);
  std::vector<Tensor> parts = sp.run();
  CHECK(parts[0].shape() == Dims{0});
  CHECK(values<float>(parts[1]) == F{0, 1, 2});
}

TEST_CASE("ReduceMax and ReduceMin of bool - unsupported element types", "[ops][reduce]") {
  OneNode any("ReduceMax", 20, {boolean({2, 2}, {0, 1, 0, 0}), i64({1}, {1})});
  any.i("keepdims", 0);
  CHECK(values<uint8_t>(any.run1()) == std::vector<uint8_t>{1, 0});
  OneNode all("ReduceMin", 20, {boolean({2, 2}, {1, 1, 0, 1}), i64({1}, {1})});
  all.i("keepdims", 0);
  CHECK(values<uint8_t>(all.run1()) == std::vector<uint8_t>{1, 0});
  OneNode sum("ReduceSum", 13, {boolean({2}, {1, 1})});
  CHECK_THROWS_WITH(sum.infer(), Contains("bool is supported by ReduceMax and ReduceMin only"));
  OneNode h("Max", 13, {make<uint16_t>(DType::Float16, {1}, {0x3c00})});
  CHECK_THROWS_WITH(h.infer(), Contains("element type float16 is not supported"));
}

// Found by fuzz.op_sweep under UBSan: these overflowed int64 in the constant folder (signed
// overflow is undefined; ONNX Runtime and numpy wrap), and ReduceLogSum of int64 zeros converted
// -inf to an integer.
TEST_CASE("Integer arithmetic wraps on overflow - float results saturate", "[ops][elementwise]") {
  const int64_t big = std::numeric_limits<int64_t>::max();
  const int64_t small = std::numeric_limits<int64_t>::min();
  using I = std::vector<int64_t>;
  CHECK(values<int64_t>(OneNode("Add", 13, {i64({2}, {big, small}), i64({2}, {1, -1})}).run1()) ==
        I{small, big});
  CHECK(values<int64_t>(OneNode("Sub", 13, {i64({1}, {small}), i64({1}, {1})}).run1()) == I{big});
  CHECK(values<int64_t>(OneNode("Mul", 13, {i64({1}, {big}), i64({1}, {2})}).run1()) == I{-2});
  CHECK(values<int64_t>(OneNode("Neg", 13, {i64({1}, {small})}).run1()) == I{small});
  CHECK(values<int64_t>(OneNode("Abs", 13, {i64({1}, {small})}).run1()) == I{small});
  CHECK(values<int64_t>(OneNode("Sum", 13, {i64({1}, {big}), i64({1}, {big})}).run1()) == I{-2});
  CHECK(values<int64_t>(OneNode("CumSum", 14, {i64({2}, {big, 1}), i64({}, {0})}).run1()) ==
        I{big, small});
  // uint64 above 2^63 converts exactly (saturating at int64 there was wrong; review).
  const uint64_t high = (uint64_t(1) << 63) + 4096;
  CHECK(values<uint64_t>(
            OneNode("Shrink", 13, {make<uint64_t>(DType::Uint64, {1}, {high})}).run1()) ==
        std::vector<uint64_t>{high});
  OneNode log_sum("ReduceLogSum", 18, {i64({2}, {0, 0})});
  log_sum.i("keepdims", 0);
  CHECK(values<int64_t>(log_sum.run1()) == I{small});
}
