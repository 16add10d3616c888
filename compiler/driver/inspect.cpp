// `onnxc inspect`: what a model contains and whether onnxc can compile it.
#include "compiler/driver/commands.h"
#include "compiler/frontend/onnx_loader.h"
#include "compiler/ir/error.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/check_supported.h"
#include "compiler/passes/desugar_sequences.h"
#include "compiler/passes/infer_shapes.h"

#include <iostream>
#include <map>

namespace onnxc {
namespace {

void print_summary(const Model &m) {
  const Graph &g = *m.graph;
  std::cout << fmt::format("model: {}\nproducer: {}\nir_version: {}\n", m.path, m.producer,
                           m.ir_version);
  std::cout << "opsets:";
  for (const auto &[dom, v] : m.opsets)
    std::cout << fmt::format(" {}={}", dom.empty() ? "ai.onnx" : dom, v);
  std::cout << "\n";

  std::vector<std::string> bad = find_unsupported_ops(g);
  std::cout << fmt::format("unsupported ops: {}\n", bad.size());
  for (const auto &b : bad)
    std::cout << "  " << b << "\n";

  std::cout << "inputs:\n";
  for (const Value *v : g.inputs)
    std::cout << fmt::format("  {}: {}[{}]\n", v->name, dtype_name(v->type.dtype),
                             shape_to_string(v->type));
  std::cout << "outputs:\n";
  for (const Value *v : g.outputs)
    std::cout << fmt::format("  {}: {}[{}]\n", v->name, dtype_name(v->type.dtype),
                             shape_to_string(v->type));

  // Op histogram, ops onnxc cannot compile first.
  std::map<std::pair<bool, std::string>, int> hist;
  for (const auto &n : g.nodes)
    ++hist[{n->def != nullptr, n->domain.empty() ? n->op_type : n->domain + "." + n->op_type}];
  std::cout << fmt::format("nodes: {}\n", g.nodes.size());
  for (const auto &[key, count] : hist)
    std::cout << fmt::format("  {:<28} {}{}\n", key.second, count,
                             key.first ? "" : "  (unsupported)");

  int64_t params = 0, bytes = 0;
  for (const Value *v : g.initializers) {
    params += v->constant->numel();
    bytes += static_cast<int64_t>(v->constant->nbytes());
  }
  std::cout << fmt::format("parameters: {} ({} bytes in {} initializers)\n", params, bytes,
                           g.initializers.size());
}

std::string dot_escape(const std::string &s) {
  std::string o;
  for (char c : s)
    o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o;
}

void print_dot(const Graph &g) {
  std::cout << "digraph onnx {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::map<const Node *, int> id;
  for (const auto &n : g.nodes) {
    int i = static_cast<int>(id.size());
    id[n.get()] = i;
    std::cout << fmt::format("  n{} [label=\"{}\\n{}\"{}];\n", i, dot_escape(n->op_type),
                             dot_escape(n->name), n->def ? "" : ", color=red");
  }
  for (size_t i = 0; i < g.inputs.size(); ++i)
    std::cout << fmt::format("  in{} [label=\"{}\", shape=ellipse];\n", i,
                             dot_escape(g.inputs[i]->name));
  for (const auto &n : g.nodes)
    for (const Value *v : n->inputs) {
      if (!v || v->constant)
        continue;
      std::string from;
      if (v->producer)
        from = fmt::format("n{}", id[v->producer]);
      for (size_t i = 0; i < g.inputs.size(); ++i)
        if (g.inputs[i] == v)
          from = fmt::format("in{}", i);
      if (!from.empty())
        std::cout << fmt::format("  {} -> n{} [label=\"{}\"];\n", from, id[n.get()],
                                 dot_escape(shape_to_string(v->type)));
    }
  std::cout << "}\n";
}

} // namespace

int cmd_inspect(const InspectOptions &o) {
  auto model = load_model(o.model_path);
  if (o.dot) {
    print_dot(*model->graph);
    return 0;
  }
  print_summary(*model);
  if (o.ir) {
    // Infer shapes when the model can be compiled as is; otherwise dump the IR as loaded.
    try {
      if (find_unsupported_ops(*model->graph).empty()) {
        ShapeBindings b = o.bindings;
        b.keep_symbolic = true; // show run-time dims as expressions over the symbols
        desugar_sequences(*model->graph, b);
        bind_input_shapes(*model->graph, b);
        for (const auto &[name, r] : model->graph->symbols)
          std::cout << fmt::format("symbol {}: {}..{}\n", name, r.lo, r.hi);
        infer_shapes(*model->graph);
        for (const std::string &c : model->graph->counts) // Graph::counts: c - 1 is the count
          std::cout << fmt::format("run-time count {} - 1: 0..{} (computed by the run)\n", c,
                                   model->graph->symbols.at(c).hi - 1);
      }
    } catch (const Error &e) {
      std::cout << "(shapes not inferred: " << e.what() << ")\n";
    }
    std::cout << print_graph(*model->graph);
  }
  return 0;
}

} // namespace onnxc
