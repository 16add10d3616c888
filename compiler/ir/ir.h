// The graph IR.
//
// Semantics:
// - A Graph owns its Nodes and Values. Nodes are kept in a topological order: every input of a
//   node is a graph input, an initializer/constant, or an output of an earlier node.
// - A Value is a node output, a graph input or a constant (initializer, Constant node folded, or a
//   value constant folding computed); `constant` is set exactly for constants. Every value keeps
//   the list of (node, input index) that use it, so replace_all_uses_with is cheap.
// - Types: every value has a dtype and, once shape inference ran, a shape. A dim is static
//   (value >= 0) or symbolic (a named parameter such as "batch", or unnamed). After shape
//   inference with all parameters bound, every dim the backend sees is static.
// - Optional inputs that are omitted are nullptr in Node::inputs. ONNX names are kept for error
//   messages and the runtime signature.
// - Subgraph attributes (If/Loop/Scan bodies) are Graphs of their own whose `parent` is the
//   enclosing graph; names they use but do not define resolve in the enclosing scopes.
// - Layout and buffer assignment are annotations on values (Value::storage, Value::offset), set
//   by the memory planner.
#pragma once

#include "compiler/ir/dtype.h"
#include "compiler/ir/sym.h"
#include "compiler/ir/tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace onnxc {

class Graph;
class Node;
struct OpDef;

/// One dimension: static (value >= 0) or symbolic (value == -1). A symbolic dim is known as an
/// expression over named symbols (`sym`: "batch", "seq*4"; `param` names it when it is exactly
/// one symbol), or unknown (`sym` is the constant 0: an unnamed "?" dim of the model).
struct Dim {
  int64_t value = -1;
  std::string param;
  SymInt sym;
  Dim() = default;
  Dim(int64_t v) : value(v) {}
  /// A constant expression gives a static dim.
  Dim(const SymInt &s);
  static Dim symbolic(std::string name) {
    if (name.empty())
      return Dim();
    return Dim(SymInt::symbol(name));
  }
  bool is_static() const { return value >= 0; }
  /// Static, or symbolic with a known expression.
  bool is_known() const { return is_static() || !sym.is_const(); }
  /// The dim as an expression; throws Error for an unknown dim.
  SymInt expr() const;
  std::string str() const;
  bool operator==(const Dim &o) const {
    return value == o.value && param == o.param && sym == o.sym;
  }
};

/// The values a symbolic dim may take at run time (--dim NAME=LO..HI; default 1..kDefaultMax).
struct SymRange {
  static constexpr int64_t kDefaultMax = 4096;
  int64_t lo = 1, hi = kDefaultMax;
};

/// What a value is: a tensor, or an ONNX sequence / optional, which exist only until the
/// desugar-sequences pass replaces them by their element tensors (passes/desugar_sequences.h).
enum class TypeKind { Tensor, Sequence, Optional };

/// Type of a value: dtype plus an optional shape (nullopt = rank unknown). A sequence or optional
/// has dtype Undefined and its element type in `elem`.
struct Type {
  DType dtype = DType::Undefined;
  std::optional<std::vector<Dim>> shape;
  TypeKind kind = TypeKind::Tensor;
  std::shared_ptr<const Type> elem; ///< element type of a sequence / optional (may be unknown)

  bool has_shape() const { return shape.has_value(); }
  bool is_static() const;
  int64_t rank() const { return shape ? static_cast<int64_t>(shape->size()) : -1; }
  /// Static dims; throws Error if any dim is symbolic or the rank is unknown.
  std::vector<int64_t> static_dims() const;
  /// Every dim as an expression; throws Error if a dim or the rank is unknown.
  std::vector<SymInt> sym_dims() const;
  /// True when the rank and every dim are known (static or symbolic expressions).
  bool is_known() const;
  static Type of(DType dt, const std::vector<int64_t> &dims);
  static Type of_sym(DType dt, const std::vector<SymInt> &dims);
};

/// "1x3x224x224", "batchx3", "(seq*4)x2", "?" for an unknown rank or dim, "scalar" for rank 0.
std::string shape_to_string(const Type &t);
std::string dims_to_string(const std::vector<int64_t> &dims);

/// Where a value lives at run time (set by the memory planner).
enum class Storage { Unassigned, Arena, Weight, GraphInput, GraphOutput };

struct Use {
  Node *node;
  int index; ///< input slot of `node`
};

class Value {
public:
  std::string name;
  Type type;
  Node *producer = nullptr; ///< nullptr for graph inputs and constants
  int producer_index = 0;
  std::vector<Use> uses;
  TensorPtr constant; ///< set for constants
  /// For a small int64 tensor (rank <= 1) computed from symbolic shapes (Shape, Gather,
  /// Concat, ...): its values as expressions, so Reshape/Expand/... can use them at compile
  /// time. Unset when unknown; a value whose expressions are all constant becomes a constant.
  std::optional<std::vector<SymInt>> sym_value;
  /// A shape decided at run time by the values of input `run_time_shape_from` (ReduceSum over
  /// axes computed at run time): `type` is then an upper bound (the memory planned, the rank),
  /// the kernel reports the shape of its result (onnxc_rt_set_shape), and the value may only be
  /// a graph output or the input of an element-wise op that keeps its shape (infer-shapes
  /// refuses other uses: run_time_shape_of). Empty: the type is the shape.
  std::string run_time_shape_from;
  /// A value shaped at run time whose kernel writes its elements at the start of its own buffer
  /// (never in run-scoped memory), at most type's element count: an element-wise op may then
  /// compute over the whole bound, element for element (Reduce*, Reshape, Slice, Split...), and
  /// its output has the same run-time shape, which the run copies to it (form-regions adds a
  /// Region::Kind::ShapeCopy after a node whose input is shaped at run time).
  bool run_time_bounded = false;
  /// Where run_time_shape_from's values come from, for messages ("it is computed at run time
  /// from 'x' (from the graph input 'a')").
  std::string run_time_shape_trace;
  /// The value whose kernel decided this run-time shape (itself, or the value an element-wise
  /// op followed): values with the same root have the same shape in every run.
  std::string run_time_shape_root;
  /// A shape decided at run time with no bound (Range, Pad, ConstantOfShape... fed by run-time
  /// values): its kernel takes run-scoped memory (onnxc_rt_output_buffer), and its arena slot,
  /// sized for `type`, only names it in the run's shape table (PlannedCall::run_time_data).
  bool run_time_data() const { return !run_time_shape_from.empty() && !run_time_bounded; }
  /// Of a value with no bound (run_time_data): the dims the compiler knows, -1 where the run
  /// decides (Expand by [n, 2, 3] with n computed at run time: [-1, 2, 3]); empty: none known.
  std::vector<int64_t> run_time_dims;
  /// An If output whose branches give the same elements at two ranks (a scalar and a
  /// 1-element vector: the lower one's dims are the higher one's without leading 1s): it has
  /// the higher rank, and this is the lower one, -1 otherwise. Only broadcasting element-wise
  /// ops with another input of at least its rank may read it (their result is then the same
  /// at either rank); infer-shapes refuses other uses.
  int64_t broadcast_rank_from = -1;
  bool is_graph_input = false;
  bool is_graph_output = false;
  /// A graph output's shape as the model declares it (its ValueInfo), when every dim is a
  /// number: infer-shapes gives a body output shaped at run time this shape, checked during the
  /// run (onnxc.CheckShape).
  std::optional<std::vector<int64_t>> declared_dims;
  // Memory planning annotations.
  Storage storage = Storage::Unassigned;
  int64_t offset = 0; ///< byte offset in the arena (Arena) or the weight blob (Weight)
  int io_index = -1;  ///< index among graph inputs / outputs

  bool is_constant() const { return constant != nullptr; }
};

struct Attribute {
  enum class Kind {
    Undefined,
    Float,
    Int,
    String,
    Tensor,
    Graph,
    Floats,
    Ints,
    Strings,
    Tensors,
    Graphs,
    SparseTensor,
    TypeProto
  };
  Kind kind = Kind::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  TensorPtr t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<TensorPtr> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  std::string ref_attr_name; ///< set inside function bodies
};
std::string_view attribute_kind_name(Attribute::Kind k);

/// Attribute (Strings) naming, by describe(), the nodes a fusion pass merged into a node; its
/// describe() mentions them, so messages still name the model's own nodes.
inline constexpr char kFusedNodesAttr[] = "onnxc.fused";

class Node {
public:
  std::string name; ///< ONNX node name (may be empty)
  std::string op_type;
  std::string domain; ///< "" for the default ONNX domain
  int64_t opset = 0;  ///< opset version of `domain` the model imports
  int index = 0;      ///< position in the original model, for messages
  std::vector<Value *> inputs;
  std::vector<Value *> outputs;
  std::map<std::string, Attribute> attrs;
  const OpDef *def = nullptr; ///< resolved by the frontend

  Value *input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  bool has_input(size_t i) const { return input(i) != nullptr; }
  const Attribute *attr(const std::string &n) const;
  /// "node 'conv1' (Conv, #3)" — how messages refer to a node; nodes fused into it are
  /// appended: "node 'conv1' (Conv, #3) fused with node 'relu1' (Relu, #4)".
  std::string describe() const;
};

class Graph {
public:
  std::string name;
  Graph *parent = nullptr;
  std::vector<std::unique_ptr<Node>> nodes; ///< topological order
  std::vector<std::unique_ptr<Value>> values;
  std::vector<Value *> inputs;
  std::vector<Value *> outputs;
  std::vector<Value *> initializers;
  /// The symbols the graph inputs' dims use, with their ranges (root graph; set by bind-shapes).
  std::map<std::string, SymRange> symbols;
  /// Run-time counts (infer-shapes): symbols of `symbols` whose value a kernel computes during
  /// the run (NonZero's count, NonMaxSuppression's selected boxes). Such a symbol is the count
  /// plus 1 (symbols are at least 1; a count may be 0): a dim of the count is `symbol - 1`.
  std::set<std::string> counts;

  Value *add_value(std::string name, Type type = {});
  Value *add_constant(std::string name, TensorPtr t);
  Node *add_node(std::string op_type, std::vector<Value *> inputs, size_t num_outputs);
  /// Value by name in this graph (not enclosing scopes), nullptr if absent.
  Value *find_value(const std::string &name) const;
  void set_input(Node *n, size_t slot, Value *v);
  void replace_all_uses_with(Value *from, Value *to);
  /// Removes nodes for which `dead` is true; their inputs' use-lists are updated.
  template <typename Pred> void erase_nodes_if(Pred dead);
  /// Removes values that are neither used, produced by a live node, nor graph inputs/outputs.
  void erase_unused_values();
  /// A name not used by any value yet, starting with `base`.
  std::string unique_name(const std::string &base);

private:
  void drop_uses(Node *n);
  std::map<std::string, Value *> by_name_;
  int64_t name_counter_ = 0;
  friend class GraphBuilderAccess;
};

struct Model {
  int64_t ir_version = 0;
  std::string producer;
  std::string path;                      ///< file it was read from (for messages)
  std::map<std::string, int64_t> opsets; ///< domain -> version ("" is ai.onnx)
  std::unique_ptr<Graph> graph;
};

/// A deep copy of `g` (values, nodes, nested subgraphs), its parent set to `parent`: for
/// passes that need one body per copy of a node (a copy shares nothing with the original).
std::shared_ptr<Graph> clone_graph(const Graph &g, Graph *parent);

template <typename Pred> void Graph::erase_nodes_if(Pred dead) {
  std::vector<std::unique_ptr<Node>> kept;
  for (auto &n : nodes) {
    if (dead(*n)) {
      drop_uses(n.get());
      for (Value *o : n->outputs)
        if (o)
          o->producer = nullptr;
    } else {
      kept.push_back(std::move(n));
    }
  }
  nodes = std::move(kept);
}

} // namespace onnxc
