// Quantisation ops: QuantizeLinear / DequantizeLinear rounding (ties to even) and saturation
// edge cases, per-axis and blocked layouts, DynamicQuantizeLinear, and the integer matrix
// products and convolutions against naive loops written here. Each test builds one node, runs
// its shape rule and the reference evaluator (the natively compiled kernel).
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/node_attrs.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace onnxc;
using Catch::Matchers::Contains;

namespace {

using Dims = std::vector<int64_t>;

template <typename T> TensorPtr make(DType dt, Dims dims, std::vector<T> vals) {
  auto t = std::make_shared<Tensor>(dt, std::move(dims));
  REQUIRE(static_cast<size_t>(t->numel()) == vals.size());
  if (!vals.empty())
    std::memcpy(t->data(), vals.data(), vals.size() * sizeof(T));
  return t;
}
TensorPtr f32(Dims d, std::vector<float> v) { return make(DType::Float, d, v); }
TensorPtr u8(Dims d, std::vector<uint8_t> v) { return make(DType::Uint8, d, v); }
TensorPtr i8(Dims d, std::vector<int8_t> v) { return make(DType::Int8, d, v); }
TensorPtr i32(Dims d, std::vector<int32_t> v) { return make(DType::Int32, d, v); }

template <typename T> std::vector<T> values(const Tensor &t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.numel());
}

/// Random integers in [lo, hi] as a tensor of type T.
template <typename T> TensorPtr random_ints(DType dt, Dims d, int lo, int hi, uint32_t seed) {
  auto t = std::make_shared<Tensor>(dt, d);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (int64_t i = 0; i < t->numel(); ++i)
    t->data_as<T>()[i] = static_cast<T>(dist(rng));
  return t;
}

/// One node on constant inputs (nullptr: omitted optional input).
struct OneNode : test::AttrSetters<OneNode> {
  Graph g;
  Node *node = nullptr;
  std::vector<TensorPtr> data;

  OneNode(const char *op, int64_t opset, std::vector<TensorPtr> ins, size_t outs = 1,
          const char *domain = "") {
    std::vector<Value *> vals;
    for (const TensorPtr &t : ins) {
      data.push_back(t);
      vals.push_back(t ? g.add_constant(g.unique_name("c"), t) : nullptr);
    }
    node = g.add_node(op, vals, outs);
    node->def = find_op(domain, op);
    node->domain = domain;
    node->opset = opset;
    REQUIRE(node->def);
  }
  void infer() { node->def->infer(*node); }
  std::vector<Tensor> run() {
    infer();
    std::vector<const Tensor *> ins;
    for (TensorPtr &t : data)
      ins.push_back(t.get());
    return evaluate_node(*node, ins);
  }
  Tensor run1() { return run().at(0); }
};

const float kNaN = std::numeric_limits<float>::quiet_NaN();

} // namespace

TEST_CASE("QuantizeLinear rounds ties to even", "[ops][quant]") {
  auto x = f32({9}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.5f, 0.49999997f, -3.5f});
  Tensor y = OneNode("QuantizeLinear", 13, {x, f32({}, {1}), i8({}, {0})}).run1();
  REQUIRE(y.dtype() == DType::Int8);
  CHECK(values<int8_t>(y) == std::vector<int8_t>{0, 2, 2, 0, -2, -2, 4, 0, -4});
  // x / scale lands on a tie: 0.75 / 0.5 = 1.5 -> 2, 1.25 / 0.5 = 2.5 -> 2; then + zero point.
  Tensor z =
      OneNode("QuantizeLinear", 13, {f32({2}, {0.75f, 1.25f}), f32({}, {0.5f}), u8({}, {10})})
          .run1();
  CHECK(values<uint8_t>(z) == std::vector<uint8_t>{12, 12});
}

TEST_CASE("QuantizeLinear saturates at the type's range - NaN gives the zero point",
          "[ops][quant]") {
  auto xi = f32({7}, {1000, -1000, 127.4f, 127.5f, -128.5f, -128.6f, kNaN});
  Tensor s8 = OneNode("QuantizeLinear", 13, {xi, f32({}, {1}), i8({}, {0})}).run1();
  CHECK(values<int8_t>(s8) == std::vector<int8_t>{127, -128, 127, 127, -128, -128, 0});
  auto xu = f32({6}, {-1, 255.5f, 300, 254.5f, -0.5f, kNaN});
  Tensor s_u8 = OneNode("QuantizeLinear", 13, {xu, f32({}, {1}), u8({}, {0})}).run1();
  CHECK(values<uint8_t>(s_u8) == std::vector<uint8_t>{0, 255, 255, 254, 0, 0});
  // The zero point takes part in the saturation: 10 + 250 > 255.
  Tensor zp =
      OneNode("QuantizeLinear", 13, {f32({2}, {10, -10}), f32({}, {1}), u8({}, {250})}).run1();
  CHECK(values<uint8_t>(zp) == std::vector<uint8_t>{255, 240});
  // No zero point: uint8; output_dtype int16 without one.
  Tensor def = OneNode("QuantizeLinear", 13, {f32({2}, {-3, 3}), f32({}, {1}), nullptr}).run1();
  CHECK(def.dtype() == DType::Uint8);
  CHECK(values<uint8_t>(def) == std::vector<uint8_t>{0, 3});
  Tensor s16 =
      OneNode("QuantizeLinear", 21, {f32({3}, {40000, -40000, 1.5f}), f32({}, {1}), nullptr})
          .i("output_dtype", 5)
          .run1();
  REQUIRE(s16.dtype() == DType::Int16);
  CHECK(values<int16_t>(s16) == std::vector<int16_t>{32767, -32768, 2});
}

namespace {
std::vector<double> as_doubles(const Tensor &t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i)
    v.push_back(t.dtype() == DType::Int4 || t.dtype() == DType::Uint2
                    ? static_cast<double>(t.int_at(i))
                    : t.float_at(i));
  return v;
}
} // namespace

TEST_CASE("QuantizeLinear to packed int4 / uint2: ties, saturation, packing", "[ops][quant]") {
  auto x = f32({7}, {-9, -8.5f, 7.5f, 8, 0.5f, 1.5f, 3});
  Tensor i4 =
      OneNode("QuantizeLinear", 21, {x, f32({}, {1}), nullptr}).i("output_dtype", 22).run1();
  REQUIRE(i4.dtype() == DType::Int4);
  CHECK(as_doubles(i4) == std::vector<double>{-8, -8, 7, 7, 0, 2, 3});
  // Two per byte, element 0 in the low nibble: -8 = 0x8, -8 = 0x8 -> 0x88; 7, 7 -> 0x77.
  CHECK(i4.data_as<uint8_t>()[0] == 0x88);
  CHECK(i4.data_as<uint8_t>()[1] == 0x77);
  Tensor u2 =
      OneNode("QuantizeLinear", 21, {f32({5}, {-1, 3.5f, 1.5f, 2, 0.4f}), f32({}, {1}), nullptr})
          .i("output_dtype", 25)
          .run1();
  CHECK(as_doubles(u2) == std::vector<double>{0, 3, 2, 2, 0});
  // Round trip through DequantizeLinear with a packed zero point per axis.
  auto zp = std::make_shared<Tensor>(DType::Int4, Dims{2});
  zp->data_as<uint8_t>()[0] = 0xE1; // [1, -2]
  Tensor q = OneNode("QuantizeLinear", 21, {f32({2, 2}, {3, -9, 4, 20}), f32({2}, {1, 2}), zp})
                 .i("axis", 0)
                 .run1();
  CHECK(as_doubles(q) == std::vector<double>{4, -8, 0, 7});
  Tensor d = OneNode("DequantizeLinear", 21, {std::make_shared<Tensor>(q), f32({2}, {1, 2}), zp})
                 .i("axis", 0)
                 .run1();
  CHECK(values<float>(d) == std::vector<float>{3, -9, 4, 18});
}

TEST_CASE("QuantizeLinear to float8: nearest even, saturate on and off", "[ops][quant]") {
  const float tiny = std::ldexp(1.0f, -10); // half of e4m3fn's smallest subnormal 2^-9
  auto x = f32({8}, {448, 464, 500, -1e9f, tiny, 3 * tiny, 0.3f, kNaN});
  Tensor sat =
      OneNode("QuantizeLinear", 21, {x, f32({}, {1}), nullptr}).i("output_dtype", 17).run1();
  REQUIRE(sat.dtype() == DType::Float8E4M3FN);
  std::vector<double> v = as_doubles(sat);
  // 464 lies halfway between 448 (even mantissa) and 480 (NaN); 0.3 -> 0.3125 (0.3 is nearer
  // 0.3125 = 1.25 * 2^-2 than 0.28125).
  std::vector<double> want{448, 448, 448, -448, 0, std::ldexp(1.0, -8), 0.3125};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(v[i] == want[i]);
  }
  CHECK(std::isnan(v[7]));
  Tensor nosat = OneNode("QuantizeLinear", 21, {x, f32({}, {1}), nullptr})
                     .i("output_dtype", 17)
                     .i("saturate", 0)
                     .run1();
  CHECK(std::isnan(as_doubles(nosat)[2]));
  Tensor e5 = OneNode("QuantizeLinear", 21, {f32({2}, {1e6f, 57344}), f32({}, {1}), nullptr})
                  .i("output_dtype", 19)
                  .i("saturate", 0)
                  .run1();
  CHECK(as_doubles(e5) == std::vector<double>{INFINITY, 57344});
}

TEST_CASE("QuantizeLinear / DequantizeLinear per axis and blocked", "[ops][quant]") {
  // x [2, 4], axis 1 blocked by 2: scales [2, 2].
  auto x = f32({2, 4}, {1, 2, 3, 4, -1, -2, -3, -4});
  auto sc = f32({2, 2}, {1, 2, 0.5f, 4});
  auto zp = i8({2, 2}, {0, 1, -1, 2});
  Tensor q = OneNode("QuantizeLinear", 21, {x, sc, zp}).i("axis", 1).i("block_size", 2).run1();
  // row 0: 1/1, 2/1, 3/2=1.5->2 +1, 4/2 +1; row 1: -1/0.5-1, -2/0.5-1, -3/4=-0.75->-1 +2, -1+2
  CHECK(values<int8_t>(q) == std::vector<int8_t>{1, 2, 3, 3, -3, -5, 1, 1});
  Tensor d = OneNode("DequantizeLinear", 21, {std::make_shared<Tensor>(q), sc, zp})
                 .i("axis", 1)
                 .i("block_size", 2)
                 .run1();
  CHECK(values<float>(d) == std::vector<float>{1, 2, 4, 4, -1, -2, -4, -4});
  // Per axis 0 (one scale per row) with int32 input, as a bias is dequantised.
  Tensor d32 = OneNode("DequantizeLinear", 13,
                       {i32({2, 2}, {100000, -7, 3, 4}), f32({2}, {0.5f, 2}), i32({2}, {0, 4})})
                   .i("axis", 0)
                   .run1();
  CHECK(values<float>(d32) == std::vector<float>{50000, -3.5f, -2, 0});
}

TEST_CASE("DynamicQuantizeLinear: range always includes 0", "[ops][quant]") {
  auto run = [](std::vector<float> x) {
    return OneNode("DynamicQuantizeLinear", 11, {f32({(int64_t)x.size()}, x)}, 3).run();
  };
  std::vector<Tensor> pos = run({1, 2, 3});
  CHECK(values<float>(pos[1])[0] == 3.0f / 255.0f);
  CHECK(values<uint8_t>(pos[2])[0] == 0);
  CHECK(values<uint8_t>(pos[0]) == std::vector<uint8_t>{85, 170, 255});
  std::vector<Tensor> neg = run({-2, -0.5f}); // -0.5 / (2/255) = -63.75 -> -64, + 255
  CHECK(values<uint8_t>(neg[2])[0] == 255);
  CHECK(values<uint8_t>(neg[0]) == std::vector<uint8_t>{0, 191});
  std::vector<Tensor> zero = run({0, 0});
  CHECK(values<float>(zero[1])[0] == 1.0f);
  CHECK(values<uint8_t>(zero[0]) == std::vector<uint8_t>{0, 0});
}

TEST_CASE("MatMulInteger with per-row / per-column zero points against a naive loop",
          "[ops][quant]") {
  // N = 300 and K = 70 cross the kernel's 256-column blocks; batch broadcast of A.
  const int64_t M = 5, K = 70, N = 300;
  auto a = random_ints<uint8_t>(DType::Uint8, {2, M, K}, 0, 255, 1);
  auto b = random_ints<int8_t>(DType::Int8, {K, N}, -128, 127, 2);
  auto za = random_ints<uint8_t>(DType::Uint8, {M}, 0, 255, 3);
  auto zb = random_ints<int8_t>(DType::Int8, {N}, -128, 127, 4);
  Tensor y = OneNode("MatMulInteger", 10, {a, b, za, zb}).run1();
  REQUIRE(y.dtype() == DType::Int32);
  REQUIRE(y.shape() == Dims{2, M, N});
  for (int64_t bt = 0; bt < 2; ++bt)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int32_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += (a->data_as<uint8_t>()[(bt * M + i) * K + k] - za->data_as<uint8_t>()[i]) *
                 (b->data_as<int8_t>()[k * N + j] - zb->data_as<int8_t>()[j]);
        REQUIRE(y.data_as<int32_t>()[(bt * M + i) * N + j] == acc);
      }
}

TEST_CASE("QLinearMatMul requantises with ties to even and saturation", "[ops][quant]") {
  // acc = (a - 1) * (b - 0) = [1, 5, 100]; times the multiplier, rounded, plus y's zero point.
  auto a = u8({1, 1}, {2});
  auto b = i8({1, 3}, {1, 5, 100});
  auto run = [&](float ys, int8_t yzp) {
    return OneNode("QLinearMatMul", 10,
                   {a, f32({}, {0.5f}), u8({}, {1}), b, f32({}, {2}), i8({}, {0}), f32({}, {ys}),
                    i8({}, {yzp})})
        .run1();
  };
  // a_scale * b_scale / y_scale = 0.5 * 2 / 2 = 0.5: 0.5, 2.5, 50 -> 0, 2, 50; 150 saturates.
  CHECK(values<int8_t>(run(2, 100)) == std::vector<int8_t>{100, 102, 127});
  CHECK(values<int8_t>(run(2, -100)) == std::vector<int8_t>{-100, -98, -50});
  // 0.25: 0.25, 1.25, 25 -> 0, 1, 25; zp -128 -> -128, -127, -103
  CHECK(values<int8_t>(run(4, -128)) == std::vector<int8_t>{-128, -127, -103});
}

TEST_CASE("com.microsoft QGemm: transB, per-column scale, bias, alpha", "[ops][quant]") {
  const int64_t M = 3, K = 5, N = 4;
  auto a = random_ints<uint8_t>(DType::Uint8, {M, K}, 0, 255, 11);
  auto b = random_ints<int8_t>(DType::Int8, {N, K}, -128, 127, 12); // transB: N x K
  auto bs = f32({N}, {0.01f, 0.02f, 0.005f, 0.04f});
  auto bias = i32({N}, {100, -300, 7, 0});
  Tensor y = OneNode("QGemm", 1,
                     {a, f32({}, {0.05f}), u8({}, {128}), b, bs, i8({N}, {1, -2, 0, 3}), bias,
                      f32({}, {0.5f}), i8({}, {-3})},
                     1, "com.microsoft")
                 .i("transB", 1)
                 .f("alpha", 0.5f)
                 .run1();
  REQUIRE(y.dtype() == DType::Int8);
  const int8_t zb[N] = {1, -2, 0, 3};
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int32_t acc = bias->data_as<int32_t>()[j];
      for (int64_t k = 0; k < K; ++k)
        acc += (a->data_as<uint8_t>()[i * K + k] - 128) * (b->data_as<int8_t>()[j * K + k] - zb[j]);
      const float m = 0.05f * 0.5f * bs->data_as<float>()[j] / 0.5f;
      const float v = std::min(127.0f, std::max(-128.0f, std::nearbyint(acc * m) - 3));
      INFO("row " << i << " column " << j);
      REQUIRE(y.data_as<int8_t>()[i * N + j] == static_cast<int8_t>(v));
    }
}

namespace {
/// Naive 2-D convolution with zero points (x per tensor, w per channel), int32 result.
std::vector<int32_t> naive_conv(const Tensor &x, const Tensor &w, int xz, const Tensor &wz,
                                int64_t group, Dims pads, Dims strides, Dims dil, const Dims &out) {
  const Dims &xs = x.shape(), &ws = w.shape();
  const int64_t C = xs[1], H = xs[2], W = xs[3], M = ws[0], kh = ws[2], kw = ws[3];
  const int64_t Cg = C / group, Mg = M / group;
  std::vector<int32_t> y;
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < out[2]; ++oh)
        for (int64_t ow = 0; ow < out[3]; ++ow) {
          int32_t acc = 0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t r = 0; r < kh; ++r)
              for (int64_t s = 0; s < kw; ++s) {
                int64_t ih = oh * strides[0] - pads[0] + r * dil[0];
                int64_t iw = ow * strides[1] - pads[1] + s * dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                int64_t ci = (m / Mg) * Cg + c;
                int xv = x.data_as<uint8_t>()[((n * C + ci) * H + ih) * W + iw] - xz;
                int wv =
                    w.data_as<int8_t>()[((m * Cg + c) * kh + r) * kw + s] - wz.data_as<int8_t>()[m];
                acc += xv * wv;
              }
          y.push_back(acc);
        }
  return y;
}
} // namespace

TEST_CASE("ConvInteger and QLinearConv: groups, strides, pads, dilations, per channel",
          "[ops][quant]") {
  auto x = random_ints<uint8_t>(DType::Uint8, {2, 4, 9, 8}, 0, 255, 5);
  auto w = random_ints<int8_t>(DType::Int8, {6, 2, 3, 2}, -128, 127, 6);
  auto wz = random_ints<int8_t>(DType::Int8, {6}, -5, 5, 7);
  const Dims pads{1, 2, 0, 1}, strides{2, 1}, dil{1, 2};
  OneNode ci("ConvInteger", 10, {x, w, u8({}, {7}), wz});
  ci.i("group", 2).ints("pads", pads).ints("strides", strides).ints("dilations", dil);
  Tensor y = ci.run1();
  REQUIRE(y.dtype() == DType::Int32);
  REQUIRE(y.shape() == Dims{2, 6, 4, 9});
  std::vector<int32_t> want = naive_conv(*x, *w, 7, *wz, 2, pads, strides, dil, y.shape());
  CHECK(values<int32_t>(y) == want);

  // QLinearConv on the same geometry: y = saturate(rint((acc + bias) * xs * ws[m] / ys) + yz).
  auto ws = f32({6}, {0.01f, 0.02f, 0.005f, 0.03f, 0.01f, 0.002f});
  auto bias = i32({6}, {100, -200, 0, 5000, -5000, 7});
  OneNode ql("QLinearConv", 10,
             {x, f32({}, {0.1f}), u8({}, {7}), w, ws, wz, f32({}, {2.0f}), u8({}, {128}), bias});
  ql.i("group", 2).ints("pads", pads).ints("strides", strides).ints("dilations", dil);
  Tensor q = ql.run1();
  REQUIRE(q.dtype() == DType::Uint8);
  const int64_t plane = 4 * 9;
  for (size_t i = 0; i < want.size(); ++i) {
    const int64_t m = static_cast<int64_t>(i) / plane % 6;
    const float mult = 0.1f * ws->data_as<float>()[m] / 2.0f;
    float v = std::nearbyint(static_cast<float>(want[i] + bias->data_as<int32_t>()[m]) * mult);
    v = std::min(255.0f, std::max(0.0f, v + 128));
    INFO("element " << i);
    REQUIRE(q.data_as<uint8_t>()[i] == static_cast<uint8_t>(v));
  }
}

TEST_CASE("Quantisation errors name the node and the reason", "[ops][quant]") {
  auto x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  OneNode e8m0("QuantizeLinear", 21, {x, f32({}, {1}), nullptr});
  e8m0.i("output_dtype", 24);
  REQUIRE_THROWS_WITH(e8m0.infer(), Contains("output element type float8e8m0 is not supported"));
  OneNode axis("QuantizeLinear", 13, {x, f32({2}, {1, 2}), u8({2}, {0, 0})});
  REQUIRE_THROWS_WITH(axis.infer(), Contains("per-axis scale must be 1-D with 3 elements"));
  OneNode block("QuantizeLinear", 21, {x, f32({2, 1}, {1, 2}), nullptr});
  block.i("axis", 1).i("block_size", 2);
  REQUIRE_THROWS_WITH(block.infer(), Contains("blocked scale must have shape 2x2"));
  OneNode zp("QuantizeLinear", 13, {x, f32({3}, {1, 2, 3}), u8({2}, {0, 0})});
  REQUIRE_THROWS_WITH(zp.infer(), Contains("zero point shape"));
  OneNode mm("MatMulInteger", 10,
             {u8({2, 3}, {1, 2, 3, 4, 5, 6}), u8({3, 1}, {1, 2, 3}), u8({3}, {1, 2, 3})});
  REQUIRE_THROWS_WITH(mm.infer(),
                      Contains("A's zero point (per tensor or per row) must have 1 or 2"));
}
