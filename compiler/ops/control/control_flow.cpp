// If, Loop and Scan: the schemas. Their bodies are compiled by the passes, not by an OpDef
// function: compiler/passes/control_flow.cpp infers the bodies' shapes (and inlines an If whose
// condition is a compile-time constant), compiler/passes/lower_control_flow.cpp lowers a node to
// a structured region of planned calls (ControlMark) that the backend turns into branches and
// loops. So `infer` and `lower` here are never reached; they fail if they are.
#include "compiler/ops/op_util.h"

namespace onnxc {
namespace {

void handled_by_passes(const Node &n) {
  node_fail(n, "internal error: control-flow ops are compiled by the passes "
               "(compiler/passes/control_flow.cpp), not by their OpDef");
}

OpDef control_op(const std::string &name, int64_t min_opset, std::vector<AttrSpec> attrs) {
  OpDef d;
  d.name = name;
  d.min_opset = min_opset;
  d.attrs = std::move(attrs);
  d.foldable = false;
  d.infer = [](Node &n) { handled_by_passes(n); };
  d.lower = [](const Node &n) -> KernelCall {
    handled_by_passes(n);
    return {};
  };
  return d;
}

} // namespace

const OpDef &op_If() {
  static const OpDef def =
      control_op("If", 1,
                 {{"then_branch", Attribute::Kind::Graph, true},
                  {"else_branch", Attribute::Kind::Graph, true}});
  return def;
}

const OpDef &op_Loop() {
  static const OpDef def = control_op("Loop", 1, {{"body", Attribute::Kind::Graph, true}});
  return def;
}

/// Scan; opset 8's batched form is expanded into a Scan over the batch of Scans over the
/// sequence by infer-shapes (compiler/passes/expand_ops.h) before it is inferred.
const OpDef &op_Scan() {
  static const OpDef def = control_op("Scan", 8,
                                      {{"body", Attribute::Kind::Graph, true},
                                       {"directions", Attribute::Kind::Ints},
                                       {"num_scan_inputs", Attribute::Kind::Int, true},
                                       {"scan_input_axes", Attribute::Kind::Ints},
                                       {"scan_input_directions", Attribute::Kind::Ints},
                                       {"scan_output_axes", Attribute::Kind::Ints},
                                       {"scan_output_directions", Attribute::Kind::Ints}});
  return def;
}

} // namespace onnxc
