#include "compiler/ir/sym.h"
#include "compiler/ir/error.h"

#include <algorithm>

namespace onnxc {

/// A factor of a monomial: a symbol, or an operation the polynomial form cannot express.
struct SymAtom {
  enum class Kind { Symbol, FloorDiv, Mod, Min, Max };
  Kind kind = Kind::Symbol;
  std::string name; ///< Symbol
  SymInt a, b;      ///< operands of the others
  std::string key;  ///< canonical identity (also the sort order within a monomial)

  static std::shared_ptr<const SymAtom> make(Kind k, std::string name, SymInt a, SymInt b) {
    auto at = std::make_shared<SymAtom>();
    at->kind = k;
    at->name = std::move(name);
    at->a = std::move(a);
    at->b = std::move(b);
    static const char *tags[] = {"", "fdiv", "mod", "min", "max"};
    at->key = k == Kind::Symbol ? at->name
                                : fmt::format("{}({},{})", tags[static_cast<int>(k)],
                                              at->a.str(), at->b.str());
    return at;
  }
};

namespace {

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail("symbolic dimension arithmetic overflows int64 ({} + {})", a, b);
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("symbolic dimension arithmetic overflows int64 ({} * {})", a, b);
  return r;
}

int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0)
    fail("division by zero in a dimension expression");
  if (b == -1)
    return checked_mul(a, -1);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Text of an operand: parenthesised unless it is one atom or a non-negative constant.
std::string operand(const SymInt &v) {
  std::string s = v.str();
  bool simple = s.find_first_of(" *") == std::string::npos && s[0] != '-';
  return simple ? s : "(" + s + ")";
}

std::string atom_text(const SymAtom &a) {
  switch (a.kind) {
  case SymAtom::Kind::Symbol:
    return a.name;
  case SymAtom::Kind::FloorDiv:
    return operand(a.a) + "/" + operand(a.b);
  case SymAtom::Kind::Mod:
    return operand(a.a) + " % " + operand(a.b);
  case SymAtom::Kind::Min:
    return "min(" + a.a.str() + ", " + a.b.str() + ")";
  case SymAtom::Kind::Max:
    return "max(" + a.a.str() + ", " + a.b.str() + ")";
  }
  return "?";
}

} // namespace

SymInt::SymInt(int64_t c) {
  if (c != 0)
    terms_[""] = Term{{}, c};
}

SymInt SymInt::of_atom(std::shared_ptr<const SymAtom> atom) {
  SymInt r;
  std::string key = atom->key;
  r.terms_[key] = Term{{std::move(atom)}, 1};
  return r;
}

SymInt SymInt::symbol(const std::string &name) {
  if (name.empty())
    fail("a symbolic dimension needs a name");
  return of_atom(SymAtom::make(SymAtom::Kind::Symbol, name, {}, {}));
}

void SymInt::add_term(const std::string &key, const Term &t) {
  auto it = terms_.find(key);
  if (it == terms_.end()) {
    if (t.coeff != 0)
      terms_[key] = t;
    return;
  }
  it->second.coeff = checked_add(it->second.coeff, t.coeff);
  if (it->second.coeff == 0)
    terms_.erase(it);
}

bool SymInt::is_const() const {
  return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

std::optional<int64_t> SymInt::as_const() const {
  if (!is_const())
    return std::nullopt;
  return terms_.empty() ? 0 : terms_.begin()->second.coeff;
}

bool SymInt::monotone() const {
  for (const auto &[key, t] : terms_) {
    if (!key.empty() && t.coeff < 0)
      return false;
    for (const auto &a : t.atoms) {
      bool ok = false;
      switch (a->kind) {
      case SymAtom::Kind::Symbol:
        ok = true;
        break;
      case SymAtom::Kind::FloorDiv:
        ok = a->a.monotone() && a->b.as_const() && *a->b.as_const() > 0;
        break;
      case SymAtom::Kind::Min:
      case SymAtom::Kind::Max:
        ok = a->a.monotone() && a->b.monotone();
        break;
      case SymAtom::Kind::Mod:
        break;
      }
      if (!ok)
        return false;
    }
  }
  return true;
}

bool SymInt::nonnegative() const {
  // Monotone, so its least value is at the least symbols: every run-time dim is at least 1.
  return monotone() && eval([](const std::string &) { return int64_t(1); }) >= 0;
}

std::set<std::string> SymInt::symbols() const {
  std::set<std::string> out;
  for (const auto &[key, t] : terms_)
    for (const auto &a : t.atoms) {
      if (a->kind == SymAtom::Kind::Symbol) {
        out.insert(a->name);
        continue;
      }
      for (const SymInt *op : {&a->a, &a->b}) {
        auto s = op->symbols();
        out.insert(s.begin(), s.end());
      }
    }
  return out;
}

int64_t SymInt::eval(const std::function<int64_t(const std::string &)> &value_of) const {
  int64_t sum = 0;
  for (const auto &[key, t] : terms_) {
    int64_t prod = t.coeff;
    for (const auto &a : t.atoms) {
      int64_t v = 0;
      switch (a->kind) {
      case SymAtom::Kind::Symbol:
        v = value_of(a->name);
        break;
      case SymAtom::Kind::FloorDiv:
        v = floor_div(a->a.eval(value_of), a->b.eval(value_of));
        break;
      case SymAtom::Kind::Mod: {
        int64_t x = a->a.eval(value_of), y = a->b.eval(value_of);
        v = x - checked_mul(y, floor_div(x, y));
        break;
      }
      case SymAtom::Kind::Min:
        v = std::min(a->a.eval(value_of), a->b.eval(value_of));
        break;
      case SymAtom::Kind::Max:
        v = std::max(a->a.eval(value_of), a->b.eval(value_of));
        break;
      }
      prod = checked_mul(prod, v);
    }
    sum = checked_add(sum, prod);
  }
  return sum;
}

std::string SymInt::str() const {
  if (terms_.empty())
    return "0";
  std::string s;
  auto append = [&](const Term &t) {
    int64_t c = t.coeff;
    bool neg = c < 0;
    if (s.empty())
      s = neg ? "-" : "";
    else
      s += neg ? " - " : " + ";
    uint64_t mag = neg ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
    std::string body = mag == 1 && !t.atoms.empty() ? "" : std::to_string(mag);
    for (const auto &a : t.atoms) {
      std::string at = atom_text(*a);
      bool compound = a->kind == SymAtom::Kind::FloorDiv || a->kind == SymAtom::Kind::Mod;
      if (compound && (t.atoms.size() > 1 || mag != 1 || neg))
        at = "(" + at + ")"; // 2*(h/3), not 2*h/3
      body += (body.empty() ? "" : "*") + at;
    }
    s += body;
  };
  for (const auto &[key, t] : terms_)
    if (!key.empty())
      append(t);
  if (auto it = terms_.find(""); it != terms_.end())
    append(it->second);
  return s;
}

bool SymInt::operator==(const SymInt &o) const {
  if (terms_.size() != o.terms_.size())
    return false;
  for (auto i = terms_.begin(), j = o.terms_.begin(); i != terms_.end(); ++i, ++j)
    if (i->first != j->first || i->second.coeff != j->second.coeff)
      return false;
  return true;
}

SymInt operator+(const SymInt &a, const SymInt &b) {
  SymInt r = a;
  for (const auto &[key, t] : b.terms_)
    r.add_term(key, t);
  return r;
}

SymInt operator-(const SymInt &a) {
  SymInt r;
  for (const auto &[key, t] : a.terms_)
    r.terms_[key] = SymInt::Term{t.atoms, checked_mul(t.coeff, -1)};
  return r;
}

SymInt operator-(const SymInt &a, const SymInt &b) { return a + (-b); }

SymInt operator*(const SymInt &a, const SymInt &b) {
  SymInt r;
  for (const auto &[ka, ta] : a.terms_)
    for (const auto &[kb, tb] : b.terms_) {
      SymInt::Term t{ta.atoms, checked_mul(ta.coeff, tb.coeff)};
      t.atoms.insert(t.atoms.end(), tb.atoms.begin(), tb.atoms.end());
      std::sort(t.atoms.begin(), t.atoms.end(),
                [](const auto &x, const auto &y) { return x->key < y->key; });
      std::string key;
      for (const auto &at : t.atoms)
        key += (key.empty() ? "" : "*") + at->key;
      r.add_term(key, t);
    }
  return r;
}

SymInt SymInt::floordiv(const SymInt &a, const SymInt &b) {
  auto bc = b.as_const();
  if (bc && *bc == 0)
    fail("division by zero in a dimension expression ({} / 0)", a.str());
  if (auto ac = a.as_const(); ac && bc)
    return floor_div(*ac, *bc);
  if (bc && *bc < 0)
    return floordiv(-a, -b);
  if (bc) {
    // floor((bc*q + c) / bc) = q + floor(c / bc) when bc divides every non-constant coefficient.
    bool exact = true;
    for (const auto &[key, t] : a.terms_)
      exact = exact && (key.empty() || t.coeff % *bc == 0);
    if (exact) {
      SymInt r;
      for (const auto &[key, t] : a.terms_)
        r.add_term(key, Term{t.atoms, key.empty() ? floor_div(t.coeff, *bc) : t.coeff / *bc});
      return r;
    }
  }
  return of_atom(SymAtom::make(SymAtom::Kind::FloorDiv, "", a, b));
}

std::optional<SymInt> SymInt::exact_div(const SymInt &a, const SymInt &b) {
  if (b.terms_.size() != 1)
    return std::nullopt;
  const Term &d = b.terms_.begin()->second;
  SymInt q;
  for (const auto &[key, t] : a.terms_) {
    if (t.coeff % d.coeff != 0)
      return std::nullopt;
    std::vector<std::shared_ptr<const SymAtom>> rest = t.atoms;
    for (const auto &at : d.atoms) {
      auto it = std::find_if(rest.begin(), rest.end(),
                             [&](const auto &x) { return x->key == at->key; });
      if (it == rest.end())
        return std::nullopt;
      rest.erase(it);
    }
    std::string k;
    for (const auto &at : rest)
      k += (k.empty() ? "" : "*") + at->key;
    q.add_term(k, Term{rest, t.coeff / d.coeff});
  }
  return q;
}

SymInt SymInt::ceildiv(const SymInt &a, const SymInt &b) {
  if (auto bc = b.as_const(); bc && *bc > 0)
    return floordiv(a + (*bc - 1), b); // reads as (h + 3)/4
  return -floordiv(-a, b);
}

SymInt SymInt::mod(const SymInt &a, const SymInt &b) {
  SymInt q = floordiv(a, b);
  for (const auto &[key, t] : q.terms_)
    for (const auto &at : t.atoms)
      if (at->kind == SymAtom::Kind::FloorDiv)
        return of_atom(SymAtom::make(SymAtom::Kind::Mod, "", a, b));
  return a - b * q;
}

SymInt SymInt::min_max(const SymInt &a, const SymInt &b, bool is_max) {
  if ((b - a).nonnegative()) // a <= b for every value of the symbols (constants included)
    return is_max ? b : a;
  if ((a - b).nonnegative())
    return is_max ? a : b;
  bool swap = b.str() < a.str(); // canonical operand order
  return of_atom(SymAtom::make(is_max ? SymAtom::Kind::Max : SymAtom::Kind::Min, "",
                               swap ? b : a, swap ? a : b));
}

SymInt SymInt::min(const SymInt &a, const SymInt &b) { return min_max(a, b, false); }

SymInt SymInt::max(const SymInt &a, const SymInt &b) { return min_max(a, b, true); }

std::string shape_dim_text(const std::string &dim) {
  bool plain = std::all_of(dim.begin(), dim.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  });
  return plain ? dim : "(" + dim + ")";
}

std::string sym_dims_to_string(const std::vector<SymInt> &dims) {
  if (dims.empty())
    return "scalar";
  std::string s;
  for (const SymInt &d : dims)
    s += (s.empty() ? "" : "x") + shape_dim_text(d.str());
  return s;
}

SymInt sym_product(const std::vector<SymInt> &dims) {
  SymInt p = 1;
  for (const SymInt &d : dims)
    p = p * d;
  return p;
}

} // namespace onnxc
