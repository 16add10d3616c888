// ai.onnx.ml SVMClassifier, SVMRegressor, OneHotEncoder, FeatureVectorizer and LabelEncoder:
// each test builds one node with constant inputs, runs its shape rule and the reference
// evaluator (the natively compiled kernel) and compares with values worked out by hand. The
// pipelines in tests/ml compare the compiled libraries with ONNX Runtime.
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/node_attrs.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace onnxc;
using Catch::Matchers::Contains;

namespace {

template <typename T> TensorPtr make(DType dt, std::vector<int64_t> dims, std::vector<T> vals) {
  auto t = std::make_shared<Tensor>(dt, std::move(dims));
  REQUIRE(static_cast<size_t>(t->numel()) == vals.size());
  std::memcpy(t->data(), vals.data(), vals.size() * sizeof(T));
  return t;
}
TensorPtr f32(std::vector<int64_t> d, std::vector<float> v) { return make(DType::Float, d, v); }
TensorPtr i64(std::vector<int64_t> d, std::vector<int64_t> v) { return make(DType::Int64, d, v); }
template <typename T> std::vector<T> values(const Tensor &t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.numel());
}

/// One ai.onnx.ml node on constant inputs.
struct MlNode : test::AttrSetters<MlNode> {
  Graph g;
  Node *node = nullptr;
  std::vector<TensorPtr> data;

  MlNode(const char *op, std::vector<TensorPtr> ins, size_t outputs = 1) : data(ins) {
    std::vector<Value *> vals;
    for (TensorPtr &t : ins)
      vals.push_back(g.add_constant(g.unique_name("c"), t));
    node = g.add_node(op, vals, outputs);
    node->domain = "ai.onnx.ml";
    node->opset = 3;
    node->def = find_op("ai.onnx.ml", op);
    REQUIRE(node->def);
  }
  std::vector<Tensor> run() {
    node->def->infer(*node);
    std::vector<const Tensor *> ins;
    for (TensorPtr &t : data)
      ins.push_back(t.get());
    return evaluate_node(*node, ins);
  }
};

using Dims = std::vector<int64_t>;
using F = std::vector<float>;
using I = std::vector<int64_t>;

} // namespace

TEST_CASE("SVMRegressor: RBF kernel, one-class sign", "[ops][ml][svm]") {
  // y = 2 * exp(-0.5 * 0) - 1 * exp(-0.5 * (1 + 4)) + 0.5 for x = [1, 2], vectors [1, 2], [0, 0]
  auto make = [] {
    MlNode m("SVMRegressor", {f32({1, 2}, {1, 2})});
    m.s("kernel_type", "RBF").floats("kernel_params", {0.5f, 0, 0}).i("n_supports", 2);
    m.floats("support_vectors", {1, 2, 0, 0}).floats("coefficients", {2, -1});
    m.floats("rho", {0.5f});
    return m;
  };
  MlNode a = make();
  Tensor y = a.run().at(0);
  CHECK(y.shape() == Dims{1, 1});
  CHECK(values<float>(y)[0] == Approx(2.0 - std::exp(-2.5) + 0.5).epsilon(1e-6));
  MlNode b = make();
  b.i("one_class", 1).floats("rho", {-3.0f});
  CHECK(values<float>(b.run().at(0)) == F{-1});
}

TEST_CASE("SVMClassifier: one-vs-one scores, votes tie to the lowest class", "[ops][ml][svm]") {
  // LINEAR kernel, one vector per class: k = [2, 1, -3] for x = [2, 1].
  // pair (0,1): 1*2 - 1*1 + 0 = 1 (class 0); (0,2): 0.5*2 + 0.5*-3 - 1 = -1.5 (class 2);
  // (1,2): 1*1 - 1*-3 + 0.5 = 4.5 (class 1): one vote each, so the label is class 0's.
  MlNode m("SVMClassifier", {f32({1, 2}, {2, 1})}, 2);
  m.ints("classlabels_ints", {10, 20, 30}).ints("vectors_per_class", {1, 1, 1});
  m.floats("support_vectors", {1, 0, 0, 1, -1, -1});
  m.floats("coefficients", {1, -1, 0.5f, 0.5f, 1, -1}).floats("rho", {0, -1, 0.5f});
  std::vector<Tensor> out = m.run();
  CHECK(values<int64_t>(out.at(0)) == I{10});
  CHECK(out.at(1).shape() == Dims{1, 3});
  CHECK(values<float>(out.at(1)) == F{1, -1.5f, 4.5f});
}

TEST_CASE("SVMClassifier: liblinear mode and attribute errors", "[ops][ml][svm]") {
  // No support vectors: scores = x . coefficients[c] + rho[0]; mixed signs, best > 0: label 1.
  MlNode m("SVMClassifier", {f32({2, 2}, {1, 2, -1, 0})}, 2);
  m.ints("classlabels_ints", {5, 6}).floats("coefficients", {1, 1, -1, 0.5f});
  m.floats("rho", {0.5f}).floats("kernel_params", {0, 0, 0});
  std::vector<Tensor> out = m.run();
  CHECK(values<float>(out.at(1)) == F{3.5f, 0.5f, -0.5f, 1.5f});
  CHECK(values<int64_t>(out.at(0)) == I{6, 6});
  MlNode bad("SVMClassifier", {f32({1, 2}, {1, 2})}, 2);
  bad.ints("classlabels_ints", {0, 1}).floats("coefficients", {1, 1, 1}).floats("rho", {0});
  CHECK_THROWS_WITH(bad.run(), Contains("'coefficients' has 3 values, expected 2 classes x 2"));
}

TEST_CASE("OneHotEncoder: truncated floats, unknown values, zeros = 0", "[ops][ml][onehot]") {
  MlNode m("OneHotEncoder", {f32({3}, {2.9f, -1.0f, 7.0f})});
  m.ints("cats_int64s", {-1, 2, 5});
  Tensor y = m.run().at(0);
  CHECK(y.shape() == Dims{3, 3});
  CHECK(values<float>(y) == F{0, 1, 0, 1, 0, 0, 0, 0, 0});
  MlNode strict("OneHotEncoder", {i64({2}, {2, 7})});
  strict.ints("cats_int64s", {2}).i("zeros", 0);
  CHECK_THROWS_WITH(strict.run(), Contains("not one of the categories"));
}

TEST_CASE("FeatureVectorizer: cuts and zero-pads each input", "[ops][ml][vectorizer]") {
  MlNode m("FeatureVectorizer", {i64({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 1}, {0.5f, -0.5f})});
  m.ints("inputdimensions", {2, 3});
  Tensor y = m.run().at(0);
  CHECK(y.shape() == Dims{2, 5});
  CHECK(values<float>(y) == F{1, 2, 0.5f, 0, 0, 4, 5, -0.5f, 0, 0});
}

TEST_CASE("LabelEncoder: NaN keys, defaults, repeated keys", "[ops][ml][label_encoder]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  MlNode a("LabelEncoder", {f32({4}, {nan, 1.5f, 2.0f, -0.0f})});
  a.floats("keys_floats", {1.5f, nan, 0.0f}).ints("values_int64s", {7, 8, 9});
  a.i("default_int64", -5);
  CHECK(values<int64_t>(a.run().at(0)) == I{8, 7, -5, 9});
  MlNode b("LabelEncoder", {i64({3}, {4, 3, 0})});
  b.ints("keys_int64s", {4, 3, 4}).floats("values_floats", {0.25f, 0.5f, 0.75f});
  CHECK(values<float>(b.run().at(0)) == F{0.25f, 0.5f, -0.0f}); // the first 4 wins
  CHECK(std::signbit(values<float>(b.run().at(0))[2]));         // default_float is -0.0
}
