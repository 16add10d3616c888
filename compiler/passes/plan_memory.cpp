#include "compiler/passes/plan_memory.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/lower_control_flow.h"

#include <algorithm>
#include <map>
#include <set>

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
  Value *value;   // nullptr for a scratch buffer
  int scratch_of; // call index for scratch
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

/// A buffer live at some but not all calls of a loop is kept for the whole loop.
void keep_live_across_loops(const ExecutionPlan &plan, std::vector<Interval> &iv) {
  for (auto [s, e] : loop_ranges(plan.calls))
    for (Interval &i : iv)
      if (i.first <= e && s <= i.last && (i.first < s || i.last > e)) {
        i.first = std::min(i.first, s);
        i.last = std::max(i.last, e);
      }
}

/// Graph inputs and outputs live in the caller's buffers (form-regions made every output a
/// value computed by exactly one call).
void assign_io(ExecutionPlan &plan) {
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    plan.inputs[i]->storage = Storage::GraphInput;
    plan.inputs[i]->io_index = static_cast<int>(i);
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    Value *v = plan.outputs[i];
    if (v->storage != Storage::Unassigned)
      fail("internal error: graph output '{}' is stored twice", v->name);
    v->storage = Storage::GraphOutput;
    v->io_index = static_cast<int>(i);
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

/// Index of the last call that uses each value.
std::map<Value *, size_t> last_uses(const ExecutionPlan &plan) {
  std::map<Value *, size_t> last;
  for (size_t c = 0; c < plan.calls.size(); ++c)
    for (Value *v : plan.calls[c].call.args)
      if (v)
        last[v] = c;
  return last;
}

/// The values whose buffer an output may take over, and what decides it.
struct InplaceState {
  std::map<Value *, size_t> last;         ///< last call using each value
  std::set<Value *> taken;                ///< inputs whose buffer an output took over
  std::vector<std::pair<int, int>> loops; ///< [LoopBegin, LoopEnd] call ranges
  /// True if call c lies in a loop that `first` (the call defining a value) precedes: the
  /// value is read again by the next iteration, so its buffer is not free after c.
  bool reread_by_loop(size_t c, int first) const {
    for (auto [s, e] : loops)
      if (s <= int(c) && int(c) <= e && first < s)
        return true;
    return false;
  }
};

/// The input whose buffer call c's output arg `out` may take over (KernelCall::inplace): an
/// arena intermediate of the same size whose last use is this call (also across loop
/// iterations), not already taken over.
Value *inplace_source(const PlannedCall &pc, size_t c, size_t out, const InplaceState &st,
                      const std::map<Value *, size_t> &index, const std::vector<Interval> &iv) {
  for (auto [in, o] : pc.call.inplace) {
    if (static_cast<size_t>(o) != out || in < 0 || static_cast<size_t>(in) >= pc.call.args.size())
      continue;
    Value *src = pc.call.args[static_cast<size_t>(in)], *dst = pc.call.args[out];
    if (src && dst && src != dst && src->producer && src->storage == Storage::Arena &&
        index.count(src) && st.last.at(src) == c &&
        type_bytes(src->type) == type_bytes(dst->type) && !st.taken.count(src) &&
        !st.reread_by_loop(c, iv[index.at(src)].first))
      return src;
  }
  return nullptr;
}

/// An input of a Concat computed in place: the Concat's output and the input's byte offset in it.
struct Slice {
  Value *whole;
  int64_t offset;
};

/// The Concats whose inputs can be computed in their output's buffer: the output and every
/// input are intermediates (no graph input or output, no constant), each input is computed by
/// one call and read by the Concat alone, once (it appears in two calls' operands); nothing but 1s
/// precedes the axis, so each input is one contiguous run of the output, and every run starts 64
/// bytes aligned. Not in plans with control flow, a run-time extent or run-scoped data (their
/// buffers follow other rules). Removes those Concats' calls and returns where each of their inputs
/// lives.
std::map<Value *, Slice> place_concats(ExecutionPlan &plan) {
  std::map<Value *, Slice> slices;
  if (plan.extent)
    return slices;
  std::map<Value *, int> uses; // appearances in calls' operands: its producer's and readers'
  for (const PlannedCall &pc : plan.calls) {
    if (pc.control != ControlMark::None || !pc.run_time_data.empty() || pc.guard)
      return slices;
    for (Value *v : pc.call.args)
      if (v)
        ++uses[v];
  }
  std::set<size_t> dropped;
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    const PlannedCall &pc = plan.calls[c];
    const Region &r = plan.regions[pc.region];
    if (r.kind != Region::Kind::Op || !r.root || r.root->op_type != "Concat" ||
        !r.root->domain.empty() || !r.fused.empty() || !r.activation.op.empty())
      continue;
    const Node &n = *r.root;
    Value *whole = n.outputs.empty() ? nullptr : n.outputs[0];
    if (!whole || whole->storage != Storage::Unassigned || !whole->type.is_static() ||
        pc.call.args.size() != n.inputs.size() + 1 || pc.call.args.back() != whole)
      continue;
    const std::vector<int64_t> dims = whole->type.static_dims();
    const int64_t axis = normalize_axis(n, attr_int(n, "axis", 0), int64_t(dims.size()));
    bool ok = std::all_of(dims.begin(), dims.begin() + axis, [](int64_t d) { return d == 1; });
    std::set<Value *> seen;
    std::map<Value *, Slice> mine;
    int64_t off = 0;
    for (size_t i = 0; ok && i < n.inputs.size(); ++i) {
      Value *v = n.inputs[i];
      ok = v && pc.call.args[i] == v && v->producer && !v->constant &&
           v->storage == Storage::Unassigned && seen.insert(v).second && uses[v] == 2 &&
           off % kAlign == 0 && v->type.is_static() && v->type.dtype == whole->type.dtype;
      if (ok) {
        mine[v] = {whole, off};
        off += type_bytes(v->type);
      }
    }
    if (!ok || off != type_bytes(whole->type))
      continue;
    slices.insert(mine.begin(), mine.end());
    dropped.insert(c);
  }
  std::vector<PlannedCall> kept;
  kept.reserve(plan.calls.size() - dropped.size());
  for (size_t c = 0; c < plan.calls.size(); ++c)
    if (!dropped.count(c))
      kept.push_back(std::move(plan.calls[c]));
  plan.calls = std::move(kept);
  plan.concats_in_place = int64_t(dropped.size());
  return slices;
}

void assign_arena(ExecutionPlan &plan, const PlanOptions &opts) {
  const std::map<Value *, Slice> slices =
      opts.concat_in_place ? place_concats(plan) : std::map<Value *, Slice>{};
  std::map<Value *, size_t> index;
  InplaceState st{last_uses(plan), {}, loop_ranges(plan.calls)};
  std::vector<Interval> iv;
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    PlannedCall &pc = plan.calls[c];
    for (size_t a = 0; a < pc.call.args.size(); ++a) {
      Value *v = pc.call.args[a];
      if (auto s = v ? slices.find(v) : slices.end(); s != slices.end()) {
        v = s->second.whole; /* computed in the Concat's output: that buffer is live from here */
        auto [it, fresh] = index.emplace(v, iv.size());
        if (fresh)
          iv.push_back({type_bytes(v->type), int(c), int(c), v, -1});
        iv[it->second].last = std::max(iv[it->second].last, int(c));
        v->storage = Storage::Arena;
        continue;
      }
      if (!v || (v->storage != Storage::Unassigned && !index.count(v)))
        continue;
      auto [it, fresh] = index.emplace(v, iv.size());
      if (fresh) {
        if (v->producer == nullptr)
          fail("value '{}' is used by {} but never computed", v->name, pc.node_desc);
        Value *src = opts.inplace ? inplace_source(pc, c, a, st, index, iv) : nullptr;
        if (src) { // same bytes, one interval
          st.taken.insert(src);
          it->second = index.at(src);
          plan.inplace_values++;
        } else {
          iv.push_back({type_bytes(v->type), int(c), int(c), v, -1});
        }
      }
      Interval &i = iv[it->second];
      i.last = std::max(i.last, int(c));
      v->storage = Storage::Arena;
    }
    if (pc.call.scratch_bytes > 0)
      iv.push_back({pc.call.scratch_bytes, int(c), int(c), nullptr, int(c)});
  }
  keep_live_across_loops(plan, iv);
  plan.arena_size = place(iv);
  if (plan.arena_size > opts.max_arena_bytes)
    fail("the model needs an arena of {} bytes, more than the limit of {} bytes; raise it with "
         "--max-arena-bytes if this is intended",
         plan.arena_size, opts.max_arena_bytes);
  for (const Interval &i : iv) {
    if (i.value)
      plan.intermediates_size += align_up(type_bytes(i.value->type));
    else {
      plan.intermediates_size += align_up(i.size);
      plan.calls[static_cast<size_t>(i.scratch_of)].scratch_offset = i.offset;
    }
  }
  for (auto [v, i] : index) { // values sharing an interval (in place) share its offset
    v->offset = iv[i].offset;
    if (v != iv[i].value)
      plan.intermediates_size += align_up(type_bytes(v->type));
  }
  for (auto [v, s] : slices) { // a Concat's inputs: their runs of its output
    v->storage = Storage::Arena;
    v->offset = s.whole->offset + s.offset;
    plan.intermediates_size += align_up(type_bytes(v->type));
  }
}

} // namespace

void plan_memory(ExecutionPlan &plan, const PlanOptions &opts) {
  assign_io(plan);
  assign_weights(plan, opts);
  assign_arena(plan, opts);
}

} // namespace onnxc
