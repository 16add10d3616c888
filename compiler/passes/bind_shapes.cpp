#include "compiler/passes/bind_shapes.h"
#include "compiler/ir/error.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include <fmt/ranges.h>

namespace onnxc {
namespace {

int64_t parse_int(const std::string &s, const std::string &flag) {
  int64_t v = -1;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0)
    fail("invalid dimension '{}' in '{}': expected a non-negative integer", s, flag);
  return v;
}

std::pair<std::string, std::string> split_eq(const std::string &flag, const char *what) {
  auto eq = flag.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size())
    fail("invalid {} '{}': expected {}", what, flag,
         std::string(what) == "--shape" ? "NAME=AxBxC (e.g. input=1x3x224x224)" : "PARAM=N");
  return {flag.substr(0, eq), flag.substr(eq + 1)};
}

} // namespace

void parse_shape_flag(const std::string &flag, ShapeBindings &b) {
  auto [name, dims] = split_eq(flag, "--shape");
  std::vector<int64_t> v;
  if (dims != "scalar") {
    size_t start = 0;
    for (;;) {
      size_t x = dims.find('x', start);
      v.push_back(parse_int(dims.substr(start, x - start), flag));
      if (x == std::string::npos)
        break;
      start = x + 1;
    }
  }
  b.input_shapes[name] = v;
}

void parse_dim_flag(const std::string &flag, ShapeBindings &b) {
  auto [name, value] = split_eq(flag, "--dim");
  auto dots = value.find("..");
  if (dots == std::string::npos) {
    b.dims[name] = parse_int(value, flag);
    return;
  }
  SymRange r{parse_int(value.substr(0, dots), flag), parse_int(value.substr(dots + 2), flag)};
  if (r.lo > r.hi)
    fail("invalid range in '{}': {} is greater than {}", flag, r.lo, r.hi);
  if (r.lo < 1 && r.lo != r.hi)
    fail("invalid range in '{}': a run-time dim is at least 1", flag);
  if (r.lo == r.hi)
    b.dims[name] = r.lo;
  else
    b.ranges[name] = r;
}

/// Turns graph input `name` into a constant holding `value`.
static void bind_input_value(Graph &g, const std::string &name, const TensorPtr &value) {
  auto it = std::find_if(g.inputs.begin(), g.inputs.end(),
                         [&](const Value *v) { return v->name == name; });
  if (it == g.inputs.end())
    fail("--const-input {}=...: the model has no input named '{}'", name, name);
  Value *v = *it;
  if (v->type.dtype != value->dtype())
    fail("--const-input {}: the model declares element type {}, the file holds {}", name,
         dtype_name(v->type.dtype), dtype_name(value->dtype()));
  if (v->type.shape && v->type.shape->size() != value->shape().size())
    fail("--const-input {}: the model declares rank {}, the file holds rank {}", name,
         v->type.shape->size(), value->shape().size());
  v->constant = value;
  v->type = Type::of(value->dtype(), value->shape());
  v->is_graph_input = false;
  g.inputs.erase(it);
  g.initializers.push_back(v);
}

void check_input_kinds(const Graph &g) {
  for (const Value *v : g.inputs)
    if (v->type.dtype == DType::Undefined && v->type.kind == TypeKind::Tensor)
      fail("graph input '{}' is not a tensor, sequence or optional (map inputs are not "
           "supported)",
           v->name);
}

/// Binds dim k of graph input v from the flags, or keeps it symbolic (b.keep_symbolic).
static void bind_dim(Graph &g, const ShapeBindings &b, Value &v, size_t k) {
  Dim &d = (*v.type.shape)[k];
  if (d.is_static())
    return;
  auto it = d.param.empty() ? b.dims.end() : b.dims.find(d.param);
  if (it != b.dims.end()) {
    d = Dim(it->second);
    return;
  }
  if (b.keep_symbolic) {
    std::string name = d.param;
    if (name.empty()) { // an unnamed dim is a symbol of its own
      name = fmt::format("{}_dim{}", v.name, k);
      for (char &c : name)
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    }
    auto r = b.ranges.find(name);
    g.symbols.emplace(name, r == b.ranges.end() ? SymRange{} : r->second);
    d = Dim::symbolic(name);
    return;
  }
  if (auto r = b.ranges.find(d.param); r != b.ranges.end())
    fail("--dim {}={}..{}: compiled libraries take static dims only for now (run-time dims "
         "are shown by 'onnxc inspect --ir'); bind it with --dim {}=N",
         d.param, r->second.lo, r->second.hi, d.param);
  if (!d.param.empty())
    fail("graph input '{}' has the symbolic dimension '{}' ({}); bind it with --dim {}=N "
         "or give the whole shape with --shape {}=...",
         v.name, d.param, shape_to_string(v.type), d.param, v.name);
  fail("graph input '{}' has an unnamed dynamic dimension ({}); pass --shape {}=AxBxC", v.name,
       shape_to_string(v.type), v.name);
}

/// A --dim for a name no input dim has is a typo that would leave the real dim at run time:
/// refused, listing the names there are (ignored for a model without symbolic input dims).
static void check_dim_flags(const Graph &g, const ShapeBindings &b) {
  std::set<std::string> params;
  for (const Value *v : g.inputs)
    if (v->type.shape)
      for (const Dim &d : *v->type.shape)
        if (!d.param.empty())
          params.insert(d.param);
  if (params.empty())
    return;
  auto check = [&](const std::string &name) {
    if (!params.count(name))
      fail("--dim {}=...: the model has no input dim named '{}' (its named dims: {})", name, name,
           fmt::format("{}", fmt::join(params, ", ")));
  };
  for (const auto &[name, value] : b.dims)
    check(name);
  for (const auto &[name, range] : b.ranges)
    check(name);
}

void bind_input_shapes(Graph &g, const ShapeBindings &b) {
  for (const auto &[name, value] : b.input_values)
    bind_input_value(g, name, value);
  for (const auto &[name, dims] : b.input_shapes) {
    Value *v = g.find_value(name);
    if (!v || !v->is_graph_input) {
      std::string names;
      for (Value *in : g.inputs)
        names += (names.empty() ? "" : ", ") + in->name;
      fail("--shape {}=...: the model has no input named '{}' (inputs: {})", name, name, names);
    }
    if (v->type.shape && v->type.shape->size() != dims.size())
      fail("--shape {}={}: the model declares '{}' with rank {}, not {}", name,
           dims_to_string(dims), name, v->type.shape->size(), dims.size());
    if (v->type.shape)
      for (size_t k = 0; k < dims.size(); ++k) {
        const Dim &d = (*v->type.shape)[k];
        if (d.is_static() && d.value != dims[k])
          fail("--shape {}={}: dimension {} of '{}' is fixed to {} by the model", name,
               dims_to_string(dims), k, name, d.value);
      }
    v->type.shape.emplace(dims.begin(), dims.end());
  }
  check_input_kinds(g);
  check_dim_flags(g, b);
  for (Value *v : g.inputs) {
    if (!v->type.shape)
      fail("graph input '{}' has no shape in the model; pass --shape {}=AxBxC", v->name, v->name);
    for (size_t k = 0; k < v->type.shape->size(); ++k)
      bind_dim(g, b, *v, k);
  }
}

} // namespace onnxc
