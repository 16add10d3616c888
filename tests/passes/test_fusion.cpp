// Fusion pass tests: fold-batchnorm and fuse-activation rewrite the IR as documented (node
// counts, attributes, messages), and the rewritten graph computes what the original computed
// (both run node by node with the reference evaluator, i.e. the kernels compiled natively).
#include "compiler/ir/error.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/fold_batchnorm.h"
#include "compiler/passes/fold_constants.h"
#include "compiler/passes/form_regions.h"
#include "compiler/passes/fuse_activation.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/verify_graph.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <memory>

using namespace onnxc;

namespace {

/// Deterministic values in [lo, hi).
std::vector<double> rand_values(size_t n, uint32_t seed, double lo = -1, double hi = 1) {
  std::vector<double> v(n);
  for (double &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + (hi - lo) * (seed >> 8) / double(1u << 24);
  }
  return v;
}

Tensor float_tensor(std::vector<int64_t> shape, const std::vector<double> &v,
                    DType dt = DType::Float) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::Float)
      t.data_as<float>()[i] = static_cast<float>(v[i]);
    else
      t.data_as<double>()[i] = v[i];
  }
  return t;
}

/// Builds the test graphs; every node named after its op and position.
struct Builder {
  Graph g;
  DType dt = DType::Float;
  uint32_t seed = 1;

  Value *input(const std::string &name, std::vector<int64_t> dims) {
    Value *v = g.add_value(name);
    v->type = Type::of(dt, dims);
    v->is_graph_input = true;
    g.inputs.push_back(v);
    return v;
  }
  Value *constant(std::vector<int64_t> shape, double lo = -1, double hi = 1) {
    size_t n = 1;
    for (int64_t d : shape)
      n *= static_cast<size_t>(d);
    auto t = std::make_shared<Tensor>(float_tensor(shape, rand_values(n, seed++, lo, hi), dt));
    Value *c = g.add_constant(g.unique_name("c"), t);
    g.initializers.push_back(c);
    return c;
  }
  Node *op(const std::string &type, std::vector<Value *> ins, size_t outs = 1) {
    Node *n = g.add_node(type, std::move(ins), outs);
    n->def = find_op("", type);
    n->opset = 17;
    n->name = type + std::to_string(g.nodes.size());
    REQUIRE(n->def);
    return n;
  }
  /// Infers n's output types now, so that later builders can read them (after attributes).
  static Node *typed(Node *n) {
    n->def->infer(*n);
    return n;
  }
  Value *conv(Value *x, int64_t M, int64_t group, int64_t k, bool bias) {
    const int64_t C = x->type.static_dims()[1];
    Node *n = op("Conv", {x, constant({M, C / group, k, k}), bias ? constant({M}) : nullptr});
    set_ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
    set_int(n, "group", group);
    return typed(n)->outputs[0];
  }
  Value *batchnorm(Value *x) {
    const int64_t C = x->type.static_dims()[1];
    Node *n = op("BatchNormalization",
                 {x, constant({C}, 0.5, 2), constant({C}), constant({C}), constant({C}, 0.1, 2)});
    set_float(n, "epsilon", 1e-3f);
    return typed(n)->outputs[0];
  }
  static void set_ints(Node *n, const std::string &k, std::vector<int64_t> v) {
    n->attrs[k].kind = Attribute::Kind::Ints;
    n->attrs[k].ints = std::move(v);
  }
  static void set_int(Node *n, const std::string &k, int64_t v) {
    n->attrs[k].kind = Attribute::Kind::Int;
    n->attrs[k].i = v;
  }
  static void set_float(Node *n, const std::string &k, float v) {
    n->attrs[k].kind = Attribute::Kind::Float;
    n->attrs[k].f = v;
  }
  void output(Value *v) {
    v->is_graph_output = true;
    g.outputs.push_back(v);
  }
};

/// Runs g node by node with the reference evaluator on deterministic inputs.
std::vector<Tensor> run_graph(const Graph &g) {
  std::map<const Value *, Tensor> env;
  uint32_t seed = 1000;
  for (const Value *in : g.inputs) {
    std::vector<int64_t> dims = in->type.static_dims();
    env[in] = float_tensor(dims, rand_values(checked_numel(dims), seed++, -2, 2), in->type.dtype);
  }
  for (const auto &n : g.nodes) {
    std::vector<const Tensor *> ins;
    for (const Value *v : n->inputs)
      ins.push_back(!v ? nullptr : v->constant ? v->constant.get() : &env.at(v));
    std::vector<Tensor> outs = evaluate_node(*n, ins);
    for (size_t i = 0; i < outs.size(); ++i)
      if (n->outputs[i])
        env[n->outputs[i]] = std::move(outs[i]);
  }
  std::vector<Tensor> result;
  for (const Value *o : g.outputs)
    result.push_back(o->constant ? *o->constant : env.at(o));
  return result;
}

/// Max |a - b| / (1 + |b|) over all elements.
double max_rel_diff(const Tensor &a, const Tensor &b) {
  REQUIRE(a.shape() == b.shape());
  double d = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    d = std::max(d, std::abs(a.float_at(i) - b.float_at(i)) / (1 + std::abs(b.float_at(i))));
  return d;
}

/// Builds the graph twice, runs the passes on one copy, checks it computes the same outputs
/// and returns it for structural checks.
std::unique_ptr<Builder> fused_and_compared(const std::function<void(Builder &)> &build,
                                            double tol = 1e-5) {
  Builder ref;
  build(ref);
  infer_shapes(ref.g);
  fold_constants(ref.g);
  auto b = std::make_unique<Builder>();
  build(*b);
  infer_shapes(b->g);
  fold_constants(b->g);
  fold_batchnorm(b->g);
  verify_graph(b->g, "fold-batchnorm");
  fuse_activation(b->g);
  verify_graph(b->g, "fuse-activation");
  std::vector<Tensor> want = run_graph(ref.g), got = run_graph(b->g);
  REQUIRE(want.size() == got.size());
  for (size_t i = 0; i < want.size(); ++i)
    CHECK(max_rel_diff(got[i], want[i]) < tol);
  return b;
}

std::string activation_of(const Node &n) {
  const Attribute *a = n.attr(kActivationAttr);
  return a ? a->s : "";
}

} // namespace

TEST_CASE("fold-batchnorm + fuse-activation: Conv -> BN -> Mul -> Add -> Relu is one Conv") {
  for (bool bias : {true, false}) {
    auto b = fused_and_compared([&](Builder &b) {
      Value *x = b.input("x", {2, 4, 7, 7});
      Value *y = b.batchnorm(b.conv(x, 6, 1, 3, bias));
      y = b.op("Mul", {y, b.constant({6, 1, 1})})->outputs[0];
      y = b.op("Add", {b.constant({}), y})->outputs[0];
      b.output(b.op("Relu", {y})->outputs[0]);
    });
    REQUIRE(b->g.nodes.size() == 1);
    const Node &conv = *b->g.nodes[0];
    CHECK(conv.op_type == "Conv");
    CHECK(activation_of(conv) == "Relu");
    CHECK(conv.has_input(2)); // the folded bias exists even when the Conv had none
    // Messages about the fused node still name every original node.
    for (const char *name : {"Conv1", "BatchNormalization2", "Mul3", "Add4", "Relu5"})
      CHECK_THAT(conv.describe(), Catch::Contains(name));
  }
}

TEST_CASE("fusion covers depthwise and grouped Conv, Clip(0, 6), LeakyRelu, HardSwish, SiLU") {
  struct Case {
    int64_t group;
    std::string act;
  };
  for (const Case &c : {Case{8, "Clip"}, Case{2, "LeakyRelu"}, Case{8, "HardSwish"},
                        Case{4, "Silu"}, Case{1, "HardSigmoid"}, Case{2, "Sigmoid"}}) {
    for (DType dt : {DType::Float, DType::Double}) {
      auto b = fused_and_compared([&](Builder &b) {
        b.dt = dt;
        Value *x = b.input("x", {1, 8, 6, 5});
        Value *y = b.batchnorm(b.conv(x, 8, c.group, 3, true));
        if (c.act == "Clip") {
          Value *lo = b.g.add_constant("lo", std::make_shared<Tensor>(float_tensor({}, {0}, dt)));
          Value *hi = b.g.add_constant("hi", std::make_shared<Tensor>(float_tensor({}, {6}, dt)));
          y = b.op("Clip", {y, lo, hi})->outputs[0];
        } else if (c.act == "Silu") {
          y = b.op("Mul", {b.op("Sigmoid", {y})->outputs[0], y})->outputs[0];
        } else {
          Node *n = b.op(c.act, {y});
          if (c.act == "LeakyRelu")
            Builder::set_float(n, "alpha", 0.3f);
          y = n->outputs[0];
        }
        b.output(y);
      });
      REQUIRE(b->g.nodes.size() == 1);
      CHECK(activation_of(*b->g.nodes[0]) == c.act);
    }
  }
}

TEST_CASE("fusion into Gemm (transB, BN, Relu) and MatMul (SiLU)") {
  auto gemm = fused_and_compared([](Builder &b) {
    Value *a = b.input("a", {5, 7});
    Node *n = b.op("Gemm", {a, b.constant({9, 7}), b.constant({9})});
    Builder::set_int(n, "transB", 1);
    Builder::set_float(n, "beta", 0.5f);
    Builder::set_float(n, "alpha", 1.5f);
    b.output(b.op("Relu", {b.batchnorm(Builder::typed(n)->outputs[0])})->outputs[0]);
  });
  REQUIRE(gemm->g.nodes.size() == 1);
  CHECK(activation_of(*gemm->g.nodes[0]) == "Relu");

  auto matmul = fused_and_compared([](Builder &b) {
    Value *a = b.input("a", {3, 20, 33});
    Value *y = b.op("MatMul", {a, b.constant({33, 17})})->outputs[0];
    b.output(b.op("Mul", {y, b.op("Sigmoid", {y})->outputs[0]})->outputs[0]);
  });
  REQUIRE(matmul->g.nodes.size() == 1);
  CHECK(activation_of(*matmul->g.nodes[0]) == "Silu");
}

TEST_CASE("fusion leaves shared outputs, graph outputs and non-per-channel operands alone") {
  auto shared = fused_and_compared([](Builder &b) {
    Value *y = b.conv(b.input("x", {1, 3, 5, 5}), 4, 1, 3, true);
    b.output(b.op("Relu", {y})->outputs[0]);
    b.output(b.op("Sigmoid", {y})->outputs[0]);
  });
  CHECK(shared->g.nodes.size() == 3);

  auto visible = fused_and_compared([](Builder &b) {
    Value *y = b.conv(b.input("x", {1, 3, 5, 5}), 4, 1, 3, true);
    b.output(y);
    b.output(b.batchnorm(y));
  });
  CHECK(visible->g.nodes.size() == 2);

  auto spatial = fused_and_compared([](Builder &b) {
    Value *y = b.conv(b.input("x", {1, 3, 5, 5}), 4, 1, 3, false);
    b.output(b.op("Mul", {y, b.constant({1, 1, 5, 5})})->outputs[0]);
  });
  CHECK(spatial->g.nodes.size() == 2);

  auto computed_clip = fused_and_compared([](Builder &b) {
    Value *y = b.conv(b.input("x", {1, 3, 5, 5}), 4, 1, 3, true);
    b.output(b.op("Clip", {y, b.input("lo", {})})->outputs[0]);
  });
  CHECK(computed_clip->g.nodes.size() == 2);
}

TEST_CASE("pipeline: --disable-pass switches fusion passes off and rejects other names") {
  PipelineOptions o;
  CHECK(pass_enabled(o, "fold-batchnorm"));
  o.disabled_passes = {"fuse-activation"};
  CHECK(pass_enabled(o, "fold-batchnorm"));
  CHECK(!pass_enabled(o, "fuse-activation"));
  o.disabled_passes = {"all-fusion"};
  CHECK(!pass_enabled(o, "fold-batchnorm"));
  CHECK(!pass_enabled(o, "fuse-activation"));
  CHECK(pass_enabled(o, "dce"));

  Model m;
  m.graph = std::make_unique<Graph>();
  auto error = [&](std::vector<std::string> disabled) -> std::string {
    PipelineOptions p;
    p.disabled_passes = std::move(disabled);
    try {
      run_pipeline(m, p);
    } catch (const Error &e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(error({"nope"}), Catch::Contains("--disable-pass=nope: no such pass"));
  CHECK_THAT(error({"dce"}), Catch::Contains("required and cannot be disabled"));
}

TEST_CASE("form-regions: a fused Conv is one region with a typed epilogue - backends lower it") {
  auto b = fused_and_compared([](Builder &b) {
    Value *y = b.conv(b.input("x", {1, 3, 6, 6}), 4, 1, 3, true);
    y = b.op("Clip", {y, b.constant({}, 0, 0), b.constant({}, 6, 6)})->outputs[0];
    b.output(y);
    b.output(y); // the same value twice: the second is a copy region
  });
  ExecutionPlan plan = form_regions(b->g, "m");
  REQUIRE(plan.regions.size() == 2);
  const Region &conv = plan.regions[0];
  CHECK(conv.kind == Region::Kind::Op);
  CHECK(conv.root->op_type == "Conv");
  CHECK(conv.activation.op == "Clip");
  CHECK(conv.activation.a == 0.0);
  CHECK(conv.activation.b == 6.0);
  REQUIRE(conv.fused.size() == 1);
  CHECK_THAT(conv.fused[0], Catch::Contains("Clip"));
  CHECK(plan.regions[1].kind == Region::Kind::OutputCopy);
  CHECK(plan.outputs.size() == 2);
  CHECK(plan.outputs[1] == plan.regions[1].dst);
  // Another backend's lowering sees the same regions and chooses its own kernels.
  std::vector<Region::Kind> seen;
  lower_regions(b->g, plan, [&](const Region &r) {
    seen.push_back(r.kind);
    KernelCall c = lower_region_cpu(r);
    c.kernel = "other_" + c.kernel;
    return c;
  });
  CHECK(seen == std::vector<Region::Kind>{Region::Kind::Op, Region::Kind::OutputCopy});
  REQUIRE(plan.calls.size() == 2);
  CHECK(plan.calls[0].call.kernel == "other_onnxc_k_conv_f32");
  CHECK(plan.calls[1].region == 1);
  plan_memory(plan);
  CHECK(plan.outputs[0]->storage == Storage::GraphOutput);
  CHECK(plan.outputs[1]->io_index == 1);
}
