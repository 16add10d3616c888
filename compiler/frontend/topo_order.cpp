#include "compiler/frontend/topo_order.h"
#include "compiler/ir/error.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <queue>
#include <unordered_map>

namespace onnxc {
namespace {

void add_subgraph_free_names(const onnx::NodeProto &node, std::set<std::string> &out) {
  for (const auto &a : node.attribute()) {
    if (a.has_g())
      out.merge(free_names(a.g()));
    for (const auto &g : a.graphs())
      out.merge(free_names(g));
  }
}

using ProducerMap = std::unordered_map<std::string, int>;

ProducerMap map_producers(const onnx::GraphProto &g, const std::string &where) {
  ProducerMap producer;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string &out : g.node(i).output()) {
      if (out.empty())
        continue;
      auto [it, fresh] = producer.emplace(out, i);
      if (!fresh)
        fail("{}: value '{}' is produced twice: by {} and by {}; every value must have exactly "
             "one producer (SSA)",
             where, out, describe_node_proto(g.node(it->second), it->second),
             describe_node_proto(g.node(i), i));
    }
  }
  return producer;
}

/// A pending node's producer that is also pending (every node left over by Kahn's algorithm has
/// one).
int pending_producer(const onnx::GraphProto &g, int i, const std::vector<int> &pending,
                     const ProducerMap &producer, std::string &via) {
  for (const std::string &in : node_reads(g.node(i))) {
    auto it = producer.find(in);
    if (it != producer.end() && pending[static_cast<size_t>(it->second)] > 0) {
      via = in;
      return it->second;
    }
  }
  return -1;
}

[[noreturn]] void report_cycle(const onnx::GraphProto &g, const std::vector<int> &pending,
                               const ProducerMap &producer, const std::string &where) {
  int start = 0;
  while (pending[static_cast<size_t>(start)] == 0)
    ++start;
  // Walk back along pending producers until a node repeats: that loop is a cycle.
  std::vector<int> path;
  std::vector<std::string> vias;
  std::vector<int> seen_at(pending.size(), -1);
  int i = start;
  while (i >= 0 && seen_at[static_cast<size_t>(i)] < 0) {
    seen_at[static_cast<size_t>(i)] = static_cast<int>(path.size());
    path.push_back(i);
    vias.emplace_back();
    i = pending_producer(g, i, pending, producer, vias.back());
  }
  if (i < 0)
    fail("{}: the graph has a cycle involving {}", where,
         describe_node_proto(g.node(start), start));
  std::string text;
  for (size_t k = static_cast<size_t>(seen_at[static_cast<size_t>(i)]); k < path.size(); ++k)
    text +=
        fmt::format("{} reads '{}' from ", describe_node_proto(g.node(path[k]), path[k]), vias[k]);
  text += describe_node_proto(g.node(i), i);
  fail("{}: the graph has a cycle: {}; ONNX graphs must be acyclic", where, text);
}

} // namespace

std::string describe_node_proto(const onnx::NodeProto &node, int index) {
  std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
  std::string op = domain.empty() ? node.op_type() : domain + "." + node.op_type();
  if (node.name().empty())
    return fmt::format("node #{} ({})", index, op);
  return fmt::format("node '{}' ({}, #{})", node.name(), op, index);
}

std::vector<std::string> node_reads(const onnx::NodeProto &node) {
  std::vector<std::string> reads;
  for (const std::string &in : node.input())
    if (!in.empty())
      reads.push_back(in);
  std::set<std::string> implicit;
  add_subgraph_free_names(node, implicit);
  reads.insert(reads.end(), implicit.begin(), implicit.end());
  return reads;
}

std::set<std::string> free_names(const onnx::GraphProto &graph) {
  std::set<std::string> defined, used;
  for (const auto &v : graph.input())
    defined.insert(v.name());
  for (const auto &t : graph.initializer())
    defined.insert(t.name());
  for (const auto &t : graph.sparse_initializer())
    defined.insert(t.values().name());
  for (const auto &n : graph.node()) {
    for (const std::string &in : node_reads(n))
      used.insert(in);
    defined.insert(n.output().begin(), n.output().end());
  }
  for (const auto &v : graph.output())
    used.insert(v.name());
  std::set<std::string> free;
  for (const std::string &u : used)
    if (!u.empty() && !defined.count(u))
      free.insert(u);
  return free;
}

std::vector<int> topological_order(const onnx::GraphProto &g,
                                   const std::function<bool(const std::string &)> &is_defined,
                                   const std::string &where) {
  ProducerMap producer = map_producers(g, where);
  size_t n = static_cast<size_t>(g.node_size());
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string &in : node_reads(g.node(i))) {
      auto it = producer.find(in);
      if (it != producer.end()) {
        users[static_cast<size_t>(it->second)].push_back(i);
        ++pending[static_cast<size_t>(i)];
      } else if (!is_defined(in)) {
        fail("{}: {} reads '{}', which no node, graph input or initializer defines; the model "
             "is incomplete or a name is misspelt",
             where, describe_node_proto(g.node(i), i), in);
      }
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push(static_cast<int>(i));
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(u)] == 0)
        ready.push(u);
  }
  if (order.size() != n)
    report_cycle(g, pending, producer, where);
  return order;
}

} // namespace onnxc
