// Internals of the desugar-sequences pass (desugar_sequences.h), shared by its two files:
// desugar_sequences.cpp (the walk, graph inputs/outputs, bodies) and desugar_sequence_ops.cpp
// (one rewrite per sequence / optional op).
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/bind_shapes.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace onnxc::desugar {

/// A desugared value: a tensor, a sequence (its elements) or an optional (zero or one element).
struct Item {
  TypeKind kind = TypeKind::Tensor;
  Value *tensor = nullptr; ///< kind Tensor
  std::vector<Item> elems; ///< kind Sequence / Optional
  /// A sequence whose length the run decides (SplitToSequence by a split computed at run
  /// time): `elems` are as many as it can have, and this int64 scalar says how many of them
  /// are its elements (the others are empty). Only a graph output of the model's graph.
  Value *length = nullptr;
  /// An optional whose presence the run decides (an If with a run-time condition whose
  /// branches differ in it): this bool scalar says whether elems[0] holds; the other branch
  /// gives zeros of the model's declared type there. Only a graph output of the model's graph
  /// (NAME.present, then the element's outputs, empty when it is absent).
  Value *present = nullptr;
};

/// Most elements of a sequence whose length the run decides (SplitToSequence by a scalar split
/// computed at run time, a Loop carrying a sequence whose trip count or condition is: one output
/// per element it can have). Each element and its graph output's copy are values shaped at run
/// time, of which a model may have 64 (form-regions).
inline constexpr int64_t kMaxRunTimeSequence = 16;

/// "sequence", "optional" or "tensor".
const char *kind_name(TypeKind k);
/// "a sequence", "an optional" or "a tensor".
const char *a_kind(TypeKind k);

/// Desugars one graph: nodes are moved out of g.nodes, rewritten or kept, and put back by
/// finish(). `owner` is the node whose body g is (nullptr for the model's graph).
class Desugarer {
public:
  Desugarer(Graph &g, const ShapeBindings &b, const Node *owner);
  /// Sequence / optional graph inputs become their element tensors (model graph only).
  void expand_inputs();
  /// Every node in order: sequence ops rewritten, the others checked.
  void walk();
  /// Sequence / optional graph outputs become their element tensors (model graph only).
  void expand_outputs();
  /// Puts the resulting nodes back into the graph and drops unused values.
  void finish();
  bool is_composite(const Value *v) const { return items_.count(v) > 0; }
  /// What `v` stands for: its desugared sequence / optional, or the tensor itself.
  Item item(Value *v) const;

private:
  void desugar_if(Node &n);
  void flatten_if_outputs(Node &n, const std::vector<std::vector<Item>> &items,
                          const std::vector<int> &present_in);
  Item zeros_of(const Node &n, const Type &t, const Item &shape, Graph &branch);
  Value *guard_rows(const Node &origin, Value *t, Value *present);
  Item rebuild(const Item &shape, const std::string &base, std::vector<Value *> &outs);
  Value *fresh(const std::string &base);
  Value *constant(Tensor t, const std::string &base);
  /// Appends a new default-domain node named after `origin`, on existing values.
  Node *emit(const Node &origin, const std::string &op, std::vector<Value *> ins,
             std::vector<Value *> outs);
  /// Makes `out` stand for `it`: an Identity of a tensor, or the item itself.
  void bind(const Node &n, Value *out, const Item &it);
  void drop(std::unique_ptr<Node> n);
  void check_tensor_node(Node &n);
  void handle(std::unique_ptr<Node> n);
  Item expand_input(const std::string &name, const Type &t, Value *orig,
                    std::vector<Value *> &flat);
  void expand_output(const std::string &name, const Item &it, Value *orig,
                     std::vector<Value *> &flat);
  static bool find_in_list(const std::vector<Value *> &list, const std::string &name);

  // desugar_sequence_ops.cpp
  void rewrite(Node &n);
  void rewrite_optional(Node &n);
  void rewrite_list_op(Node &n);
  Item sequence_input(const Node &n, size_t i);
  int64_t position(const Node &n, size_t i, int64_t len, bool insert);
  bool run_time_position(const Node &n, size_t i) const;
  Value *checked_position(const Node &n, size_t i, int64_t len, bool insert);
  Value *select(const Node &n, Value *at, const std::vector<Value *> &choices);
  std::optional<std::vector<int64_t>> known_dims(const Value *v) const;
  void rewrite_at_run_time_position(Node &n, const Item &seq);
  const Tensor &constant_input(const Node &n, size_t i, const char *what);
  void split_to_sequence(Node &n);
  int64_t split_dim(const Node &n, const Value *x, int64_t axis);
  void concat_from_sequence(Node &n);
  void sequence_map(Node &n);
  void instantiate(const Graph &body, const Node &n, std::map<const Value *, Value *> &map,
                   int64_t k);
  // desugar_loop.cpp
  bool carries_sequences(const Node &n) const;
  void unroll_loop(Node &n);
  const Tensor *known_value(Value *v) const;
  /// An If that reads or gives sequences / optionals, on a condition known here: its branch's
  /// nodes take its place (handled like the graph's own).
  void inline_known_if(Node &n, bool then);
  /// Not of a known bool (OptionalHasElement of an optional whose presence is known): its value.
  mutable std::map<const Value *, std::shared_ptr<const Tensor>> folded_;
  /// SplitToSequence by a scalar split computed at run time (Item::length).
  void split_to_sequence_run_time(Node &n, Value *x, Value *split, int64_t axis);
  Item optional_input(const Node &n);

  Graph &g_;
  const ShapeBindings &b_;
  const Node *owner_;
  std::map<const Value *, Item> items_;
  /// Elements selected by onnxc.SelectShaped (shaped by the run): their bound dims.
  std::map<const Value *, std::vector<int64_t>> selected_;
  std::vector<std::unique_ptr<Node>> out_;  ///< the rewritten node list, in order
  std::vector<std::unique_ptr<Node>> dead_; ///< replaced nodes, freed by finish()
  bool changed_ = false;                    ///< something was desugared
};

/// Desugars the body of If/Loop/Scan `owner`: refuses sequence inputs/outputs.
void desugar_body(Graph &body, const Node &owner, const ShapeBindings &b);

} // namespace onnxc::desugar
