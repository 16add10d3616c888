// Resize/Upsample, ConvTranspose, Trilu, CumSum, Gelu, Shrink, OneHot, GatherND, ScatterND,
// ScatterElements, Hardmax, LpNormalization, MeanVarianceNormalization and RMSNormalization:
// each test builds one node, runs its shape rule and the reference evaluator (the natively
// compiled kernel), and compares with values worked out by hand or a naive loop written here.
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/node_attrs.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

using namespace onnxc;
using Catch::Matchers::Contains;

namespace {

template <typename T> TensorPtr make(DType dt, std::vector<int64_t> dims, std::vector<T> vals) {
  auto t = std::make_shared<Tensor>(dt, std::move(dims));
  REQUIRE(static_cast<size_t>(t->numel()) == vals.size());
  if (!vals.empty())
    std::memcpy(t->data(), vals.data(), vals.size() * sizeof(T));
  return t;
}
TensorPtr f32(std::vector<int64_t> d, std::vector<float> v) { return make(DType::Float, d, v); }
TensorPtr i64(std::vector<int64_t> d, std::vector<int64_t> v) { return make(DType::Int64, d, v); }
TensorPtr i32(std::vector<int64_t> d, std::vector<int32_t> v) { return make(DType::Int32, d, v); }
TensorPtr iota(std::vector<int64_t> d) {
  auto t = std::make_shared<Tensor>(DType::Float, d);
  for (int64_t i = 0; i < t->numel(); ++i)
    t->data_as<float>()[i] = static_cast<float>(i);
  return t;
}
TensorPtr random_tensor(const std::vector<int64_t> &dims, uint32_t seed) {
  auto t = std::make_shared<Tensor>(DType::Float, dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < t->numel(); ++i)
    t->data_as<float>()[i] = dist(rng);
  return t;
}
template <typename T> std::vector<T> values(const Tensor &t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.numel());
}

/// One node; inputs listed in `runtime` are graph inputs (only their type is known to the shape
/// rule), the others constants. The evaluator gets all inputs' data.
struct OneNode : test::AttrSetters<OneNode> {
  Graph g;
  Node *node = nullptr;
  std::vector<TensorPtr> data;

  OneNode(const char *op, int64_t opset, std::vector<TensorPtr> ins,
          std::vector<size_t> runtime = {}) {
    std::vector<Value *> vals;
    for (size_t i = 0; i < ins.size(); ++i) {
      data.push_back(ins[i]);
      bool rt = std::find(runtime.begin(), runtime.end(), i) != runtime.end();
      if (!ins[i])
        vals.push_back(nullptr);
      else if (rt)
        vals.push_back(g.add_value(g.unique_name("r"), Type::of(ins[i]->dtype(), ins[i]->shape())));
      else
        vals.push_back(g.add_constant(g.unique_name("c"), ins[i]));
    }
    node = g.add_node(op, vals, 1);
    node->def = find_op("", op);
    node->opset = opset;
    REQUIRE(node->def);
  }
  void infer() { node->def->infer(*node); }
  Tensor run1() {
    infer();
    std::vector<const Tensor *> ins;
    for (TensorPtr &t : data)
      ins.push_back(t.get());
    return evaluate_node(*node, ins).at(0);
  }
};

using Dims = std::vector<int64_t>;
using F = std::vector<float>;

void require_close(const Tensor &got, const std::vector<float> &want, double tol = 1e-5) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": got " << got.data_as<float>()[i] << ", want " << want[i]);
    REQUIRE(std::abs(got.data_as<float>()[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Resize / Upsample

TEST_CASE("Resize nearest: scales, sizes, axes, nearest modes", "[ops][resize]") {
  OneNode up("Resize", 13, {iota({1, 1, 2, 2}), nullptr, f32({4}, {1, 1, 2, 3})});
  Tensor y = up.run1();
  CHECK(y.shape() == Dims{1, 1, 4, 6});
  CHECK(values<float>(y) == F{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, //
                              2, 2, 2, 3, 3, 3, 2, 2, 2, 3, 3, 3});

  OneNode down("Resize", 13, {iota({1, 4}), nullptr, nullptr, i64({2}, {1, 2})});
  down.s("coordinate_transformation_mode", "asymmetric").s("nearest_mode", "floor");
  CHECK(values<float>(down.run1()) == F{0, 2});

  OneNode axes("Resize", 18, {iota({2, 3}), nullptr, nullptr, i64({1}, {6})});
  axes.ints("axes", {1}).s("coordinate_transformation_mode", "asymmetric");
  Tensor a = axes.run1();
  CHECK(a.shape() == Dims{2, 6});
  CHECK(values<float>(a) == F{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5});

  auto ints = make(DType::Int32, {3}, std::vector<int32_t>{7, 8, 9});
  OneNode typed("Resize", 13, {ints, nullptr, f32({1}, {2})});
  typed.s("coordinate_transformation_mode", "asymmetric");
  CHECK(values<int32_t>(typed.run1()) == std::vector<int32_t>{7, 7, 8, 8, 9, 9});
}

TEST_CASE("Resize linear and cubic", "[ops][resize]") {
  OneNode lin("Resize", 13, {f32({1, 2}, {1, 2}), nullptr, f32({2}, {1, 2})});
  lin.s("mode", "linear");
  require_close(lin.run1(), {1, 1.25f, 1.75f, 2});

  OneNode ac("Resize", 13, {f32({1, 2}, {1, 2}), nullptr, nullptr, i64({2}, {1, 3})});
  ac.s("mode", "linear").s("coordinate_transformation_mode", "align_corners");
  require_close(ac.run1(), {1, 1.5f, 2});

  // Cubic on a linear ramp reproduces the ramp away from the edges (A = -0.75, align_corners).
  OneNode cub("Resize", 13, {iota({1, 8}), nullptr, nullptr, i64({2}, {1, 15})});
  cub.s("mode", "cubic").s("coordinate_transformation_mode", "align_corners");
  Tensor c = cub.run1();
  for (int64_t j = 2; j < 13; ++j)
    CHECK(std::abs(c.data_as<float>()[j] - 0.5f * float(j)) < 1e-5);

  OneNode crop("Resize", 13, {iota({1, 4}), f32({4}, {0, 0.5f, 1, 1.5f}), f32({2}, {1, 1})});
  crop.s("mode", "linear").s("coordinate_transformation_mode", "tf_crop_and_resize");
  crop.f("extrapolation_value", -1);
  require_close(crop.run1(), {1.5f, 2.5f, -1, -1}); // x = 1.5 + j: beyond 3 extrapolates
}

TEST_CASE("Upsample (opsets 7 and 9)", "[ops][resize]") {
  OneNode u7("Upsample", 7, {iota({1, 2})});
  u7.floats("scales", {1, 2});
  CHECK(values<float>(u7.run1()) == F{0, 0, 1, 1});
  OneNode u9("Upsample", 9, {iota({2, 1}), f32({2}, {2, 1})});
  CHECK(values<float>(u9.run1()) == F{0, 0, 1, 1});
}

TEST_CASE("Resize errors", "[ops][resize]") {
  OneNode both("Resize", 13, {iota({1, 2}), nullptr, f32({2}, {1, 2}), i64({2}, {1, 4})});
  CHECK_THROWS_WITH(both.infer(), Contains("only one of scales and sizes"));
  OneNode none("Resize", 13, {iota({1, 2})});
  CHECK_THROWS_WITH(none.infer(), Contains("one of scales and sizes must be given"));
  // Scales computed at run time: the output is shaped at run time (onnxc_k_resize_rt), and
  // the scales must still be one float per resized axis.
  OneNode rt("Resize", 13, {iota({1, 2}), nullptr, f32({2}, {1, 2})}, {2});
  rt.infer();
  CHECK(rt.node->outputs[0]->run_time_shape_from == rt.node->inputs[2]->name);
  CHECK(rt.node->def->lower(*rt.node).kernel == "onnxc_k_resize_rt");
  OneNode rt3("Resize", 13, {iota({1, 2}), nullptr, f32({3}, {1, 2, 3})}, {2});
  CHECK_THROWS_WITH(rt3.infer(), Contains("scales must be 2 floats"));
  OneNode mode("Resize", 13, {iota({1, 2}), nullptr, f32({2}, {1, 2})});
  mode.s("mode", "area");
  CHECK_THROWS_WITH(mode.infer(), Contains("mode 'area' is not nearest, linear or cubic"));
  OneNode len("Resize", 13, {iota({1, 2}), nullptr, f32({1}, {2})});
  CHECK_THROWS_WITH(len.infer(), Contains("scales has 1 values but 2 axes"));
}

// ---------------------------------------------------------------------------------------------
// ConvTranspose

namespace {

/// Naive ConvTranspose (2-D, scatter form) with pads [pb_h, pb_w], output size given.
std::vector<float> ref_conv_transpose(const Tensor &x, const Tensor &w, int64_t group, Dims strides,
                                      Dims dil, Dims pb, Dims out) {
  const Dims xs = x.shape(), ws = w.shape();
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], Mg = ws[1], M = Mg * group;
  const int64_t KH = ws[2], KW = ws[3], Cg = C / group;
  std::vector<float> y(size_t(N * M * out[0] * out[1]), 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t ml = 0; ml < Mg; ++ml)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t ww = 0; ww < W; ++ww)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t oh = h * strides[0] - pb[0] + kh * dil[0];
                int64_t ow = ww * strides[1] - pb[1] + kw * dil[1];
                if (oh < 0 || oh >= out[0] || ow < 0 || ow >= out[1])
                  continue;
                int64_t m = (c / Cg) * Mg + ml;
                y[size_t(((n * M + m) * out[0] + oh) * out[1] + ow)] +=
                    x.data_as<float>()[((n * C + c) * H + h) * W + ww] *
                    w.data_as<float>()[((c * Mg + ml) * KH + kh) * KW + kw];
              }
  return y;
}

} // namespace

TEST_CASE("ConvTranspose against a naive loop", "[ops][convtranspose]") {
  struct Case {
    Dims x, w;
    int64_t group;
    Dims strides, dil, pads, out_pad;
  };
  for (const Case &k :
       std::vector<Case>{{{1, 1, 3, 3}, {1, 2, 3, 3}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}},
                         {{2, 4, 5, 4}, {4, 3, 3, 2}, 2, {2, 3}, {1, 1}, {1, 0, 0, 1}, {1, 2}},
                         {{1, 3, 4, 4}, {3, 1, 2, 3}, 3, {3, 2}, {2, 2}, {0, 1, 2, 1}, {0, 1}},
                         {{1, 2, 1, 7}, {2, 5, 1, 3}, 1, {1, 2}, {1, 3}, {0, 0, 0, 0}, {0, 0}}}) {
    INFO("x " << dims_to_string(k.x) << " w " << dims_to_string(k.w));
    auto x = random_tensor(k.x, 1), w = random_tensor(k.w, 2);
    OneNode t("ConvTranspose", 11, {x, w});
    t.i("group", k.group).ints("strides", k.strides).ints("dilations", k.dil).ints("pads", k.pads);
    t.ints("output_padding", k.out_pad);
    Tensor y = t.run1();
    Dims out;
    for (size_t d = 0; d < 2; ++d)
      out.push_back(k.strides[d] * (k.x[d + 2] - 1) + k.out_pad[d] + (k.w[d + 2] - 1) * k.dil[d] +
                    1 - k.pads[d] - k.pads[d + 2]);
    CHECK(y.shape() == Dims{k.x[0], k.w[1] * k.group, out[0], out[1]});
    require_close(
        y, ref_conv_transpose(*x, *w, k.group, k.strides, k.dil, {k.pads[0], k.pads[1]}, out));
  }
}

TEST_CASE("ConvTranspose bias, output_shape, auto_pad and errors", "[ops][convtranspose]") {
  OneNode b("ConvTranspose", 11, {f32({1, 1, 2}, {1, 2}), f32({1, 1, 2}, {1, 1}), f32({1}, {10})});
  CHECK(values<float>(b.run1()) == F{11, 13, 12});
  OneNode os("ConvTranspose", 11, {f32({1, 1, 2}, {1, 2}), f32({1, 1, 2}, {1, 1})});
  os.ints("strides", {2}).ints("output_shape", {6});
  CHECK(values<float>(os.run1()) == F{1, 1, 2, 2, 0, 0}); // past the last tap: zero
  OneNode same("ConvTranspose", 11, {f32({1, 1, 3}, {1, 2, 3}), f32({1, 1, 3}, {1, 1, 1})});
  same.ints("strides", {2}).s("auto_pad", "SAME_UPPER");
  Tensor s = same.run1();
  CHECK(s.shape() == Dims{1, 1, 6});
  CHECK(values<float>(s) == F{1, 1, 3, 2, 5, 3});
  OneNode bad("ConvTranspose", 11, {iota({1, 3, 2, 2}), iota({2, 1, 1, 1})});
  CHECK_THROWS_WITH(bad.infer(), Contains("must have X's 3 channels"));
  OneNode grp("ConvTranspose", 11, {iota({1, 3, 2, 2}), iota({3, 1, 1, 1})});
  grp.i("group", 2);
  CHECK_THROWS_WITH(grp.infer(), Contains("group 2 must divide the input channels (3)"));
}

// ---------------------------------------------------------------------------------------------
// Element-wise-like ops: Trilu, CumSum, Gelu, Shrink

TEST_CASE("Trilu upper/lower with k", "[ops][trilu]") {
  OneNode up("Trilu", 14, {iota({2, 3})});
  CHECK(values<float>(up.run1()) == F{0, 1, 2, 0, 4, 5});
  OneNode lo("Trilu", 14, {iota({2, 3}), i64({}, {-1})});
  lo.i("upper", 0);
  CHECK(values<float>(lo.run1()) == F{0, 0, 0, 3, 0, 0});
  OneNode big("Trilu", 14, {iota({1, 2, 2}), i64({}, {1LL << 62})});
  CHECK(values<float>(big.run1()) == F{0, 0, 0, 0});
  OneNode bad("Trilu", 14, {iota({3})});
  CHECK_THROWS_WITH(bad.infer(), Contains("rank >= 2"));
}

TEST_CASE("CumSum exclusive, reverse, axes, int32", "[ops][cumsum]") {
  OneNode a("CumSum", 14, {iota({2, 3}), i64({}, {1})});
  CHECK(values<float>(a.run1()) == F{0, 1, 3, 3, 7, 12});
  OneNode b("CumSum", 14, {iota({2, 3}), i32({1}, {-2})});
  b.i("exclusive", 1).i("reverse", 1);
  CHECK(values<float>(b.run1()) == F{3, 4, 5, 0, 0, 0});
  OneNode c("CumSum", 14, {i32({4}, {1, 2, 3, 4}), i64({}, {0})});
  c.i("exclusive", 1);
  CHECK(values<int32_t>(c.run1()) == std::vector<int32_t>{0, 1, 3, 6});
  // An axis computed at run time: the kernel reads it (conformance cases test_cumsum_*); it
  // must still be one integer.
  OneNode rt("CumSum", 14, {iota({2}), i64({}, {0})}, {1});
  CHECK_NOTHROW(rt.infer());
  OneNode rt2("CumSum", 14, {iota({2}), i64({2}, {0, 0})}, {1});
  CHECK_THROWS_WITH(rt2.infer(), Contains("axis must be an int32 or int64 scalar"));
}

TEST_CASE("Gelu exact and tanh, Shrink", "[ops][gelu]") {
  OneNode g("Gelu", 20, {f32({3}, {-1, 0, 2})});
  require_close(g.run1(), {-0.15865525f, 0, 1.9544997f});
  OneNode t("Gelu", 20, {f32({3}, {-1, 0, 2})});
  t.s("approximate", "tanh");
  require_close(t.run1(), {-0.15880801f, 0, 1.9545977f});
  OneNode bad("Gelu", 20, {f32({1}, {0})});
  bad.s("approximate", "fast");
  CHECK_THROWS_WITH(bad.infer(), Contains("approximate 'fast' is not none or tanh"));
  OneNode s("Shrink", 9, {f32({5}, {-2, -0.5f, 0, 0.5f, 2})});
  s.f("lambd", 1).f("bias", 0.5f);
  CHECK(values<float>(s.run1()) == F{-1.5f, 0, 0, 0, 1.5f});
}

// ---------------------------------------------------------------------------------------------
// Index ops: OneHot, GatherND, ScatterND, ScatterElements

TEST_CASE("OneHot: axis, negative and out-of-range indices", "[ops][onehot]") {
  OneNode a("OneHot", 11, {i64({3}, {0, -1, 5}), i64({}, {3}), f32({2}, {0, 1})});
  Tensor y = a.run1();
  CHECK(y.shape() == Dims{3, 3});
  CHECK(values<float>(y) == F{1, 0, 0, 0, 0, 1, 0, 0, 0});
  OneNode b("OneHot", 11, {f32({2}, {1.7f, 0}), f32({1}, {2}), i32({2}, {-1, 7})});
  b.i("axis", 0);
  CHECK(values<int32_t>(b.run1()) == std::vector<int32_t>{-1, 7, 7, -1});
  OneNode bad("OneHot", 11, {i64({1}, {0}), i64({}, {0}), f32({2}, {0, 1})});
  CHECK_THROWS_WITH(bad.infer(), Contains("depth must be positive"));
}

TEST_CASE("GatherND: batch_dims, negative and out-of-range indices", "[ops][gathernd]") {
  OneNode a("GatherND", 13, {iota({2, 2}), i64({2, 2}, {0, 0, 1, 1})});
  CHECK(values<float>(a.run1()) == F{0, 3});
  OneNode b("GatherND", 13, {iota({2, 2}), i64({2, 1}, {1, -2})});
  CHECK(values<float>(b.run1()) == F{2, 3, 0, 1});
  OneNode c("GatherND", 13, {iota({2, 2, 2}), i64({2, 1}, {1, 0})});
  c.i("batch_dims", 1);
  Tensor y = c.run1();
  CHECK(y.shape() == Dims{2, 2});
  CHECK(values<float>(y) == F{2, 3, 4, 5});
  OneNode bad("GatherND", 13, {iota({2, 2}), i64({1, 2}, {0, 2})});
  CHECK_THROWS_WITH(bad.infer(), Contains("index 2 (element 1 of the indices) is out of range"));
  OneNode rt("GatherND", 13, {iota({2, 2}), i64({1, 2}, {-3, 0})}, {1});
  CHECK_THROWS_WITH(rt.run1(), Contains("GatherND: index out of range"));
}

TEST_CASE("ScatterND and ScatterElements: reductions and index checks", "[ops][scatter]") {
  OneNode a("ScatterND", 18, {iota({4}), i64({3, 1}, {1, -1, 1}), f32({3}, {10, 20, 30})});
  a.s("reduction", "add");
  CHECK(values<float>(a.run1()) == F{0, 41, 2, 23});
  OneNode m("ScatterND", 18, {iota({2, 2}), i64({1, 1}, {1}), f32({1, 2}, {5, -5})});
  m.s("reduction", "max");
  CHECK(values<float>(m.run1()) == F{0, 1, 5, 3});
  OneNode rt("ScatterND", 18, {iota({4}), i64({1, 1}, {4}), f32({1}, {1})}, {1});
  CHECK_THROWS_WITH(rt.run1(), Contains("ScatterND: index out of range"));

  OneNode e("ScatterElements", 18, {iota({2, 3}), i64({2, 1}, {2, -3}), f32({2, 1}, {7, 8})});
  e.i("axis", 1).s("reduction", "mul");
  CHECK(values<float>(e.run1()) == F{0, 1, 14, 24, 4, 5});
  OneNode ert("ScatterElements", 18, {iota({2, 3}), i64({1, 1}, {-4}), f32({1, 1}, {7})}, {1});
  ert.i("axis", 1);
  CHECK_THROWS_WITH(ert.run1(), Contains("ScatterElements: index out of range"));
  OneNode ebad("ScatterElements", 18, {iota({2, 3}), i64({1, 1}, {3}), f32({1, 1}, {7})});
  ebad.i("axis", 1);
  CHECK_THROWS_WITH(ebad.infer(), Contains("index 3 (element 0 of the indices) is out of range"));
  OneNode shape("ScatterElements", 18, {iota({2, 3}), i64({1, 1}, {0}), f32({1, 2}, {7, 8})});
  CHECK_THROWS_WITH(shape.infer(), Contains("updates have shape 1x2"));
  OneNode old("Scatter", 9, {iota({3}), i64({1}, {0}), f32({1}, {9})});
  CHECK(values<float>(old.run1()) == F{9, 1, 2});
}

// ---------------------------------------------------------------------------------------------
// Row-wise ops: Hardmax, LpNormalization, MeanVarianceNormalization, RMSNormalization

TEST_CASE("Hardmax: first maximum, opset 11 flattening", "[ops][hardmax]") {
  OneNode a("Hardmax", 13, {f32({2, 3}, {1, 3, 3, -1, -2, -3})});
  CHECK(values<float>(a.run1()) == F{0, 1, 0, 1, 0, 0});
  OneNode b("Hardmax", 13, {f32({2, 2}, {1, 3, 2, 0})});
  b.i("axis", 0);
  CHECK(values<float>(b.run1()) == F{0, 1, 1, 0});
  OneNode c("Hardmax", 11, {f32({2, 1, 2}, {1, 3, 5, 2})}); // axis 1: rows of 2 elements
  CHECK(values<float>(c.run1()) == F{0, 1, 1, 0});
}

TEST_CASE("LpNormalization p=1 and p=2", "[ops][lpnorm]") {
  OneNode a("LpNormalization", 22, {f32({2, 2}, {3, 4, -1, 1})});
  require_close(a.run1(), {0.6f, 0.8f, -0.70710678f, 0.70710678f});
  OneNode b("LpNormalization", 22, {f32({2, 2}, {3, 4, -1, 1})});
  b.i("axis", 0).i("p", 1);
  require_close(b.run1(), {0.75f, 0.8f, -0.25f, 0.2f});
  OneNode bad("LpNormalization", 22, {f32({2}, {1, 1})});
  bad.i("p", 3);
  CHECK_THROWS_WITH(bad.infer(), Contains("p must be 1 or 2"));
}

TEST_CASE("MeanVarianceNormalization over default and given axes", "[ops][mvn]") {
  OneNode a("MeanVarianceNormalization", 13, {f32({1, 2, 1, 2}, {1, 3, 5, 9})});
  require_close(a.run1(), {-1, 1, -1, 1});
  OneNode b("MeanVarianceNormalization", 13, {f32({2, 2}, {1, 3, 5, 9})});
  b.ints("axes", {0});
  require_close(b.run1(), {-1, -1, 1, 1});
}

TEST_CASE("RMSNormalization: axis and scale broadcasting", "[ops][rmsnorm]") {
  OneNode a("RMSNormalization", 23, {f32({2, 2}, {3, 4, 1, -1}), f32({2}, {1, 2})});
  a.f("epsilon", 0);
  const float r = std::sqrt(12.5f);
  require_close(a.run1(), {3 / r, 8 / r, 1, -2});
  OneNode b("RMSNormalization", 23, {f32({2, 2}, {3, 4, 1, -1}), f32({1}, {2})});
  b.i("axis", 0).f("epsilon", 0);
  const float q = std::sqrt(27.0f / 4);
  require_close(b.run1(), {6 / q, 8 / q, 2 / q, -2 / q});
  OneNode bad("RMSNormalization", 23, {f32({2, 2}, {3, 4, 1, -1}), f32({3}, {1, 2, 3})});
  CHECK_THROWS_WITH(bad.infer(), Contains("scale has shape 3 but the normalised dims are 2"));
}

TEST_CASE("LRN normalises over a channel window clipped at the edges", "[ops][lrn]") {
  // 1 x 5 channels x 2 positions; size 3 (window c-1..c+1), odd size 4 (c-1..c+2).
  TensorPtr x = random_tensor({1, 5, 2}, 7);
  for (int64_t size : {3, 4}) {
    OneNode n("LRN", 13, {x});
    n.i("size", size).f("alpha", 0.5f).f("beta", 0.75f).f("bias", 2.0f);
    std::vector<float> y = values<float>(n.run1());
    const float *xv = x->data_as<float>();
    int64_t before = (size - 1) / 2, after = size - 1 - before;
    for (int64_t c = 0; c < 5; ++c)
      for (int64_t s = 0; s < 2; ++s) {
        double sum = 0;
        for (int64_t k = std::max<int64_t>(0, c - before); k <= std::min<int64_t>(4, c + after);
             ++k)
          sum += double(xv[k * 2 + s]) * xv[k * 2 + s];
        double want = xv[c * 2 + s] / std::pow(2.0 + 0.5 / double(size) * sum, 0.75);
        CHECK(y[size_t(c * 2 + s)] == Approx(want).epsilon(1e-5));
      }
  }
  OneNode bad("LRN", 13, {f32({3}, {1, 2, 3})});
  bad.i("size", 3);
  CHECK_THROWS_WITH(bad.infer(), Catch::Contains("at least 2 dims"));
}
