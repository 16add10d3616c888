#include "compiler/passes/lower_regions.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_util.h"
#include "compiler/ops/run_time_data_ops.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/lower_control_flow.h"

#include <algorithm>

namespace onnxc {

KernelCall lower_region_cpu(const Region &r) {
  if (r.kind == Region::Kind::OutputCopy)
    return KernelCall{"onnxc_k_copy", {r.src, r.dst}, {type_bytes(r.src->type)}};
  if (r.kind == Region::Kind::ShapeCopy) // templates/cpu/shaped.cpp
    return KernelCall{"onnxc_k_copy_run_time_shape", {r.src, r.dst}, {}};
  return r.root->def->lower(*r.root);
}

void attach_derived(Graph &g, KernelCall &call, std::map<const Tensor *, Value *> *attached) {
  for (const KernelCall::Derived &d : call.derived) { // e.g. pre-packed weights
    Value *v = attached && attached->count(d.tensor.get()) ? attached->at(d.tensor.get()) : nullptr;
    if (!v) {
      v = g.add_constant("", d.tensor);
      v->name = d.name;
      if (attached)
        (*attached)[d.tensor.get()] = v;
    }
    call.args.at(d.slot) = v;
  }
  call.derived.clear();
}

namespace {

/// Region r's root node computes element for element over `src` (an element-wise op of a value
/// whose data lives in run-scoped memory): lowered with src's shape (and that of the operands
/// and outputs of its shape) as [1, ..., 1, N] for several N, its params words must all be
/// constant or affine in N; those become ShapeWords of src's run-time element count.
std::pair<KernelCall, std::vector<ShapeWord>>
lower_over_run_time_count(const Region &r, const Value &src, const RegionLowering &lower) {
  Node &n = *r.root;
  const size_t rank = src.type.rank();
  if (rank == 0)
    node_fail(n, "internal error: a value shaped at run time has rank 0");
  std::vector<std::pair<Value *, Type>> saved; // types to restore
  for (Value *v : n.inputs)
    if (v && v->run_time_shape_root == src.run_time_shape_root && !v->run_time_shape_from.empty())
      saved.emplace_back(v, v->type);
  for (Value *v : n.outputs)
    if (v)
      saved.emplace_back(v, v->type);
  auto lower_at = [&](int64_t count) {
    struct Restore { // the types as they were, also when the lowering throws
      std::vector<std::pair<Value *, Type>> &saved;
      ~Restore() {
        for (auto &[v, t] : saved)
          v->type = t;
      }
    } restore{saved};
    std::vector<int64_t> dims(rank, 1);
    dims.back() = count;
    for (auto &[v, t] : saved)
      v->type = Type::of(t.dtype, dims);
    return lower(r);
  };
  constexpr int64_t kFirst = 2, kProbes[] = {3, 7, 64, 1000};
  KernelCall base = lower_at(kFirst);
  std::vector<KernelCall> probes;
  for (int64_t c : kProbes)
    probes.push_back(lower_at(c));
  auto refuse = [&](const std::string &why) {
    node_fail(n,
              "input '{}' has a shape that values computed at run time decide with no bound, and "
              "{}'s kernel cannot take its element count at run time ({}): the input '{}' that "
              "decides it must be a compile-time constant here; {}",
              src.name, n.op_type, why, src.run_time_shape_from, src.run_time_shape_trace);
  };
  if (!base.derived.empty() || base.scratch_bytes != 0)
    refuse("it needs derived constants or scratch memory");
  std::vector<ShapeWord> words;
  const auto at = std::find(base.args.begin(), base.args.end(), &src);
  if (at == base.args.end())
    refuse("its kernel does not take the input as an operand");
  const size_t src_arg = static_cast<size_t>(at - base.args.begin());
  for (const KernelCall &p : probes)
    if (p.kernel != base.kernel || p.args != base.args || p.params.size() != base.params.size() ||
        p.scratch_bytes != 0 || !p.derived.empty())
      refuse("its kernel or operands change with the count");
  for (size_t w = 0; w < base.params.size(); ++w) {
    const int64_t scale = probes[0].params[w] - base.params[w]; // kProbes[0] == kFirst + 1
    const int64_t value = base.params[w] - scale * kFirst;
    for (size_t k = 0; k < probes.size(); ++k)
      if (probes[k].params[w] != value + scale * kProbes[k])
        refuse(fmt::format("params word {} is not affine in it", w));
    if (scale != 0)
      words.push_back(ShapeWord{w, src_arg, -1, value, scale});
  }
  base.inplace.clear(); // an output's arena slot names it: it must not be its input's
  return {std::move(base), std::move(words)};
}

/// Marks the operands of pc (lowering region r) whose data lives in run-scoped memory
/// (Value::run_time_data), and lowers an element-wise op of one over its run-time count.
void lower_run_time_data(const Region &r, PlannedCall &pc, const RegionLowering &lower) {
  if (r.kind != Region::Kind::Op) {
    for (const Value *v : pc.call.args)
      if (v && v->run_time_data())
        fail("internal error: {} copies a value whose data lives in run-scoped memory", r.desc);
    return;
  }
  const Node &n = *r.root;
  // An element-wise op's input with no bound (infer-shapes admits no other with a bound beside
  // it); ops that read their inputs' shapes from the run lower themselves.
  const Value *src = first_run_time_shaped_input(n);
  if (!src || !src->run_time_data() || n.def->run_time_shaped_input ||
      n.def->run_time_shaped_inputs || is_run_time_data_op(n))
    src = nullptr;
  if (src) {
    auto [call, words] = lower_over_run_time_count(r, *src, lower);
    pc.call = std::move(call);
    pc.call.shape_words = std::move(words);
  }
  const KernelCall &call = pc.call;
  size_t src_arg = 0;
  for (size_t j = 0; j < call.args.size(); ++j)
    if (src && call.args[j] == src)
      src_arg = j;
  for (size_t j = 0; j < call.args.size(); ++j) {
    const Value *v = call.args[j];
    if (!v || !v->run_time_data())
      continue;
    RunTimeData d;
    d.arg = j;
    if (std::find(n.outputs.begin(), n.outputs.end(), v) == n.outputs.end()) {
      d.kind = RunTimeData::Kind::Read;
    } else if (!src) {
      d.kind = RunTimeData::Kind::Produced;
    } else {
      const int bits = dtype_slot_bits(v->type.dtype);
      if (bits <= 0 || bits % 8 != 0)
        node_fail(n, "output '{}' of type {} cannot follow a run-time shape with no bound", v->name,
                  dtype_name(v->type.dtype));
      d.kind = RunTimeData::Kind::Like;
      d.src = src_arg;
      d.elem_bytes = bits / 8;
    }
    pc.run_time_data.push_back(d);
  }
}

} // namespace

void lower_regions(Graph &g, ExecutionPlan &plan, const RegionLowering &lower) {
  plan.calls.clear();
  for (size_t i = 0; i < plan.regions.size(); ++i) {
    const Region &r = plan.regions[i];
    if (r.kind == Region::Kind::Op && is_control_flow(*r.root)) { // markers around its bodies
      size_t first = plan.calls.size();
      lower_control_flow(*r.root, plan.calls);
      for (size_t c = first; c < plan.calls.size(); ++c) {
        PlannedCall &pc = plan.calls[c];
        pc.region = i;
        for (size_t j = 0; j < pc.call.args.size(); ++j) // only the Loop's run-shaped scans
          if (const Value *v = pc.call.args[j];
              v && v->run_time_data() &&
              std::none_of(pc.run_time_data.begin(), pc.run_time_data.end(),
                           [j](const RunTimeData &d) { return d.arg == j; }))
            node_fail(*r.root,
                      "'{}' has a shape that values computed at run time decide with "
                      "no bound, which onnxc supports outside If/Loop/Scan only",
                      v->name);
      }
      continue;
    }
    PlannedCall pc;
    pc.call = r.kind == Region::Kind::Op && is_run_time_data_op(*r.root)
                  ? lower_run_time_data_op(*r.root)
                  : lower(r);
    lower_run_time_data(r, pc, lower);
    attach_derived(g, pc.call);
    pc.node_desc = r.desc;
    pc.profile = r.profile;
    pc.region = i;
    plan.calls.push_back(std::move(pc));
  }
}

} // namespace onnxc
