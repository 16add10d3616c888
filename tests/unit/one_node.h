// One-node graphs for the op unit tests: constant and run-time inputs, attributes, the shape
// rule and the reference evaluator (the natively compiled kernel, or OpDef::eval).
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/node_attrs.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

namespace onnxc::test {

/// A tensor of type dt and shape dims holding vals (whose count must match).
template <typename T> TensorPtr make(DType dt, std::vector<int64_t> dims, std::vector<T> vals) {
  auto t = std::make_shared<Tensor>(dt, std::move(dims));
  REQUIRE(static_cast<size_t>(t->numel()) == vals.size());
  if (!vals.empty())
    std::memcpy(t->data(), vals.data(), vals.size() * sizeof(T));
  return t;
}

/// float32 and int64 tensors of shape d.
inline TensorPtr f32(std::vector<int64_t> d, std::vector<float> v) { return make(DType::Float, d, v); }
inline TensorPtr i64(std::vector<int64_t> d, std::vector<int64_t> v) { return make(DType::Int64, d, v); }

/// The elements of t as a vector of T.
template <typename T> std::vector<T> values(const Tensor &t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.numel());
}

/// One node whose inputs are constants (known at compile time) or run-time values (only their
/// type is known to the shape rule; the evaluator still gets their data).
struct OneNode : AttrSetters<OneNode> {
  Graph g;
  Node *node = nullptr;
  std::vector<TensorPtr> data;

  OneNode(const char *op, int64_t opset, std::vector<TensorPtr> constants, size_t outs = 1,
          std::vector<TensorPtr> runtime = {}) {
    std::vector<Value *> vals;
    for (TensorPtr &t : constants) {
      data.push_back(t);
      vals.push_back(t ? g.add_constant(g.unique_name("c"), t) : nullptr);
    }
    for (TensorPtr &t : runtime) {
      data.push_back(t);
      vals.push_back(g.add_value(g.unique_name("r"), Type::of(t->dtype(), t->shape())));
    }
    node = g.add_node(op, vals, outs);
    node->def = find_op("", op);
    node->opset = opset;
    REQUIRE(node->def);
  }
  OneNode &t(const char *name, TensorPtr v) {
    node->attrs[name].kind = Attribute::Kind::Tensor;
    node->attrs[name].t = std::move(v);
    return *this;
  }
  void infer() { node->def->infer(*node); }
  std::vector<Tensor> run() {
    infer();
    std::vector<const Tensor *> ins;
    for (TensorPtr &t : data)
      ins.push_back(t.get());
    return evaluate_node(*node, ins);
  }
  Tensor run1() { return run().at(0); }
  std::vector<int64_t> out_dims(size_t i = 0) { return node->outputs[i]->type.static_dims(); }
};

} // namespace onnxc::test
