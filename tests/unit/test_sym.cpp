// SymInt: canonical forms, folding, printing and evaluation of symbolic dims.
#include "compiler/ir/error.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/sym.h"

#include <catch2/catch.hpp>

#include <map>

using namespace onnxc;

namespace {

int64_t eval_at(const SymInt &e, std::map<std::string, int64_t> vals) {
  return e.eval([&](const std::string &n) { return vals.at(n); });
}

} // namespace

TEST_CASE("SymInt: equal expressions built differently compare equal") {
  SymInt seq = SymInt::symbol("seq"), batch = SymInt::symbol("batch");
  CHECK(seq * 4 == SymInt(4) * seq);
  CHECK((batch + seq) * 2 == batch * 2 + seq * 2);
  CHECK(batch * seq == seq * batch);
  CHECK(seq - seq == SymInt(0));
  CHECK((seq - seq).is_const());
  CHECK(seq * 4 != seq * 3);
  CHECK(batch != seq);
  CHECK(!(seq + 1).is_const());
  CHECK((SymInt(3) * 5 + 2).as_const() == 17);
}

TEST_CASE("SymInt: floor division folds when exact, stays an atom otherwise") {
  SymInt h = SymInt::symbol("h");
  CHECK(SymInt::floordiv(h * 2 + 3, 2) == h + 1);
  CHECK(SymInt::floordiv(h * 4, 4) == h);
  CHECK(SymInt::floordiv(h, 1) == h);
  CHECK(SymInt::floordiv(-7, 2).as_const() == -4); // floor, as ONNX's shape arithmetic
  SymInt out = SymInt::floordiv(h - 3, 2) + 1;     // a Conv's output size
  CHECK(!out.is_const());
  CHECK(out.str() == "(h - 3)/2 + 1");
  for (int64_t v : {3, 4, 5, 224, 225})
    CHECK(eval_at(out, {{"h", v}}) == (v - 3) / 2 + 1);
  CHECK(SymInt::ceildiv(h, 4).str() == "(h + 3)/4");
  for (int64_t v : {1, 4, 5, 8, 9})
    CHECK(eval_at(SymInt::ceildiv(h, 4), {{"h", v}}) == (v + 3) / 4);
  CHECK_THROWS_AS(SymInt::floordiv(h, 0), Error);
}

TEST_CASE("SymInt: mod, min and max") {
  SymInt a = SymInt::symbol("a"), b = SymInt::symbol("b");
  CHECK(SymInt::mod(a * 6 + 5, 3).as_const() == 2);
  CHECK(eval_at(SymInt::mod(a, 3), {{"a", 7}}) == 1);
  CHECK(eval_at(SymInt::mod(a, 3), {{"a", -7}}) == 2); // Python's sign
  CHECK(SymInt::min(a, a + 1) == a);
  CHECK(SymInt::max(a, a + 1) == a + 1);
  CHECK(SymInt::max(a, b) == SymInt::max(b, a));
  CHECK(SymInt::max(a, b).str() == "max(a, b)");
  CHECK(eval_at(SymInt::min(a, b) * 2, {{"a", 3}, {"b", 9}}) == 6);
  // Symbols are run-time dims, at least 1: max(seq, 0) is seq, min(1, seq) is 1.
  CHECK(SymInt::max(a, 0) == a);
  CHECK(SymInt::min(a * 2 + 1, a) == a);
  CHECK(SymInt::min(1, a) == SymInt(1));
  CHECK(SymInt::max(a - 1, 0) == a - 1);
  CHECK(SymInt::min(SymInt::floordiv(a, 2), a).str() == "min(a, a/2)"); // a - a/2: not monotone
  CHECK((a - 1).nonnegative());
  CHECK(!(a - 2).nonnegative());
  CHECK(!(SymInt(0) - a).nonnegative());
  CHECK((a * b + SymInt::floordiv(a, 3)).nonnegative());
  CHECK(!SymInt::mod(a, 3).monotone());
}

TEST_CASE("SymInt: printing and symbols") {
  SymInt seq = SymInt::symbol("seq"), batch = SymInt::symbol("batch");
  CHECK((seq * 4).str() == "4*seq");
  CHECK((batch * seq * 768).str() == "768*batch*seq");
  CHECK((seq - 1).str() == "seq - 1");
  CHECK((-seq).str() == "-seq");
  CHECK((SymInt::floordiv(seq, 3) * 2).str() == "2*(seq/3)");
  CHECK(SymInt(0).str() == "0");
  CHECK((batch * seq + seq).symbols() == std::set<std::string>{"batch", "seq"});
  CHECK(sym_dims_to_string({batch, seq * 4, 768}) == "batchx(4*seq)x768" );
}

TEST_CASE("SymInt: overflow is an error, not a wrong dim") {
  SymInt big = SymInt::symbol("n") * (int64_t(1) << 40);
  CHECK_THROWS_AS(big * (int64_t(1) << 30), Error);
  CHECK_THROWS_AS(eval_at(big, {{"n", int64_t(1) << 30}}), Error);
}

TEST_CASE("Dim: static, symbolic and unknown dims") {
  CHECK(Dim(SymInt(5)).is_static());
  CHECK(Dim(SymInt(5)).value == 5);
  Dim b = Dim::symbolic("batch");
  CHECK(!b.is_static());
  CHECK(b.is_known());
  CHECK(b.param == "batch");
  CHECK(b.expr() == SymInt::symbol("batch"));
  Dim e(SymInt::symbol("seq") * 4);
  CHECK(e.param.empty());
  CHECK(e.str() == "4*seq");
  CHECK(!Dim().is_known());
  CHECK_THROWS_AS(Dim().expr(), Error);
  CHECK_THROWS_AS(Dim(SymInt(-1)), Error);
  Type t = Type::of_sym(DType::Float, {SymInt::symbol("batch"), SymInt::symbol("seq") * 4, 2});
  CHECK(shape_to_string(t) == "batchx(4*seq)x2");
  CHECK(t.is_known());
  CHECK(!t.is_static());
}
