// Control flow through the pipeline: a Loop whose body reads an outer arena value, planned as
// markers around the body's calls, with the outer value kept alive for the whole loop.
#include "compiler/frontend/onnx_loader.h"
#include "compiler/passes/pipeline.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <set>

using namespace onnxc;

namespace {

void set_type(onnx::ValueInfoProto *v, const std::string &name, int elem,
              const std::vector<int64_t> &dims) {
  v->set_name(name);
  auto *t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto *shape = t->mutable_shape();
  for (int64_t d : dims)
    shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto *add_node(onnx::GraphProto *g, const std::string &op,
                          const std::vector<std::string> &ins,
                          const std::vector<std::string> &outs) {
  auto *n = g->add_node();
  n->set_op_type(op);
  for (const auto &i : ins)
    n->add_input(i);
  for (const auto &o : outs)
    n->add_output(o);
  return n;
}

/// y = Relu(x); Loop(M) { s = Exp(s + y) } -> out. y is an arena value read only inside the loop.
/// y_first: the Add reads y as its first operand, the one whose buffer an element-wise output
/// may take over when it is not used afterwards (plan-memory's in-place reuse).
onnx::ModelProto loop_model(bool y_first = false) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto *g = m.mutable_graph();
  g->set_name("main");
  set_type(g->add_input(), "M", 7, {});
  set_type(g->add_input(), "x", 1, {64});
  add_node(g, "Relu", {"x"}, {"y"});
  auto *loop = add_node(g, "Loop", {"M", "", "x"}, {"out"});
  auto *a = loop->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  auto *body = a->mutable_g();
  body->set_name("body");
  set_type(body->add_input(), "i", 7, {});
  set_type(body->add_input(), "c", 9, {});
  set_type(body->add_input(), "s", 1, {64});
  // y's last use by position, but every iteration reads it: nothing in the loop may reuse it.
  add_node(body, "Add", y_first ? std::vector<std::string>{"y", "s"} : std::vector<std::string>{"s", "y"},
           {"a"});
  add_node(body, "Exp", {"a"}, {"s_out"});
  add_node(body, "Identity", {"c"}, {"c_out"});
  set_type(body->add_output(), "c_out", 9, {});
  set_type(body->add_output(), "s_out", 1, {64});
  set_type(g->add_output(), "out", 1, {64});
  return m;
}

} // namespace

TEST_CASE("a Loop is planned as markers, not unrolled, with outer values live across it",
          "[passes][control_flow]") {
  LoadOptions lo;
  lo.display_name = "loop.onnx";
  const bool y_first = GENERATE(false, true);
  INFO("y is the Add's " << (y_first ? "first" : "second") << " operand");
  auto model = load_model_from_bytes(loop_model(y_first).SerializeAsString(), "", lo);
  REQUIRE(model->graph->nodes[1]->inputs.size() == 4); // M, cond, x, captured y
  ExecutionPlan plan = run_pipeline(*model, PipelineOptions{});
  int begin = -1, end = -1;
  for (size_t i = 0; i < plan.calls.size(); ++i) {
    if (plan.calls[i].control == ControlMark::LoopBegin)
      begin = static_cast<int>(i);
    if (plan.calls[i].control == ControlMark::LoopEnd)
      end = static_cast<int>(i);
  }
  REQUIRE(begin >= 0);
  REQUIRE(end > begin);
  std::set<std::string> body_kernels;
  const Value *y = nullptr;
  for (int i = begin + 1; i < end; ++i)
    for (const Value *v : plan.calls[static_cast<size_t>(i)].call.args)
      if (v && v->name == "y")
        y = v;
  REQUIRE(y);
  REQUIRE(y->storage == Storage::Arena);
  // Every other arena value written inside the loop lies outside y's bytes.
  for (int i = begin + 1; i < end; ++i) {
    const KernelCall &call = plan.calls[static_cast<size_t>(i)].call;
    body_kernels.insert(call.kernel);
    const Value *out = call.args.empty() ? nullptr : call.args.back();
    if (!out || out == y || out->storage != Storage::Arena)
      continue;
    INFO("value " << out->name << " at " << out->offset << ", y at " << y->offset);
    bool disjoint = out->offset >= y->offset + 256 || y->offset >= out->offset + 256;
    CHECK(disjoint);
  }
  CHECK(body_kernels.count("onnxc_k_copy") == 1); // the carried value goes back to its buffer
  CHECK(end - begin < 10);                         // one body, whatever M is at run time
}
