#include "compiler/passes/plan_memory.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"

#include <algorithm>
#include <map>

namespace onnxc {
namespace {

constexpr int64_t kAlign = ExecutionPlan::kArenaAlignment;

int64_t align_up(int64_t v) {
  if (v > (int64_t(1) << 61))
    fail("buffer offset overflows");
  return (v + kAlign - 1) / kAlign * kAlign;
}

/// A buffer the arena must hold during calls [first, last].
struct Interval {
  int64_t size;
  int first, last;
  Value *value;    // nullptr for a scratch buffer
  int scratch_of;  // call index for scratch
  int64_t offset = 0;
};

/// Places each interval at the lowest offset free of every already placed interval whose
/// lifetime overlaps it (first fit, in order of definition). Returns the arena size.
int64_t place(std::vector<Interval> &iv) {
  std::vector<Interval *> placed;
  int64_t arena = 0;
  for (Interval &cur : iv) {
    std::vector<Interval *> live;
    for (Interval *p : placed)
      if (p->first <= cur.last && cur.first <= p->last)
        live.push_back(p);
    std::sort(live.begin(), live.end(), [](auto *a, auto *b) { return a->offset < b->offset; });
    int64_t off = 0;
    for (Interval *p : live) {
      if (off + cur.size <= p->offset)
        break;
      off = std::max(off, align_up(p->offset + p->size));
    }
    cur.offset = off;
    arena = std::max(arena, align_up(off + cur.size));
    placed.push_back(&cur);
  }
  return arena;
}

Value *output_copy(Graph &g, Value *src, ExecutionPlan &plan, int index) {
  Value *dst = g.add_value("", src->type);
  dst->name = src->name;
  dst->storage = Storage::GraphOutput;
  dst->io_index = index;
  PlannedCall pc;
  pc.call.kernel = "onnxc_k_copy";
  pc.call.args = {src, dst};
  pc.call.params = {type_bytes(src->type)};
  pc.node_desc = fmt::format("graph output '{}'", src->name);
  pc.profile = {pc.node_desc, "Copy", shape_to_string(src->type), shape_to_string(dst->type), 0};
  plan.calls.push_back(pc);
  return dst;
}

void assign_io(Graph &g, ExecutionPlan &plan) {
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    g.inputs[i]->storage = Storage::GraphInput;
    g.inputs[i]->io_index = static_cast<int>(i);
    plan.inputs.push_back(g.inputs[i]);
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    Value *v = g.outputs[i];
    if (v->producer && v->storage == Storage::Unassigned) {
      v->storage = Storage::GraphOutput;
      v->io_index = static_cast<int>(i);
      plan.outputs.push_back(v);
    } else {
      plan.outputs.push_back(output_copy(g, v, plan, static_cast<int>(i)));
    }
  }
}

void assign_weights(ExecutionPlan &plan, const PlanOptions &opts) {
  int64_t off = 0;
  for (PlannedCall &pc : plan.calls)
    for (Value *v : pc.call.args)
      if (v && v->constant && v->storage == Storage::Unassigned) {
        v->storage = Storage::Weight;
        v->offset = off;
        off = align_up(off + static_cast<int64_t>(v->constant->nbytes()));
        plan.weights.push_back(v);
      }
  if (off > opts.max_weight_bytes)
    fail("the model's weights need {} bytes, more than the limit of {} bytes; raise it with "
         "--max-weight-bytes if this is intended",
         off, opts.max_weight_bytes);
  plan.weights_size = off;
}

void assign_arena(ExecutionPlan &plan, const PlanOptions &opts) {
  std::map<Value *, size_t> index;
  std::vector<Interval> iv;
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    PlannedCall &pc = plan.calls[c];
    for (Value *v : pc.call.args) {
      if (!v || (v->storage != Storage::Unassigned && !index.count(v)))
        continue;
      auto [it, fresh] = index.emplace(v, iv.size());
      if (fresh) {
        if (v->producer == nullptr)
          fail("value '{}' is used by {} but never computed", v->name, pc.node_desc);
        iv.push_back({type_bytes(v->type), int(c), int(c), v, -1});
      }
      iv[it->second].last = int(c);
      v->storage = Storage::Arena;
    }
    if (pc.call.scratch_bytes > 0)
      iv.push_back({pc.call.scratch_bytes, int(c), int(c), nullptr, int(c)});
  }
  plan.arena_size = place(iv);
  if (plan.arena_size > opts.max_arena_bytes)
    fail("the model needs an arena of {} bytes, more than the limit of {} bytes; raise it with "
         "--max-arena-bytes if this is intended",
         plan.arena_size, opts.max_arena_bytes);
  for (const Interval &i : iv) {
    if (i.value)
      i.value->offset = i.offset;
    else
      plan.calls[static_cast<size_t>(i.scratch_of)].scratch_offset = i.offset;
  }
}

} // namespace

ExecutionPlan plan_memory(Graph &g, const std::string &model_name, const PlanOptions &opts) {
  ExecutionPlan plan;
  plan.model_name = model_name;
  for (auto &n : g.nodes) {
    PlannedCall pc;
    pc.call = n->def->lower(*n);
    for (const KernelCall::Derived &d : pc.call.derived) { // e.g. pre-packed weights
      Value *v = g.add_constant("", d.tensor);
      v->name = d.name;
      pc.call.args.at(d.slot) = v;
    }
    pc.node_desc = n->describe();
    pc.profile = describe_for_profile(*n);
    plan.calls.push_back(std::move(pc));
  }
  assign_io(g, plan);
  assign_weights(plan, opts);
  assign_arena(plan, opts);
  return plan;
}

} // namespace onnxc
