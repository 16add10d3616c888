// Cast and CastLike: each test builds one node by hand, runs its shape rule and the reference
// evaluator (the natively compiled kernel), and checks the exact codes the ONNX reference
// (ml_dtypes) gives: rounding, saturation, NaN/infinity per float8 variant, packed sub-byte types.
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/one_node.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace onnxc;
using test::f32;
using test::i64;
using test::make;
using test::OneNode;
using test::values;
using Catch::Matchers::Contains;

namespace {


using F = std::vector<float>;

} // namespace

TEST_CASE("Cast between float, integer, bool, float16 and bfloat16", "[ops][cast]") {
  OneNode a("Cast", 13, {f32({5}, {1.9f, -1.9f, 0.0f, NAN, 3e9f})});
  a.i("to", static_cast<int64_t>(DType::Int32));
  CHECK(values<int32_t>(a.run1())[0] == 1);
  CHECK(values<int32_t>(a.run1())[1] == -1);
  CHECK(values<int32_t>(a.run1())[3] == 0);

  OneNode b("Cast", 13, {f32({4}, {0.0f, -0.5f, NAN, 2.0f})});
  b.i("to", static_cast<int64_t>(DType::Bool));
  CHECK(values<uint8_t>(b.run1()) == std::vector<uint8_t>{0, 1, 1, 1});

  OneNode h("Cast", 13, {f32({5}, {1.0f, -2.5f, 65504.0f, 1e-7f, 1e6f})});
  h.i("to", static_cast<int64_t>(DType::Float16));
  CHECK(values<uint16_t>(h.run1()) ==
        std::vector<uint16_t>{0x3c00, 0xc100, 0x7bff, 0x0002, 0x7c00});
  OneNode back("Cast", 13, {make<uint16_t>(DType::Float16, {3}, {0x3c00, 0x0001, 0xfc00})});
  back.i("to", static_cast<int64_t>(DType::Float));
  std::vector<float> f = values<float>(back.run1());
  CHECK(f[0] == 1.0f);
  CHECK(f[1] == std::ldexp(1.0f, -24));
  CHECK(std::isinf(f[2]));

  OneNode bf("Cast", 13, {f32({2}, {1.0f, 3.14159f})});
  bf.i("to", static_cast<int64_t>(DType::BFloat16));
  CHECK(values<uint16_t>(bf.run1()) == std::vector<uint16_t>{0x3f80, 0x4049});

  OneNode c("Cast", 13, {i64({3}, {-1, 300, 7})});
  c.i("to", static_cast<int64_t>(DType::Uint8));
  CHECK(values<uint8_t>(c.run1()) == std::vector<uint8_t>{255, 44, 7});

  OneNode like("CastLike", 15, {i64({2}, {1, -2}), f32({}, {0})});
  CHECK(values<float>(like.run1()) == F{1, -2});

  OneNode cplx("Cast", 24, {f32({1}, {1})});
  cplx.i("to", static_cast<int64_t>(DType::Complex64));
  CHECK_THROWS_WITH(cplx.infer(), Contains("cannot cast to element type complex64"));
}

namespace {
/// The first n bytes of t's storage (packed types: several elements per byte).
std::vector<uint8_t> bytes(const Tensor &t, size_t n) {
  return std::vector<uint8_t>(t.data_as<uint8_t>(), t.data_as<uint8_t>() + n);
}
/// A tensor of a packed sub-byte type from its storage bytes.
TensorPtr packed(DType dt, std::vector<int64_t> dims, std::vector<uint8_t> storage) {
  auto t = std::make_shared<Tensor>(dt, std::move(dims));
  std::memcpy(t->data(), storage.data(), storage.size());
  return t;
}
} // namespace

TEST_CASE("Cast to and from float8 (incl. e8m0), float4e2m1, (u)int4, (u)int2", "[ops][cast]") {
  const F in{1.0f, 448.0f, 500.0f, 1e6f, -INFINITY, NAN, -1e-7f};
  auto to = [&](DType dt, int64_t saturate) {
    OneNode n("Cast", 19, {f32({7}, in)});
    n.i("to", static_cast<int64_t>(dt)).i("saturate", saturate);
    return bytes(n.run1(), 7);
  };
  // e4m3fn: max 448 (0x7e), NaN 0x7f; 500 rounds to 512, which overflows.
  using B = std::vector<uint8_t>;
  CHECK(to(DType::Float8E4M3FN, 1) == B{0x38, 0x7e, 0x7e, 0x7e, 0xfe, 0x7f, 0x80});
  std::vector<uint8_t> e4 = to(DType::Float8E4M3FN, 0);
  CHECK(B(e4.begin(), e4.begin() + 4) == B{0x38, 0x7e, 0x7f, 0x7f});
  CHECK((e4[4] & 0x7f) == 0x7f);
  // e5m2 keeps infinities without saturate; the fnuz variants have one NaN (0x80), no -0.
  CHECK(to(DType::Float8E5M2, 0) == B{0x3c, 0x5f, 0x60, 0x7c, 0xfc, 0x7f, 0x80});
  CHECK(to(DType::Float8E5M2FNUZ, 0) == B{0x40, 0x63, 0x64, 0x80, 0x80, 0x80, 0x00});
  CHECK(to(DType::Float8E5M2FNUZ, 1) == B{0x40, 0x63, 0x64, 0x7f, 0xff, 0x80, 0x00});

  // float4e2m1 always saturates; -3.5 is a tie that goes to the even -4; NaN gives -0.
  OneNode f4("Cast", 23, {f32({5}, {-3.5f, 0.25f, INFINITY, NAN, 1.0f})});
  f4.i("to", static_cast<int64_t>(DType::Float4E2M1));
  std::vector<uint8_t> f4b = bytes(f4.run1(), 3);
  CHECK(std::vector<uint8_t>{f4b[0], f4b[1]} == std::vector<uint8_t>{0x0e, 0x87});
  CHECK((f4b[2] & 0x0f) == 0x02);
  OneNode f4back("Cast", 23, {packed(DType::Float4E2M1, {2}, {0x9f})});
  f4back.i("to", static_cast<int64_t>(DType::Float));
  CHECK(values<float>(f4back.run1()) == F{-6.0f, -0.5f});

  // Integers wrap to the low bits (lowest element in the lowest bits); floats truncate first.
  OneNode i4("Cast", 21, {f32({3}, {-9.0f, 7.9f, 8.0f})});
  i4.i("to", static_cast<int64_t>(DType::Int4));
  std::vector<uint8_t> i4b = bytes(i4.run1(), 2);
  CHECK(i4b[0] == 0x77);
  CHECK((i4b[1] & 0x0f) == 0x08);
  OneNode u2("Cast", 25, {i64({4}, {-1, 2, 5, 4})});
  u2.i("to", static_cast<int64_t>(DType::Uint2));
  CHECK(bytes(u2.run1(), 1) == std::vector<uint8_t>{0x1b});
  OneNode i2back("Cast", 25, {packed(DType::Int2, {4}, {0x1b})});
  i2back.i("to", static_cast<int64_t>(DType::Int8));
  CHECK(values<int8_t>(i2back.run1()) == std::vector<int8_t>{-1, -2, 1, 0});

  // float8e8m0: 2^(code - 127); round_mode up (default), down, nearest; 0xff is NaN.
  auto e8m0 = [&](const char *mode) {
    OneNode n("Cast", 24, {f32({6}, {1.1f, 1.5f, 3.0f, 0.0f, INFINITY, 0.25f})});
    n.i("to", static_cast<int64_t>(DType::Float8E8M0));
    if (mode)
      n.s("round_mode", mode);
    return bytes(n.run1(), 6);
  };
  CHECK(e8m0(nullptr) == std::vector<uint8_t>{128, 128, 129, 0, 255, 125});
  CHECK(e8m0("down") == std::vector<uint8_t>{127, 127, 128, 0, 255, 125});
  CHECK(e8m0("nearest") == std::vector<uint8_t>{127, 128, 129, 0, 255, 125});
  OneNode e8back("Cast", 24, {packed(DType::Float8E8M0, {3}, {127, 0, 255})});
  e8back.i("to", static_cast<int64_t>(DType::Float));
  std::vector<float> e8f = values<float>(e8back.run1());
  CHECK(e8f[0] == 1.0f);
  CHECK(e8f[1] == std::ldexp(1.0f, -127));
  CHECK(std::isnan(e8f[2]));
  OneNode badmode("Cast", 24, {f32({1}, {1})});
  badmode.i("to", static_cast<int64_t>(DType::Float8E8M0)).s("round_mode", "odd");
  CHECK_THROWS_WITH(badmode.run1(), Contains("'round_mode' = 'odd' is not one of"));

  OneNode e5back("Cast", 19, {make<uint8_t>(DType::Float8E5M2, {4}, {0x7c, 0xfc, 0x7f, 0x3c})});
  e5back.i("to", static_cast<int64_t>(DType::Float16));
  CHECK(values<uint16_t>(e5back.run1())[0] == 0x7c00);
  CHECK(values<uint16_t>(e5back.run1())[1] == 0xfc00);
  CHECK((values<uint16_t>(e5back.run1())[2] & 0x7c00) == 0x7c00);
  CHECK(values<uint16_t>(e5back.run1())[3] == 0x3c00);
}
