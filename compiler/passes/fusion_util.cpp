#include "compiler/passes/fusion_util.h"
#include "compiler/ir/error.h"

#include <algorithm>

namespace onnxc {

Node *sole_user(const Value *v) {
  if (!v || v->uses.size() != 1 || v->is_graph_output || !v->run_time_shape_from.empty())
    return nullptr; // (a value shaped at run time keeps its producer's own kernel)
  return v->uses[0].node;
}

bool is_op(const Node &n, const char *op) { return n.domain.empty() && n.op_type == op; }

void absorb_operand(Graph &g, Node &producer, size_t slot, Value *operand, const char *marker,
                    Node &consumer) {
  g.set_input(&producer, slot, operand);
  Attribute one;
  one.kind = Attribute::Kind::Int;
  one.i = 1;
  producer.attrs[marker] = one;
  take_over_output(producer, consumer);
}

void record_fused(Node &n, const Node &fused) {
  Attribute &a = n.attrs[kFusedNodesAttr];
  a.kind = Attribute::Kind::Strings;
  a.strings.push_back(fused.describe());
}

void take_over_output(Node &producer, Node &consumer) {
  Value *mine = producer.outputs[0], *theirs = consumer.outputs[0];
  producer.outputs[0] = theirs;
  theirs->producer = &producer;
  theirs->producer_index = 0;
  consumer.outputs[0] = mine;
  mine->producer = &consumer;
  mine->producer_index = 0;
  record_fused(producer, consumer);
}

void set_constant_input(Graph &g, Node &n, size_t slot, Tensor t) {
  std::string base = n.input(slot) ? n.input(slot)->name : n.outputs[0]->name + "_bias";
  Value *c =
      g.add_constant(g.unique_name(base + "_folded"), std::make_shared<const Tensor>(std::move(t)));
  g.initializers.push_back(c);
  g.set_input(&n, slot, c);
}

Tensor make_float_tensor(DType dt, std::vector<int64_t> shape, const std::vector<double> &v) {
  Tensor t(dt, std::move(shape));
  if (t.numel() != static_cast<int64_t>(v.size()))
    fail("internal error: folded tensor has {} elements, expected {}", v.size(), t.numel());
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::Float)
      t.data_as<float>()[i] = static_cast<float>(v[i]);
    else if (dt == DType::Double)
      t.data_as<double>()[i] = v[i];
    else
      fail("internal error: folding into a {} tensor", dtype_name(dt));
  }
  return t;
}

std::vector<double> to_doubles(const Tensor &t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i)
    v[static_cast<size_t>(i)] = t.float_at(i);
  return v;
}

std::optional<std::vector<double>> per_channel_values(const Tensor &c,
                                                      const std::vector<int64_t> &out) {
  const int64_t r = static_cast<int64_t>(out.size()), cr = c.rank();
  if (r < 2 || cr > r || out[1] < 0)
    return std::nullopt;
  bool along_channel = false;
  for (int64_t k = 0; k < cr; ++k) {
    const int64_t axis = r - cr + k, d = c.shape()[static_cast<size_t>(k)];
    if (d == 1)
      continue;
    if (axis != 1 || d != out[1])
      return std::nullopt;
    along_channel = true;
  }
  std::vector<double> all = to_doubles(c), v(static_cast<size_t>(out[1]));
  for (size_t m = 0; m < v.size(); ++m)
    v[m] = all[along_channel ? m : 0];
  return v;
}

void erase_fused(Graph &g, const std::unordered_set<const Node *> &dead) {
  if (dead.empty())
    return;
  g.erase_nodes_if([&](const Node &n) { return dead.count(&n) != 0; });
  g.erase_unused_values();
}

std::vector<int64_t> dims_or_unknown(const Type &t) {
  std::vector<int64_t> out;
  for (const Dim &d : t.shape ? *t.shape : std::vector<Dim>{})
    out.push_back(d.is_static() ? d.value : -1);
  return out;
}

} // namespace onnxc
