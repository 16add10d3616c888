// Small graph builders shared by the pass tests: graph inputs and outputs, nodes of registered
// ops, and the message of an Error.
#pragma once

#include "compiler/ir/error.h"
#include "compiler/ir/ir.h"
#include "compiler/ops/registry.h"

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace onnxc::test {

/// Graph input `name` of the given dims and element type.
inline Value *input(Graph &g, const std::string &name, std::vector<Dim> dims,
                    DType dt = DType::Float) {
  Value *v = g.add_value(name);
  v->type.dtype = dt;
  v->type.shape = std::move(dims);
  v->is_graph_input = true;
  g.inputs.push_back(v);
  return v;
}

/// A node of the registered ai.onnx op `type` at opset 17.
inline Node *op(Graph &g, const std::string &type, std::vector<Value *> ins, size_t outs = 1) {
  Node *n = g.add_node(type, std::move(ins), outs);
  n->def = find_op("", type);
  n->opset = 17;
  REQUIRE(n->def);
  return n;
}

/// An int64 constant (a 1-D tensor, or a scalar of v[0]).
inline Value *ints(Graph &g, const std::vector<int64_t> &v, bool scalar = false) {
  auto t = std::make_shared<Tensor>(scalar ? Tensor::scalar_i64(v[0]) : Tensor::vector_i64(v));
  Value *c = g.add_constant(g.unique_name("c"), t);
  g.initializers.push_back(c);
  return c;
}

/// A float constant of the given dims (zeros).
inline Value *floats(Graph &g, const std::vector<int64_t> &dims) {
  Value *c = g.add_constant(g.unique_name("w"), std::make_shared<Tensor>(DType::Float, dims));
  g.initializers.push_back(c);
  return c;
}

inline void output(Graph &g, Value *v) {
  v->is_graph_output = true;
  g.outputs.push_back(v);
}

/// The message of the Error f throws, "" if it throws none.
inline std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

} // namespace onnxc::test
