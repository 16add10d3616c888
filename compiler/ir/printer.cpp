#include "compiler/ir/printer.h"

#include <fmt/format.h>

namespace onnxc {
namespace {

std::string print_attr(const Attribute &a, int indent) {
  using K = Attribute::Kind;
  switch (a.kind) {
  case K::Float: return fmt::format("{}", a.f);
  case K::Int: return std::to_string(a.i);
  case K::String: return fmt::format("\"{}\"", a.s);
  case K::Floats: return fmt::format("[{}]", fmt::join(a.floats, ","));
  case K::Ints: return fmt::format("[{}]", fmt::join(a.ints, ","));
  case K::Strings:
    if (a.strings.empty() || a.strings.size() > 4)
      return fmt::format("[{} strings]", a.strings.size());
    return fmt::format("[\"{}\"]", fmt::join(a.strings, "\",\""));
  case K::Tensor:
    return a.t ? fmt::format("tensor<{}[{}]>", dtype_name(a.t->dtype()), dims_to_string(a.t->shape()))
               : "tensor<?>";
  case K::Graph: return a.g ? "\n" + print_graph(*a.g, indent + 2) : "graph<?>";
  case K::Graphs: return fmt::format("[{} graphs]", a.graphs.size());
  default: return std::string(attribute_kind_name(a.kind));
  }
}

} // namespace

std::string print_value(const Value &v) {
  return fmt::format("%{}: {}[{}]", v.name, dtype_name(v.type.dtype), shape_to_string(v.type));
}

std::string print_node(const Node &n, int indent) {
  std::string outs, ins, attrs;
  for (const Value *o : n.outputs)
    outs += (outs.empty() ? "" : ", ") + (o ? print_value(*o) : "_");
  for (const Value *i : n.inputs)
    ins += (ins.empty() ? "" : ", ") + (i ? "%" + i->name : std::string("_"));
  for (const auto &[k, a] : n.attrs)
    attrs += (attrs.empty() ? "" : ", ") + k + "=" + print_attr(a, indent);
  std::string op = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
  std::string s = fmt::format("{:{}}{} = {}({})", "", indent, outs, op, ins);
  if (!attrs.empty())
    s += " {" + attrs + "}";
  if (!n.name.empty())
    s += "  # node '" + n.name + "'";
  return s;
}

std::string print_graph(const Graph &g, int indent) {
  std::string ins;
  for (const Value *v : g.inputs)
    ins += (ins.empty() ? "" : ", ") + print_value(*v);
  std::string s = fmt::format("{:{}}graph {} ({}) {{\n", "", indent, g.name, ins);
  for (const auto &v : g.values)
    if (v->constant)
      s += fmt::format("{:{}}{} = constant\n", "", indent + 2, print_value(*v));
  for (const auto &n : g.nodes)
    s += print_node(*n, indent + 2) + "\n";
  std::string outs;
  for (const Value *v : g.outputs)
    outs += (outs.empty() ? "" : ", ") + ("%" + v->name);
  s += fmt::format("{:{}}return {}\n{:{}}}}\n", "", indent + 2, outs, "", indent);
  return s;
}

} // namespace onnxc
