// Chainable attribute setters shared by the unit tests' one-node graph builders.
#pragma once

#include "compiler/ir/ir.h"

#include <string>
#include <utility>
#include <vector>

namespace onnxc::test {

/// Mixin for a builder `Derived` with a member `Node *node`: b.i("axis", 1).ints("perm", {1, 0})
/// sets (or replaces) the node's attributes and returns the builder.
template <typename Derived> struct AttrSetters {
  Derived &ints(const char *name, std::vector<int64_t> v) {
    Attribute a;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(v);
    return set(name, std::move(a));
  }
  Derived &floats(const char *name, std::vector<float> v) {
    Attribute a;
    a.kind = Attribute::Kind::Floats;
    a.floats = std::move(v);
    return set(name, std::move(a));
  }
  Derived &i(const char *name, int64_t v) {
    Attribute a;
    a.kind = Attribute::Kind::Int;
    a.i = v;
    return set(name, std::move(a));
  }
  Derived &f(const char *name, float v) {
    Attribute a;
    a.kind = Attribute::Kind::Float;
    a.f = v;
    return set(name, std::move(a));
  }
  Derived &s(const char *name, std::string v) {
    Attribute a;
    a.kind = Attribute::Kind::String;
    a.s = std::move(v);
    return set(name, std::move(a));
  }

private:
  Derived &set(const char *name, Attribute a) {
    Derived &self = static_cast<Derived &>(*this);
    self.node->attrs[name] = std::move(a);
    return self;
  }
};

} // namespace onnxc::test
