#include "compiler/ir/captured.h"

namespace onnxc {

bool is_outer_stand_in(const Value &v) {
  return !v.producer && !v.is_graph_input && !v.constant && !v.name.empty() &&
         v.storage == Storage::Unassigned;
}

size_t explicit_input_count(const Node &n) {
  const Attribute *c = n.attr(kCapturedAttr);
  size_t captured = c ? c->strings.size() : 0;
  return n.inputs.size() >= captured ? n.inputs.size() - captured : 0;
}

} // namespace onnxc
