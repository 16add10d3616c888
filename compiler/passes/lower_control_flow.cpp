#include "compiler/passes/lower_control_flow.h"
#include "compiler/ir/captured.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/form_regions.h"
#include "compiler/passes/lower_regions.h"
#include "templates/cpu/scan_params.h"

#include <algorithm>
#include <cstring>

namespace onnxc {
namespace {

/// Emits the calls of one control-flow node.
class ControlLowering {
public:
  ControlLowering(Node &n, std::vector<PlannedCall> &calls) : n_(n), calls_(calls) {}

  void lower() {
    if (n_.op_type == "If")
      lower_if();
    else if (n_.op_type == "Loop")
      lower_loop();
    else
      lower_scan();
  }

private:
  PlannedCall &push(KernelCall call, const std::string &what) {
    PlannedCall pc;
    pc.call = std::move(call);
    pc.node_desc = what.empty() ? n_.describe() : n_.describe() + ": " + what;
    pc.profile = describe_for_profile(n_);
    calls_.push_back(std::move(pc));
    return calls_.back();
  }
  void mark(ControlMark m, std::vector<Value *> args) {
    push(KernelCall{"", std::move(args), {}}, "").control = m;
  }
  void copy(Value *src, Value *dst) {
    if (src == dst)
      return;
    push(KernelCall{"onnxc_k_copy", {src, dst}, {type_bytes(dst->type)}},
         fmt::format("copy of '{}'", src->name));
  }
  /// scan_slice between a per-iteration buffer and the full tensor [.., len at axis, ..].
  void slice(Value *part, Value *full, Value *iteration, int64_t axis, bool reverse, bool scatter) {
    std::vector<int64_t> dims = full->type.static_dims();
    onnxc_k::ScanSliceParams p{1, dims[static_cast<size_t>(axis)], 0, reverse, scatter};
    for (int64_t d = 0; d < axis; ++d)
      p.outer *= dims[static_cast<size_t>(d)];
    int64_t bytes = type_bytes(part->type);
    if (p.outer == 0 || bytes % p.outer != 0)
      node_fail(n_, "scan value '{}' of type {} cannot be sliced by bytes", full->name,
                dtype_name(full->type.dtype));
    p.inner_bytes = bytes / p.outer;
    KernelCall call{"onnxc_k_scan_slice", {part, full, iteration}, {}};
    set_params(call, p);
    push(std::move(call), fmt::format("slice of '{}'", full->name));
  }

  /// The body's stand-ins become the outer values; its inputs become buffers of this node.
  void bind(Graph &body) {
    if (const Attribute *c = n_.attr(kCapturedAttr))
      for (size_t k = 0; k < c->strings.size(); ++k) {
        Value *s = body.find_value(c->strings[k]);
        if (!s || !is_outer_stand_in(*s))
          continue;
        Value *outer = n_.inputs[explicit_input_count(n_) + k];
        bool was_output = outer->is_graph_output;
        body.replace_all_uses_with(s, outer);
        outer->is_graph_output = was_output;
      }
    for (Value *in : body.inputs)
      in->producer = &n_;
  }

  void lower_if() {
    Graph &then_g = subgraph(n_, "then_branch"), &else_g = subgraph(n_, "else_branch");
    mark(ControlMark::IfBegin, {n_.inputs[0]});
    const Attribute *uncompiled = n_.attr(kUncompiledBranchAttr);
    for (Graph *branch : {&then_g, &else_g}) {
      if (branch == &else_g)
        mark(ControlMark::Else, {});
      const char *name = branch == &then_g ? "then_branch" : "else_branch";
      if (uncompiled && uncompiled->strings.at(0) == name) {
        push(KernelCall{"onnxc_k_branch_not_compiled", {}, {}},
             fmt::format("{} was not compiled for these input shapes ({})", name,
                         uncompiled->strings.at(1)));
        continue;
      }
      bind(*branch);
      lower_nodes(*branch, calls_);
      for (size_t k = 0; k < n_.outputs.size(); ++k)
        copy(branch->outputs[k], n_.outputs[k]);
    }
    mark(ControlMark::EndIf, {});
  }

  /// Copies outs[j] into ins[j] for every j, as if simultaneously: an output that is itself
  /// one of the body's inputs goes through a temporary first.
  void carry(Graph &body, const std::vector<Value *> &outs, const std::vector<Value *> &ins) {
    std::vector<Value *> src = outs;
    for (size_t j = 0; j < src.size(); ++j) {
      bool is_input =
          std::find(body.inputs.begin(), body.inputs.end(), src[j]) != body.inputs.end();
      if (!is_input || src[j] == ins[j])
        continue;
      Value *tmp = body.add_value(body.unique_name(src[j]->name + "_carry"), src[j]->type);
      tmp->producer = &n_;
      copy(src[j], tmp);
      src[j] = tmp;
    }
    for (size_t j = 0; j < src.size(); ++j)
      copy(src[j], ins[j]);
  }

  Value *constant(Graph &body, DType dt, int64_t v) {
    auto t = std::make_shared<Tensor>(dt, std::vector<int64_t>{});
    if (dt == DType::Bool)
      *t->data() = static_cast<uint8_t>(v);
    else
      std::memcpy(t->data(), &v, sizeof v);
    return body.add_constant(body.unique_name(n_.name + "_const"), t);
  }

  void lower_loop() {
    Graph &body = subgraph(n_, "body");
    bind(body);
    size_t states = explicit_input_count(n_) - 2;
    Value *iteration = body.inputs[0], *cond = body.inputs[1];
    copy(n_.input(1) ? n_.input(1) : constant(body, DType::Bool, 1), cond);
    for (size_t j = 0; j < states; ++j)
      copy(n_.inputs[2 + j], body.inputs[2 + j]);
    for (size_t k = 0; k + states + 1 < body.outputs.size(); ++k) // run-shaped scans start anew
      if (Value *full = n_.outputs[states + k]; full->run_time_data())
        push(KernelCall{"onnxc_k_scan_begin", {full}, {}},
             fmt::format("scan output '{}'", full->name))
            .run_time_data.push_back({RunTimeData::Kind::Key, 0});
    mark(ControlMark::LoopBegin, {iteration, n_.input(0), cond});
    lower_nodes(body, calls_);
    std::vector<size_t> run_shaped; // scan outputs whose length the run decides
    for (size_t k = 0; k + states + 1 < body.outputs.size(); ++k) {
      Value *part = body.outputs[1 + states + k], *full = n_.outputs[states + k];
      if (!full->run_time_data()) {
        slice(part, full, iteration, 0, false, true);
        continue;
      }
      KernelCall call{"onnxc_k_scan_append", {part, full, iteration}, {}};
      set_params(call, onnxc_k::ScanAppendParams{type_bytes(part->type)});
      push(std::move(call), fmt::format("scan output '{}'", full->name))
          .run_time_data.push_back({RunTimeData::Kind::Key, 1});
      run_shaped.push_back(k);
    }
    std::vector<Value *> outs(body.outputs.begin(), body.outputs.begin() + 1 + states);
    std::vector<Value *> ins(body.inputs.begin() + 1, body.inputs.end());
    carry(body, outs, ins);
    mark(ControlMark::LoopEnd, {iteration, n_.input(0), cond});
    for (size_t k : run_shaped) { // its shape: [iterations run, the slice's dims]
      const std::vector<int64_t> dims = body.outputs[1 + states + k]->type.static_dims();
      onnxc_k::ScanFinishParams p{static_cast<int64_t>(dims.size()), {}};
      if (dims.size() > 7)
        node_fail(n_, "scan output {} has rank {}; a run-shaped scan output supports 8 at most", k,
                  dims.size() + 1);
      std::copy(dims.begin(), dims.end(), p.dims);
      KernelCall call{"onnxc_k_scan_finish", {iteration, n_.outputs[states + k]}, {}};
      set_params(call, p);
      push(std::move(call), fmt::format("scan output '{}'", n_.outputs[states + k]->name))
          .run_time_data.push_back({RunTimeData::Kind::Key, 1});
    }
    for (size_t j = 0; j < states; ++j)
      copy(body.inputs[2 + j], n_.outputs[j]);
  }

  std::vector<int64_t> axes(const char *name, size_t count) const {
    std::vector<int64_t> v = attr_ints(n_, name, {});
    v.resize(count, 0);
    return v;
  }

  void lower_scan() {
    Graph &body = subgraph(n_, "body");
    bind(body);
    size_t m = static_cast<size_t>(attr_int(n_, "num_scan_inputs", 0));
    size_t states = explicit_input_count(n_) - m, scans = n_.outputs.size() - states;
    Value *iteration =
        body.add_value(body.unique_name("scan_iteration"), Type::of(DType::Int64, {}));
    iteration->producer = &n_;
    Value *trips = constant(body, DType::Int64, static_trip_count(n_));
    std::vector<int64_t> in_axes = axes("scan_input_axes", m),
                         in_dirs = axes("scan_input_directions", m),
                         out_axes = axes("scan_output_axes", scans),
                         out_dirs = axes("scan_output_directions", scans);
    for (size_t j = 0; j < states; ++j)
      copy(n_.inputs[j], body.inputs[j]);
    mark(ControlMark::LoopBegin, {iteration, trips, nullptr});
    for (size_t k = 0; k < m; ++k) {
      Value *full = n_.inputs[states + k];
      int64_t rank = full->type.rank();
      slice(body.inputs[states + k], full, iteration, (in_axes[k] + rank) % rank, in_dirs[k] != 0,
            false);
    }
    lower_nodes(body, calls_);
    for (size_t k = 0; k < scans; ++k) {
      Value *full = n_.outputs[states + k];
      int64_t rank = full->type.rank();
      slice(body.outputs[states + k], full, iteration, (out_axes[k] + rank) % rank,
            out_dirs[k] != 0, true);
    }
    carry(body, std::vector<Value *>(body.outputs.begin(), body.outputs.begin() + states),
          std::vector<Value *>(body.inputs.begin(), body.inputs.begin() + states));
    mark(ControlMark::LoopEnd, {iteration, trips, nullptr});
    for (size_t j = 0; j < states; ++j)
      copy(body.inputs[j], n_.outputs[j]);
  }

  Node &n_;
  std::vector<PlannedCall> &calls_;
};

} // namespace

void lower_control_flow(Node &n, std::vector<PlannedCall> &calls) {
  ControlLowering(n, calls).lower();
}

void lower_nodes(Graph &g, std::vector<PlannedCall> &calls) {
  for (auto &n : g.nodes) {
    if (is_control_flow(*n)) {
      ControlLowering(*n, calls).lower();
      continue;
    }
    PlannedCall pc;
    pc.call = n->def->lower(*n);
    attach_derived(g, pc.call);
    pc.node_desc = n->describe();
    pc.profile = describe_for_profile(*n);
    calls.push_back(std::move(pc));
    if (Value *src = shape_copy_source(*n)) // as form_regions' ShapeCopy regions
      for (Value *o : n->outputs)
        if (o) {
          PlannedCall copy;
          copy.call = KernelCall{"onnxc_k_copy_run_time_shape", {src, o}, {}};
          copy.node_desc = n->describe();
          copy.profile = {copy.node_desc, "ShapeCopy", shape_to_string(src->type),
                          shape_to_string(o->type), 0};
          calls.push_back(std::move(copy));
        }
  }
}

std::vector<std::pair<int, int>> loop_ranges(const std::vector<PlannedCall> &calls) {
  std::vector<std::pair<int, int>> ranges;
  std::vector<int> open;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].control == ControlMark::LoopBegin)
      open.push_back(static_cast<int>(i));
    if (calls[i].control == ControlMark::LoopEnd) {
      if (open.empty())
        fail("internal error: LoopEnd without LoopBegin in the plan");
      ranges.emplace_back(open.back(), static_cast<int>(i)); // inner loops close first
      open.pop_back();
    }
  }
  return ranges;
}

} // namespace onnxc
