// Symbolic integers: the dims of run-time shapes ("batch", "seq*4", "(h - 3)/2 + 1").
//
// A SymInt is a polynomial with int64 coefficients over atoms, kept in a canonical form so that
// equal expressions compare equal however they were built (seq*4 == 4*seq, 2*(a + b) == 2*a +
// 2*b). An atom is a named symbol or an operation the polynomial form cannot express: floor
// division, modulo, min or max of non-constant operands. Constants fold as they are built; floor
// division by a constant that divides every non-constant coefficient is exact and folds too
// ((2*h + 3)/2 == h + 1). Arithmetic that overflows int64 throws Error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace onnxc {

struct SymAtom;

class SymInt {
public:
  SymInt(int64_t c = 0); // NOLINT(google-explicit-constructor): constants convert implicitly
  /// The named symbol `name` (a C identifier in practice: "batch", "seq").
  static SymInt symbol(const std::string &name);

  bool is_const() const;
  /// The constant value, or nullopt if the expression has symbols.
  std::optional<int64_t> as_const() const;
  /// True when the expression is >= 0 for every value of its symbols, which are run-time dims
  /// and so at least 1 (SymRange::lo >= 1): it is monotone and >= 0 with every symbol at 1.
  bool nonnegative() const;
  /// True when the expression never decreases as a symbol grows: non-negative coefficients over
  /// symbols, floor divisions by positive constants, mins and maxes of such (not mod).
  bool monotone() const;
  /// Names of the symbols the expression depends on.
  std::set<std::string> symbols() const;
  /// The value with every symbol given by `value_of`; throws Error on overflow or division by 0.
  int64_t eval(const std::function<int64_t(const std::string &)> &value_of) const;
  /// Canonical text: "batch", "4*seq", "(h - 3)/2 + 1", "max(a, b)".
  std::string str() const;

  bool operator==(const SymInt &o) const;
  bool operator!=(const SymInt &o) const { return !(*this == o); }

  friend SymInt operator+(const SymInt &a, const SymInt &b);
  friend SymInt operator-(const SymInt &a, const SymInt &b);
  friend SymInt operator*(const SymInt &a, const SymInt &b);
  friend SymInt operator-(const SymInt &a);
  /// floor(a / b); b must not be the constant 0.
  static SymInt floordiv(const SymInt &a, const SymInt &b);
  /// ceil(a / b) for b > 0.
  static SymInt ceildiv(const SymInt &a, const SymInt &b);
  /// a - b*floor(a/b) (the sign of b, as Python's %).
  static SymInt mod(const SymInt &a, const SymInt &b);
  static SymInt min(const SymInt &a, const SymInt &b);
  /// a / b when b divides a as polynomials: b a non-zero constant or a single term whose
  /// atoms every term of a contains, with coefficients that divide. nullopt otherwise.
  static std::optional<SymInt> exact_div(const SymInt &a, const SymInt &b);
  static SymInt max(const SymInt &a, const SymInt &b);

private:
  /// A product of atoms (sorted by key) times a coefficient.
  struct Term {
    std::vector<std::shared_ptr<const SymAtom>> atoms;
    int64_t coeff = 0;
  };
  /// Monomial key ("" for the constant term) -> term; no zero coefficients.
  std::map<std::string, Term> terms_;

  static SymInt of_atom(std::shared_ptr<const SymAtom> atom);
  /// max(a, b) or min(a, b): the operand provably not smaller (not larger), else an atom.
  static SymInt min_max(const SymInt &a, const SymInt &b, bool is_max);
  void add_term(const std::string &key, const Term &t);
  friend struct SymAtom;
};

/// A dim's text as a shape shows it: names and numbers as they are, expressions parenthesised
/// ("batchx(4*seq)x768").
std::string shape_dim_text(const std::string &dim);
/// "batchx(4*seq)x768", "scalar" for rank 0.
std::string sym_dims_to_string(const std::vector<SymInt> &dims);
/// The product of dims (1 for none).
SymInt sym_product(const std::vector<SymInt> &dims);

} // namespace onnxc
