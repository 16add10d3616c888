#include "compiler/passes/check_supported.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <limits>

namespace onnxc {
namespace {

/// A message if an attribute the op requires is missing, or one it declares has another type in
/// the model.
std::string wrong_attribute(const Node &n) {
  for (const AttrSpec &spec : n.def->attrs) {
    const Attribute *a = n.attr(spec.name);
    if (!a && spec.required)
      return fmt::format("has no attribute '{}', which {} requires; the model is malformed "
                         "(check it with onnx.checker)",
                         spec.name, n.op_type);
    if (!a || a->kind == spec.kind)
      continue;
    if (spec.kind == Attribute::Kind::Float && a->kind == Attribute::Kind::Int)
      continue; // integral floats written as ints are accepted
    return fmt::format("attribute '{}' must be of type {}, but the model gives {}; the model "
                       "is malformed (check it with onnx.checker)",
                       spec.name, attribute_kind_name(spec.kind), attribute_kind_name(a->kind));
  }
  return {};
}

/// A message if the node has fewer or more inputs or outputs than ONNX's schema of its op
/// allows (kernels take their operands by position: an extra input would be read as an
/// output), or gives '' (no value) for an input the op requires. The schemas are libonnx's
/// registry (opsets up to 17); at a newer opset the op's newest schema there says which inputs
/// are required (unless OpDef::optional_inputs_from says a newer one made it optional) and
/// OpDef::max_inputs / max_outputs bound the counts. Ops libonnx does not know get those bounds
/// only. The counts of nodes with subgraphs (If, Loop, Scan...) are not checked: the IR adds the
/// outer values their bodies read as inputs (compiler/ir/captured.h).
std::string wrong_arity(const Node &n) {
  bool has_subgraph = false;
  for (const auto &[name, a] : n.attrs)
    has_subgraph |= a.kind == Attribute::Kind::Graph || a.kind == Attribute::Kind::Graphs;
  const auto &known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto range = known.find(n.domain);
  const bool newer = range != known.end() && n.opset > range->second.second;
  const onnx::OpSchema *s =
      range == known.end()
          ? nullptr
          : onnx::OpSchemaRegistry::Schema(
                n.op_type, static_cast<int>(std::min<int64_t>(n.opset, range->second.second)),
                n.domain);
  if ((newer || !s) && !has_subgraph)
    for (auto [count, most, what] : {std::tuple{n.inputs.size(), n.def->max_inputs, "inputs"},
                                     std::tuple{n.outputs.size(), n.def->max_outputs, "outputs"}})
      if (count > most)
        return fmt::format("has {} {}, but {} takes at most {}; the model is malformed (check "
                           "it with onnx.checker)",
                           count, what, n.op_type, most);
  if (!s)
    return {};
  // Inputs the schema requires that this newer opset made optional.
  auto made_optional = [&](size_t i) {
    return std::any_of(n.def->optional_inputs_from.begin(), n.def->optional_inputs_from.end(),
                       [&](const auto &o) { return o.first == i && n.opset >= o.second; });
  };
  int min_inputs = s->min_input();
  for (int i = 0; i < min_inputs; ++i)
    if (made_optional(static_cast<size_t>(i)))
      min_inputs = i;
  auto out_of = [&](size_t count, int lo, int hi, const char *what) -> std::string {
    if (newer)
      hi = std::numeric_limits<int>::max(); // newer versions may take more (checked above)
    if (has_subgraph || (count >= static_cast<size_t>(lo) && count <= static_cast<size_t>(hi)))
      return {};
    std::string allowed = lo == hi                                ? std::to_string(lo)
                          : hi == std::numeric_limits<int>::max() ? fmt::format("at least {}", lo)
                                                                  : fmt::format("{} to {}", lo, hi);
    return fmt::format("has {} {}, but {} (opset {}) takes {}; the model is malformed (check "
                       "it with onnx.checker)",
                       count, what, n.op_type, n.opset, allowed);
  };
  std::string why = out_of(n.inputs.size(), min_inputs, s->max_input(), "inputs");
  if (!why.empty())
    return why;
  // An input the schema requires given as '': the count is right, but the op's rule would read
  // a value that is not there. ONNX's checker lets a variadic input (Concat's, Sum's) be '', but
  // no variadic operator gives that a meaning.
  const auto &formal = s->inputs();
  for (size_t i = 0; i < n.inputs.size() && !formal.empty(); ++i) {
    const auto &f = formal[std::min(i, formal.size() - 1)];
    if (n.inputs[i] || f.GetOption() == onnx::OpSchema::Optional ||
        (i >= formal.size() && f.GetOption() != onnx::OpSchema::Variadic) || made_optional(i))
      continue;
    if (f.GetOption() == onnx::OpSchema::Variadic)
      return fmt::format("has no value for input {} (one of the variadic '{}'), which {} "
                         "(opset {}) gives no meaning; give it a value",
                         i, f.GetName(), n.op_type, n.opset);
    return fmt::format("has no value for input {} ('{}'), which {} (opset {}) requires; the "
                       "model is malformed (check it with onnx.checker)",
                       i, f.GetName(), n.op_type, n.opset);
  }
  return out_of(n.outputs.size(), s->min_output(), s->max_output(), "outputs");
}

/// ai.onnx, ai.onnx.ml and ai.onnx.preview.* are standard ONNX domains; anything else is custom.
bool is_standard_domain(const std::string &d) {
  return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d.rfind("ai.onnx.preview", 0) == 0;
}

/// Why an operator that onnxc deliberately does not compile cannot be: ai.onnx.ml operators
/// that read maps, and ImageDecoder; empty for other operators.
std::string known_limit(const Node &n) {
  if (n.domain == "ai.onnx.ml" && (n.op_type == "DictVectorizer" || n.op_type == "CastMap"))
    return fmt::format("{} reads a map, and onnxc has no map types", n.op_type);
  if (is_standard_domain(n.domain) && n.domain.rfind("ai.onnx.preview", 0) != 0 &&
      n.op_type == "ImageDecoder")
    return "ImageDecoder decodes JPEG, PNG, WebP, TIFF... files, and compiled models link no "
           "image codecs (they depend on libc and libm only): decode the image before the "
           "model and give it the pixels";
  return {};
}

std::string why_unsupported(const Node &n) {
  if (std::string why = known_limit(n); !why.empty())
    return why + " (see docs/SupportedOps.md)";
  if (!n.def && !is_standard_domain(n.domain))
    return fmt::format("operator {} of domain '{}' is a custom operator, which onnxc cannot "
                       "compile (it supports the standard ONNX domains); re-export the model "
                       "without custom ops",
                       n.op_type, n.domain);
  if (!n.def)
    return fmt::format("onnxc does not support {} operator {} (opset {}) yet (see "
                       "docs/SupportedOps.md)",
                       n.domain.empty() ? "ai.onnx" : n.domain, n.op_type, n.opset);
  if (n.domain.empty() &&
      ((n.opset < kMinOpset && !n.def->before_min_opset) || n.opset > kMaxOpset))
    return fmt::format("the model imports ai.onnx opset {}, outside the supported range {}..{}; "
                       "convert it with onnx.version_converter",
                       n.opset, kMinOpset, kMaxOpset);
  if (n.opset < n.def->min_opset || n.opset > n.def->max_opset)
    return fmt::format("{} is supported for opsets {}..{}, the model uses opset {}; convert it "
                       "with onnx.version_converter",
                       n.op_type, n.def->min_opset, n.def->max_opset, n.opset);
  if (std::string why = wrong_arity(n); !why.empty())
    return why;
  return wrong_attribute(n);
}

void collect(const Graph &g, std::vector<std::string> &out) {
  for (const auto &n : g.nodes) {
    std::string why = why_unsupported(*n);
    if (!why.empty())
      out.push_back(n->describe() + ": " + why);
    for (const auto &[name, a] : n->attrs) {
      if (a.g)
        collect(*a.g, out);
      for (const auto &sub : a.graphs)
        if (sub)
          collect(*sub, out);
    }
  }
}

} // namespace

std::vector<std::string> find_unsupported_ops(const Graph &g) {
  std::vector<std::string> out;
  collect(g, out);
  return out;
}

void check_supported_ops(const Graph &g) {
  std::vector<std::string> bad = find_unsupported_ops(g);
  if (bad.empty())
    return;
  std::string msg = fmt::format("{} node(s) cannot be compiled:", bad.size());
  for (size_t i = 0; i < bad.size() && i < 20; ++i)
    msg += "\n  " + bad[i];
  if (bad.size() > 20)
    msg +=
        fmt::format("\n  ... and {} more (run `onnxc inspect` for the full list)", bad.size() - 20);
  throw Error(msg);
}

} // namespace onnxc
