// Sequence and optional ops: the schemas. They never reach a kernel: the desugar-sequences pass
// (compiler/passes/desugar_sequences.cpp) replaces every one of them by tensor ops on the
// sequence's elements (or fails naming the node), so `infer` and `lower` here are never reached.
#include "compiler/ops/op_util.h"

namespace onnxc {
namespace {

void handled_by_pass(const Node &n) {
  node_fail(n, "internal error: sequence and optional ops are compiled by the desugar-sequences "
               "pass, not by their OpDef");
}

OpDef sequence_op(const std::string &name, int64_t min_opset, std::vector<AttrSpec> attrs) {
  OpDef d;
  d.name = name;
  d.min_opset = min_opset;
  d.attrs = std::move(attrs);
  d.foldable = false;
  d.infer = [](Node &n) { handled_by_pass(n); };
  d.lower = [](const Node &n) -> KernelCall {
    handled_by_pass(n);
    return {};
  };
  return d;
}

} // namespace

#define ONNXC_SEQUENCE_OP(NAME, OPSET, ...)                                                        \
  const OpDef &op_##NAME() {                                                                       \
    static const OpDef def = sequence_op(#NAME, OPSET, {__VA_ARGS__});                             \
    return def;                                                                                    \
  }

ONNXC_SEQUENCE_OP(SequenceConstruct, 11)
ONNXC_SEQUENCE_OP(SequenceEmpty, 11, {"dtype", Attribute::Kind::Int})
ONNXC_SEQUENCE_OP(SequenceAt, 11)
ONNXC_SEQUENCE_OP(SequenceInsert, 11)
ONNXC_SEQUENCE_OP(SequenceErase, 11)
ONNXC_SEQUENCE_OP(SequenceLength, 11)
ONNXC_SEQUENCE_OP(SplitToSequence, 11, {"axis", Attribute::Kind::Int},
                  {"keepdims", Attribute::Kind::Int})
ONNXC_SEQUENCE_OP(ConcatFromSequence, 11, {"axis", Attribute::Kind::Int, true},
                  {"new_axis", Attribute::Kind::Int})
ONNXC_SEQUENCE_OP(SequenceMap, 17, {"body", Attribute::Kind::Graph, true})
ONNXC_SEQUENCE_OP(Optional, 15, {"type", Attribute::Kind::TypeProto})

const OpDef &op_OptionalHasElement() {
  static const OpDef def = [] {
    OpDef d = sequence_op("OptionalHasElement", 15, {});
    d.optional_inputs_from = {{0, 18}}; // '' from opset 18: "has no element"
    return d;
  }();
  return def;
}

ONNXC_SEQUENCE_OP(OptionalGetElement, 15)

#undef ONNXC_SEQUENCE_OP

} // namespace onnxc
