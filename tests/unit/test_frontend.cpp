// The ONNX loader: models built in memory with the onnx::ModelProto API, serialized, loaded, and
// checked on the IR they produce; malformed models must fail with a message naming the problem.
#include "compiler/frontend/onnx_loader.h"
#include "compiler/ir/captured.h"
#include "compiler/ir/error.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <variant>

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

using DimSpec = std::variant<int64_t, std::string, std::monostate>; // static, symbolic, missing

void set_type(onnx::ValueInfoProto *vi, const std::string &name, int elem,
              const std::vector<DimSpec> &dims) {
  vi->set_name(name);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto *shape = tt->mutable_shape();
  for (const DimSpec &d : dims) {
    auto *dim = shape->add_dim();
    if (auto *v = std::get_if<int64_t>(&d))
      dim->set_dim_value(*v);
    else if (auto *s = std::get_if<std::string>(&d))
      dim->set_dim_param(*s);
  }
}

onnx::NodeProto *add_node(onnx::GraphProto *g, const std::string &op,
                          const std::vector<std::string> &ins, const std::vector<std::string> &outs,
                          const std::string &name = "") {
  auto *n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto &i : ins)
    n->add_input(i);
  for (const auto &o : outs)
    n->add_output(o);
  return n;
}

onnx::TensorProto *add_initializer(onnx::GraphProto *g, const std::string &name,
                                   std::vector<float> v) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(1);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (float f : v)
    t->add_float_data(f);
  return t;
}

/// A model importing ai.onnx opset 17, with an empty graph "main".
onnx::ModelProto new_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("onnxc-test");
  m.set_producer_version("1.0");
  auto *op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  m.mutable_graph()->set_name("main");
  return m;
}

std::unique_ptr<Model> load(const onnx::ModelProto &m, const std::string &dir = "") {
  LoadOptions opts;
  opts.display_name = "test.onnx";
  return load_model_from_bytes(m.SerializeAsString(), dir, opts);
}

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

std::string load_error(const onnx::ModelProto &m) {
  return error_of([&] { load(m); });
}

/// x: float [batch, 3, ?] -> Relu -> y, with initializer w and value_info for the Relu output.
onnx::ModelProto relu_model() {
  onnx::ModelProto m = new_model();
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", 1, {std::string("batch"), int64_t(3), std::monostate{}});
  add_initializer(g, "w", {1.f, 2.f, 3.f});
  add_node(g, "Add", {"x", "w"}, {"s"}, "add");
  add_node(g, "Relu", {"s"}, {"y"}, "relu");
  set_type(g->add_value_info(), "s", 1, {std::string("batch"), int64_t(3), int64_t(4)});
  set_type(g->add_output(), "y", 1, {std::string("batch"), int64_t(3), int64_t(4)});
  return m;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "onnxc_fe_XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

} // namespace

TEST_CASE("model metadata, inputs, outputs and types", "[frontend]") {
  auto model = load(relu_model());
  CHECK(model->ir_version == 8);
  CHECK(model->producer == "onnxc-test 1.0");
  CHECK(model->path == "test.onnx");
  CHECK(model->opsets.at("") == 17);
  Graph &g = *model->graph;
  CHECK(g.name == "main");
  REQUIRE(g.inputs.size() == 1);
  Value *x = g.inputs[0];
  CHECK(x->name == "x");
  CHECK(x->is_graph_input);
  CHECK(x->type.dtype == DType::Float);
  REQUIRE(x->type.shape);
  CHECK((*x->type.shape)[0] == Dim::symbolic("batch"));
  CHECK((*x->type.shape)[1] == Dim(3));
  CHECK(!(*x->type.shape)[2].is_static());
  CHECK((*x->type.shape)[2].param.empty());
  CHECK(shape_to_string(g.find_value("s")->type) == "batchx3x4");
  REQUIRE(g.outputs.size() == 1);
  CHECK(g.outputs[0]->name == "y");
  CHECK(g.outputs[0]->is_graph_output);
  CHECK(g.outputs[0]->producer == g.nodes[1].get());
  CHECK(shape_to_string(g.outputs[0]->type) == "batchx3x4");
}

TEST_CASE("initializers are constants, also when listed as inputs (IR < 4)", "[frontend]") {
  onnx::ModelProto m = relu_model();
  m.set_ir_version(3);
  set_type(m.mutable_graph()->add_input(), "w", 1, {int64_t(3)});
  auto model = load(m);
  Graph &g = *model->graph;
  REQUIRE(g.inputs.size() == 1);
  REQUIRE(g.initializers.size() == 1);
  Value *w = g.initializers[0];
  CHECK(w->name == "w");
  CHECK(w->is_constant());
  CHECK(!w->is_graph_input);
  CHECK(w->constant->float_at(2) == 3.0);
  CHECK(shape_to_string(w->type) == "3");
  CHECK(g.nodes[0]->inputs[1] == w);
  REQUIRE(w->uses.size() == 1);
  CHECK(w->uses[0].node == g.nodes[0].get());
  CHECK(w->uses[0].index == 1);
}

TEST_CASE("nodes: index, opset, domain, unknown ops, optional inputs and outputs", "[frontend]") {
  onnx::ModelProto m = new_model();
  auto *ml = m.add_opset_import();
  ml->set_domain("com.example");
  ml->set_version(3);
  auto *onnx_domain = m.mutable_opset_import(0);
  onnx_domain->set_domain("ai.onnx");
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", 1, {int64_t(2)});
  add_node(g, "Clip", {"x", "", "x"}, {"c"}, "clip");
  add_node(g, "Dropout", {"c"}, {"d", ""}, "drop");
  add_node(g, "FancyOp", {"d"}, {"y"}, "fancy")->set_domain("com.example");
  set_type(g->add_output(), "y", 1, {int64_t(2)});
  auto model = load(m);
  Graph &gr = *model->graph;
  CHECK(model->opsets.at("") == 17);
  CHECK(model->opsets.at("com.example") == 3);
  REQUIRE(gr.nodes.size() == 3);
  Node &clip = *gr.nodes[0];
  CHECK(clip.index == 0);
  CHECK(clip.opset == 17);
  CHECK(clip.domain.empty());
  REQUIRE(clip.inputs.size() == 3);
  CHECK(clip.inputs[1] == nullptr);
  CHECK(clip.inputs[2] == gr.inputs[0]);
  Node &drop = *gr.nodes[1];
  REQUIRE(drop.outputs.size() == 2);
  CHECK(!drop.outputs[1]->name.empty());
  CHECK(drop.outputs[1]->name != "d");
  CHECK(drop.outputs[1]->producer == &drop);
  CHECK(drop.outputs[1]->producer_index == 1);
  Node &fancy = *gr.nodes[2];
  CHECK(fancy.domain == "com.example");
  CHECK(fancy.opset == 3);
  CHECK(fancy.def == nullptr); // unknown ops load; a later pass reports them
  CHECK(fancy.describe() == "node 'fancy' (com.example.FancyOp, #2)");
}

TEST_CASE("attributes of every kind", "[frontend]") {
  onnx::ModelProto m = new_model();
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", 1, {int64_t(2)});
  auto *n = add_node(g, "Custom", {"x"}, {"y"}, "custom");
  using AP = onnx::AttributeProto;
  auto attr = [&](const char *name, AP::AttributeType t) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(t);
    return a;
  };
  attr("f", AP::FLOAT)->set_f(0.5f);
  attr("i", AP::INT)->set_i(-3);
  attr("s", AP::STRING)->set_s("hello");
  auto *t = attr("t", AP::TENSOR)->mutable_t();
  t->set_data_type(7);
  t->add_dims(2);
  t->add_int64_data(4);
  t->add_int64_data(5);
  auto *fs_ = attr("fs", AP::FLOATS);
  fs_->add_floats(1.f);
  fs_->add_floats(2.f);
  auto *is = attr("is", AP::INTS);
  is->add_ints(7);
  is->add_ints(8);
  auto *ss = attr("ss", AP::STRINGS);
  ss->add_strings("a");
  ss->add_strings("b");
  auto *ts = attr("ts", AP::TENSORS)->add_tensors();
  ts->set_data_type(1);
  ts->add_float_data(9.f);
  attr("sp", AP::SPARSE_TENSOR);
  attr("tp", AP::TYPE_PROTO);
  auto *old = n->add_attribute(); // IR v1 style: no type field
  old->set_name("old");
  old->set_i(11);
  m.mutable_opset_import(0)->set_version(17);
  n->set_domain("");
  set_type(g->add_output(), "y", 1, {int64_t(2)});
  auto model = load(m);
  const Node &node = *model->graph->nodes[0];
  using K = Attribute::Kind;
  CHECK(node.attr("f")->kind == K::Float);
  CHECK(node.attr("f")->f == 0.5f);
  CHECK(node.attr("i")->i == -3);
  CHECK(node.attr("s")->s == "hello");
  CHECK(node.attr("t")->t->to_int64_vector() == std::vector<int64_t>{4, 5});
  CHECK(node.attr("fs")->floats == std::vector<float>{1.f, 2.f});
  CHECK(node.attr("is")->ints == std::vector<int64_t>{7, 8});
  CHECK(node.attr("ss")->strings == std::vector<std::string>{"a", "b"});
  REQUIRE(node.attr("ts")->tensors.size() == 1);
  CHECK(node.attr("ts")->tensors[0]->float_at(0) == 9.0);
  CHECK(node.attr("sp")->kind == K::SparseTensor);
  CHECK(node.attr("tp")->kind == K::TypeProto);
  CHECK(node.attr("old")->kind == K::Int);
  CHECK(node.attr("old")->i == 11);
  CHECK(node.attr("missing") == nullptr);
}

TEST_CASE("Constant nodes keep their value as the tensor attribute 'value'", "[frontend]") {
  onnx::ModelProto m = new_model();
  auto *g = m.mutable_graph();
  auto constant = [&](const std::string &out, const char *attr_name,
                      onnx::AttributeProto::AttributeType type) {
    auto *a = add_node(g, "Constant", {}, {out})->add_attribute();
    a->set_name(attr_name);
    a->set_type(type);
    set_type(g->add_output(), out, 0, {});
    return a;
  };
  using AP = onnx::AttributeProto;
  constant("a", "value_float", AP::FLOAT)->set_f(2.5f);
  auto *b = constant("b", "value_ints", AP::INTS);
  b->add_ints(1);
  b->add_ints(2);
  constant("c", "value_string", AP::STRING)->set_s("hi");
  auto *d = constant("d", "value", AP::TENSOR)->mutable_t();
  d->set_data_type(6);
  d->add_int32_data(7);
  auto model = load(m);
  auto value = [&](int i) { return model->graph->nodes[static_cast<size_t>(i)]->attr("value"); };
  for (int i = 0; i < 4; ++i) {
    REQUIRE(value(i));
    CHECK(value(i)->kind == Attribute::Kind::Tensor);
    CHECK(model->graph->nodes[static_cast<size_t>(i)]->attrs.size() == 1);
  }
  CHECK(value(0)->t->dtype() == DType::Float);
  CHECK(value(0)->t->shape().empty());
  CHECK(value(0)->t->float_at(0) == 2.5);
  CHECK(value(1)->t->dtype() == DType::Int64);
  CHECK(value(1)->t->to_int64_vector() == std::vector<int64_t>{1, 2});
  CHECK(value(2)->t->strings() == std::vector<std::string>{"hi"});
  CHECK(value(3)->t->int_at(0) == 7);

  onnx::ModelProto empty = new_model();
  add_node(empty.mutable_graph(), "Constant", {}, {"k"}, "k");
  CHECK_THAT(load_error(empty), Catch::Contains("node 'k' (Constant, #0) has no value attribute"));
}

TEST_CASE("subgraphs have a parent and see outer values by name", "[frontend]") {
  onnx::ModelProto m = new_model();
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "cond", 9, {});
  set_type(g->add_input(), "x", 1, {int64_t(2)});
  auto *n = add_node(g, "If", {"cond"}, {"y"}, "if");
  for (const char *branch : {"then_branch", "else_branch"}) {
    auto *a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto *body = a->mutable_g();
    body->set_name(branch);
    add_node(body, "Neg", {"x"}, {std::string(branch) + "_out"});
    set_type(body->add_output(), std::string(branch) + "_out", 1, {int64_t(2)});
  }
  add_node(g, "Relu", {"x"}, {"unused"}); // a later node the subgraph does not see
  set_type(g->add_output(), "y", 1, {int64_t(2)});
  auto model = load(m);
  Graph &main = *model->graph;
  const Attribute *then_b = main.nodes[0]->attr("then_branch");
  REQUIRE(then_b);
  REQUIRE(then_b->kind == Attribute::Kind::Graph);
  Graph &body = *then_b->g;
  CHECK(body.parent == &main);
  CHECK(body.name == "then_branch");
  CHECK(body.inputs.empty());
  REQUIRE(body.nodes.size() == 1);
  Value *captured = body.nodes[0]->inputs[0];
  REQUIRE(captured);
  CHECK(captured->name == "x");
  CHECK(captured != main.find_value("x")); // a stand-in of the subgraph ...
  CHECK(!captured->producer);
  CHECK(!captured->is_graph_input);
  CHECK(shape_to_string(captured->type) == "2"); // ... with the outer value's type
  // The If captures x as an extra input after its own (kCapturedAttr names it), so the
  // enclosing graph sees that use; the later Relu is the other one.
  Node &if_node = *main.nodes[0];
  REQUIRE(if_node.inputs.size() == 2);
  CHECK(if_node.inputs[1] == main.find_value("x"));
  REQUIRE(if_node.attr(kCapturedAttr));
  CHECK(if_node.attr(kCapturedAttr)->strings == std::vector<std::string>{"x"});
  CHECK(explicit_input_count(if_node) == 1);
  CHECK(main.find_value("x")->uses.size() == 2);
  CHECK(body.outputs[0]->name == "then_branch_out");
}

TEST_CASE("a subgraph's outer reference orders its node after the producer", "[frontend]") {
  onnx::ModelProto m = new_model();
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "cond", 9, {});
  set_type(g->add_input(), "x", 1, {int64_t(2)});
  auto *n = add_node(g, "If", {"cond"}, {"y"}, "if");
  auto *a = n->add_attribute();
  a->set_name("then_branch");
  a->set_type(onnx::AttributeProto::GRAPH);
  set_type(a->mutable_g()->add_output(), "t", 1, {int64_t(2)}); // output is the outer value t
  add_node(g, "Neg", {"x"}, {"t"}, "neg");                      // defined after the If
  set_type(g->add_output(), "y", 1, {int64_t(2)});
  auto model = load(m);
  REQUIRE(model->graph->nodes.size() == 2);
  CHECK(model->graph->nodes[0]->op_type == "Neg");
  CHECK(model->graph->nodes[1]->op_type == "If");
}

TEST_CASE("unsorted nodes are sorted stably", "[frontend]") {
  onnx::ModelProto m = new_model();
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", 1, {int64_t(2)});
  add_node(g, "Relu", {"b"}, {"c"}, "third");
  add_node(g, "Neg", {"x"}, {"a"}, "first");
  add_node(g, "Abs", {"a"}, {"b"}, "second");
  add_node(g, "Exp", {"x"}, {"e"}, "independent");
  set_type(g->add_output(), "c", 1, {int64_t(2)});
  set_type(g->add_output(), "e", 1, {int64_t(2)});
  auto model = load(m);
  std::vector<std::string> order;
  for (auto &n : model->graph->nodes)
    order.push_back(n->name);
  CHECK(order == std::vector<std::string>{"first", "second", "third", "independent"});
  CHECK(model->graph->nodes[2]->index == 0); // index stays the position in the file
}

TEST_CASE("structural errors name the node, op and value", "[frontend][errors]") {
  SECTION("cycle") {
    onnx::ModelProto m = new_model();
    auto *g = m.mutable_graph();
    add_node(g, "Neg", {"b"}, {"a"}, "n1");
    add_node(g, "Abs", {"a"}, {"b"}, "n2");
    CHECK_THAT(load_error(m), Catch::Contains("test.onnx: the graph has a cycle") &&
                                  Catch::Contains("node 'n1' (Neg, #0)") &&
                                  Catch::Contains("node 'n2' (Abs, #1)"));
  }
  SECTION("undefined input") {
    onnx::ModelProto m = new_model();
    add_node(m.mutable_graph(), "Relu", {"ghost"}, {"y"}, "r");
    CHECK_THAT(load_error(m), Catch::Contains("test.onnx: node 'r' (Relu, #0) reads 'ghost'") &&
                                  Catch::Contains("no node, graph input or initializer"));
  }
  SECTION("value produced twice") {
    onnx::ModelProto m = new_model();
    auto *g = m.mutable_graph();
    set_type(g->add_input(), "x", 1, {});
    add_node(g, "Neg", {"x"}, {"y"}, "n1");
    add_node(g, "Abs", {"x"}, {"y"}, "n2");
    CHECK_THAT(load_error(m), Catch::Contains("value 'y' is produced twice"));
    onnx::ModelProto m2 = new_model();
    set_type(m2.mutable_graph()->add_input(), "x", 1, {});
    add_node(m2.mutable_graph(), "Neg", {"x"}, {"x"}, "self");
    CHECK_THAT(load_error(m2), Catch::Contains("node 'self' (Neg, #0)"));
  }
  SECTION("domain not imported") {
    onnx::ModelProto m = new_model();
    auto *g = m.mutable_graph();
    set_type(g->add_input(), "x", 1, {});
    add_node(g, "Thing", {"x"}, {"y"}, "t")->set_domain("com.unknown");
    CHECK_THAT(load_error(m),
               Catch::Contains("test.onnx: node 't' (com.unknown.Thing, #0) uses operator "
                               "domain 'com.unknown', which the model does not import"));
  }
  SECTION("graph output never produced") {
    onnx::ModelProto m = new_model();
    set_type(m.mutable_graph()->add_output(), "nowhere", 1, {});
    CHECK_THAT(load_error(m), Catch::Contains("graph output 'nowhere' is not produced"));
  }
  SECTION("initializer data mismatching its dims") {
    onnx::ModelProto m = new_model();
    add_initializer(m.mutable_graph(), "w", {1.f, 2.f})->set_dims(0, 3);
    CHECK_THAT(load_error(m), Catch::Contains("test.onnx: tensor 'w': has 2 values in float_data"));
  }
  SECTION("unknown element type of an input") {
    onnx::ModelProto m = new_model();
    set_type(m.mutable_graph()->add_input(), "x", 77, {});
    CHECK_THAT(load_error(m), Catch::Contains("value 'x' has element type 77"));
  }
  SECTION("no graph") {
    onnx::ModelProto m = new_model();
    m.clear_graph();
    CHECK_THAT(load_error(m), Catch::Contains("has no graph"));
  }
}

TEST_CASE("malformed bytes never crash the loader", "[frontend][errors]") {
  std::string good = relu_model().SerializeAsString();
  for (size_t cut : {size_t(1), good.size() / 3, good.size() / 2, good.size() - 1}) {
    std::string bytes = good.substr(0, cut);
    try {
      load_model_from_bytes(bytes, "");
    } catch (const Error &e) {
      CHECK_THAT(e.what(), Catch::StartsWith("<in-memory model>:"));
    }
  }
  CHECK_THAT(error_of([] { load_model_from_bytes("\xff\xff\xff\xff\xff", ""); }),
             Catch::Contains("not a valid ONNX model"));
  CHECK_THAT(error_of([] { load_model("/nonexistent/model.onnx"); }),
             Catch::Contains("/nonexistent/model.onnx: cannot read the model: no such file"));
}

TEST_CASE("nesting beyond the recursion limit is refused", "[frontend][errors]") {
  onnx::ModelProto m = new_model();
  onnx::GraphProto *g = m.mutable_graph();
  for (int depth = 0; depth < 60; ++depth) { // 3 messages per level: 180 > 100
    auto *a = add_node(g, "If", {}, {"o"})->add_attribute();
    a->set_name("then_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    g = a->mutable_g();
  }
  CHECK_THAT(load_error(m), Catch::Contains("nests subgraphs deeper than 100"));
}

TEST_CASE("external data through load_model", "[frontend][external]") {
  TempDir dir;
  onnx::ModelProto m = relu_model();
  auto *w = m.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto *loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  std::vector<float> v{4.f, 5.f, 6.f};
  std::ofstream(dir.path / "weights.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(v.data()), 12);
  std::string path = (dir.path / "model.onnx").string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  {
    auto model = load_model(path);
    CHECK(model->path == path);
    CHECK(model->graph->initializers[0]->constant->float_at(1) == 5.0);
  }
  loc->set_value("../weights.bin");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << m.SerializeAsString();
  CHECK_THAT(error_of([&] { load_model(path); }),
             Catch::Contains(path + ": tensor 'w': external data location '../weights.bin' "
                                    "contains '..'"));
  CHECK_THAT(load_error(m), Catch::Contains("loaded from memory"));
}

namespace {
void check_real_model(const std::string &rel, size_t min_nodes) {
  fs::path p = fs::path(ONNXC_TESTDATA_DIR) / rel;
  if (!fs::exists(p)) {
    WARN("test data not found: " << p.string());
    return;
  }
  auto model = load_model(p.string());
  Graph &g = *model->graph;
  CHECK(g.nodes.size() >= min_nodes);
  CHECK(!g.inputs.empty());
  CHECK(!g.outputs.empty());
  for (auto &n : g.nodes) {
    CHECK(n->opset > 0);
    for (Value *in : n->inputs)
      CHECK((in == nullptr || in->producer || in->is_graph_input || in->is_constant()));
  }
  for (Value *in : g.inputs)
    CHECK(!in->is_constant());
}
} // namespace

TEST_CASE("loads real models: mnist-8 and super-resolution-10", "[frontend][testdata]") {
  check_real_model("models/mnist-8/model.onnx", 10);
  check_real_model("models/super-resolution-10/model.onnx", 10);
  fs::path mnist = fs::path(ONNXC_TESTDATA_DIR) / "models/mnist-8/model.onnx";
  if (fs::exists(mnist)) {
    auto model = load_model(mnist.string());
    REQUIRE(model->graph->inputs.size() == 1);
    CHECK(shape_to_string(model->graph->inputs[0]->type) == "1x1x28x28");
    CHECK(!model->graph->initializers.empty());
  }
}
