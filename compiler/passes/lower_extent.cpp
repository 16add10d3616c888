#include "compiler/passes/lower_extent.h"
#include "compiler/ir/error.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/lower_control_flow.h"

#include <algorithm>
#include <map>

namespace onnxc {
namespace {

/// A value whose type has symbolic dims: its type as inferred and its dims as expressions.
struct SymbolicValue {
  Value *value;
  Type sym;
  std::vector<SymInt> dims;
};

class ExtentLowering {
public:
  ExtentLowering(Graph &g, ExecutionPlan &plan, const RegionLowering &lower, std::string symbol)
      : g_(g), plan_(plan), lower_(lower), symbol_(std::move(symbol)) {}

  void run() {
    auto it = g_.symbols.find(symbol_);
    range_ = it != g_.symbols.end() ? it->second : SymRange{};
    count_ = g_.counts.count(symbol_) > 0;
    if (!count_) // a count's producer is lowered once: the range matters only to its users
      check_range();
    collect_symbolic_values();
    plan_.extent = ExecutionPlan::RunTimeExtent{symbol_, range_, io_dims(plan_.inputs, "input"),
                                                io_dims(plan_.outputs, "output")};
    plan_.extent->count = count_;
    plan_.calls.clear();
    DerivedCache cache; // weights packed once, whatever s
    for (size_t i = 0; i < plan_.regions.size(); ++i)
      lower_region(i);
    set_types_at(range_.hi);
    check_sizes_grow();
  }

private:
  void check_range() const {
    if (range_.hi - range_.lo + 1 <= kMaxExtentValues)
      return;
    if (count_)
      fail("the run-time count '{}' reaches {}: onnxc compiles the ops that use a count of at "
           "most {}; give the counting op's inputs smaller shapes (or as constants)",
           symbol_, range_.hi - 1, kMaxExtentValues - 1);
    fail("the run-time dim '{}' ranges over {}..{}: onnxc compiles a run-time dim for at most "
         "{} values; declare a smaller range with --dim {}=LO..HI",
         symbol_, range_.lo, range_.hi, kMaxExtentValues, symbol_);
  }

  int64_t eval(const SymInt &e, int64_t s) const {
    return e.eval([&](const std::string &) { return s; });
  }

  void collect_symbolic_values() {
    auto add = [&](Value *v) {
      if (!v || index_.count(v) || !v->type.has_shape() || v->type.is_static())
        return;
      std::vector<SymInt> dims = v->type.sym_dims();
      for (const SymInt &d : dims)
        for (const std::string &s : d.symbols())
          if (s != symbol_)
            fail("tensor '{}' has the run-time dims '{}' and '{}': onnxc runs one run-time dim "
                 "besides a per-sample batch; bind the other with --dim {}=N",
                 v->name, symbol_, s, s);
      index_[v] = values_.size();
      values_.push_back({v, v->type, std::move(dims)});
    };
    for (Value *v : g_.inputs)
      add(v);
    for (const auto &n : g_.nodes) {
      for (Value *v : n->inputs)
        add(v);
      for (Value *v : n->outputs)
        add(v);
    }
    for (Value *v : g_.outputs)
      add(v);
  }

  /// Per graph input/output, per dim: whether it is the symbol (a dim must be static or the
  /// symbol itself, which is what onnxc_run binds and reports; for a run-time count, the count
  /// `symbol - 1`, an output's dim only).
  std::vector<std::vector<bool>> io_dims(const std::vector<Value *> &values, const char *what) {
    std::vector<std::vector<bool>> out;
    const SymInt sym = count_ ? SymInt::symbol(symbol_) - SymInt(1) : SymInt::symbol(symbol_);
    if (count_ && what[0] == 'i')
      for (const Value *v : values)
        if (index_.count(const_cast<Value *>(v)))
          fail("internal error: input '{}' has the run-time count '{}'", v->name, symbol_);
    for (const Value *v : values) {
      std::vector<bool> flags;
      auto it = index_.find(const_cast<Value *>(v));
      if (it != index_.end())
        for (size_t k = 0; k < values_[it->second].dims.size(); ++k) {
          const SymInt &d = values_[it->second].dims[k];
          if (!d.is_const() && d != sym && count_)
            fail("output '{}' has dim {} = '{}': a dim of a graph output may be the run-time "
                 "count '{}' itself (that is, '{}'), not an expression of it",
                 v->name, k, d.str(), symbol_, sym.str());
          if (!d.is_const() && d != sym)
            fail("{} '{}' has dim {} = '{}': a run-time dim of a graph {} must be the symbol "
                 "itself; bind '{}' with --dim {}=N",
                 what, v->name, k, d.str(), what, symbol_, symbol_);
          flags.push_back(!d.is_const());
        }
      out.push_back(std::move(flags));
    }
    return out;
  }

  void set_type_at(const SymbolicValue &sv, int64_t s) {
    Type t = sv.sym;
    for (size_t k = 0; k < sv.dims.size(); ++k)
      (*t.shape)[k] = Dim(eval(sv.dims[k], s));
    sv.value->type = t;
  }
  void set_types_at(int64_t s) {
    for (const SymbolicValue &sv : values_)
      set_type_at(sv, s);
  }

  /// The symbolic values a region's lowering reads the types of.
  std::vector<size_t> region_values(const Region &r) {
    std::vector<Value *> vs;
    if (r.kind != Region::Kind::Op) {
      vs = {r.src, r.dst};
    } else {
      vs = r.root->inputs;
      vs.insert(vs.end(), r.root->outputs.begin(), r.root->outputs.end());
    }
    std::vector<size_t> out;
    for (Value *v : vs) {
      auto it = index_.find(v);
      if (it != index_.end() && std::find(out.begin(), out.end(), it->second) == out.end())
        out.push_back(it->second);
    }
    return out;
  }

  void push_call(KernelCall call, size_t region) {
    const Region &r = plan_.regions[region];
    attach_derived(g_, call, &derived_);
    PlannedCall pc;
    pc.call = std::move(call);
    pc.node_desc = r.desc;
    pc.profile = r.profile;
    pc.region = region;
    plan_.calls.push_back(std::move(pc));
  }

  static bool same_structure(const KernelCall &a, const KernelCall &b) {
    if (a.kernel != b.kernel || a.args != b.args || a.params.size() != b.params.size() ||
        a.inplace != b.inplace || a.derived.size() != b.derived.size() ||
        (a.scratch_bytes > 0) != (b.scratch_bytes > 0))
      return false;
    for (size_t i = 0; i < a.derived.size(); ++i)
      if (a.derived[i].slot != b.derived[i].slot || a.derived[i].tensor != b.derived[i].tensor ||
          a.derived[i].name != b.derived[i].name)
        return false;
    return true;
  }

  /// Inputs computed at run time whose values are known as expressions over the symbol (shapes
  /// carried as values: Shape -> Gather -> Concat): a lowering that needs them as constants
  /// (Reshape's shape, Slice's ends) sees their value at s.
  static std::vector<Value *> shape_values(const Region &r) {
    std::vector<Value *> out;
    if (r.kind == Region::Kind::Op)
      for (Value *v : r.root->inputs)
        if (v && !v->constant && v->sym_value &&
            (v->type.dtype == DType::Int64 || v->type.dtype == DType::Int32))
          out.push_back(v);
    return out;
  }

  /// r lowered with the types of its symbolic values `vals` and its run-time shape values
  /// `known` (shape_values) at s.
  KernelCall lower_at(const Region &r, const std::vector<size_t> &vals,
                      const std::vector<Value *> &known, int64_t s) {
    for (size_t i : vals)
      set_type_at(values_[i], s);
    for (Value *v : known) {
      auto t = std::make_shared<Tensor>(v->type.dtype, v->type.static_dims());
      const std::vector<SymInt> &e = *v->sym_value;
      if (t->numel() != static_cast<int64_t>(e.size()))
        fail("internal error: '{}' has {} values as expressions for {} elements", v->name, e.size(),
             t->numel());
      for (size_t k = 0; k < e.size(); ++k)
        if (v->type.dtype == DType::Int64)
          t->data_as<int64_t>()[k] = eval(e[k], s);
        else
          t->data_as<int32_t>()[k] = static_cast<int32_t>(eval(e[k], s));
      v->constant = std::move(t);
    }
    struct Restore { // the values stay computed at run time
      const std::vector<Value *> &vs;
      ~Restore() {
        for (Value *v : vs)
          v->constant = nullptr;
      }
    } restore{known};
    try {
      return lower_(r);
    } catch (const Error &e) {
      if (count_)
        fail("{} (with the run-time count {} = {})", e.what(), symbol_, s - 1);
      fail("{} (with the run-time dim {} = {}; declare the values the model accepts with "
           "--dim {}=LO..HI, or bind it with --dim {}=N)",
           e.what(), symbol_, s, symbol_, symbol_);
    }
  }

  void lower_region(size_t i) {
    const Region &r = plan_.regions[i];
    std::vector<size_t> vals = region_values(r);
    if (r.kind == Region::Kind::Op && is_control_flow(*r.root)) {
      if (!vals.empty())
        fail("{}: an If, Loop or Scan whose operands have the run-time dim '{}' is not "
             "supported yet; bind it with --dim {}=N",
             r.desc, symbol_, symbol_);
      size_t first = plan_.calls.size();
      lower_control_flow(*r.root, plan_.calls);
      for (size_t c = first; c < plan_.calls.size(); ++c)
        plan_.calls[c].region = i;
      return;
    }
    if (vals.empty()) {
      push_call(lower_(r), i);
      return;
    }
    if (count_ && r.kind == Region::Kind::Op &&
        attr_string(*r.root, kCountSymbolAttr, "") == symbol_) { // the count's producer: its
      for (size_t v : vals) // call does not depend on the count (its kernel sets it)
        set_type_at(values_[v], range_.hi);
      push_call(lower_(r), i);
      return;
    }
    check_range();
    // One packed weight for every s (nn_util.h); the node is this pass's to lower.
    if (r.kind == Region::Kind::Op) {
      Attribute &a = r.root->attrs[kExtentLoweringAttr];
      a.kind = Attribute::Kind::Int;
      a.i = 1;
    }
    // One variant per run of values of s with the same structure.
    std::vector<Value *> known = shape_values(r);
    KernelCall first = lower_at(r, vals, known, range_.lo);
    std::vector<std::vector<int64_t>> params{first.params};
    int64_t start = range_.lo, scratch = first.scratch_bytes;
    for (int64_t s = range_.lo + 1; s <= range_.hi + 1; ++s) {
      KernelCall c;
      const bool more = s <= range_.hi;
      if (more) {
        c = lower_at(r, vals, known, s);
        if (same_structure(first, c)) {
          params.push_back(std::move(c.params));
          scratch = std::max(scratch, c.scratch_bytes);
          continue;
        }
      }
      finish_variant(i, std::move(first), params, start, s - 1, scratch);
      if (!more)
        break;
      first = std::move(c);
      params = {first.params};
      start = s;
      scratch = first.scratch_bytes;
    }
  }

  void finish_variant(size_t region, KernelCall call,
                      const std::vector<std::vector<int64_t>> &params, int64_t lo, int64_t hi,
                      int64_t scratch) {
    call.scratch_bytes = scratch;
    std::vector<ExtentWord> words;
    for (size_t w = 0; w < call.params.size(); ++w) {
      bool constant = true;
      for (const auto &p : params)
        constant = constant && p[w] == params[0][w];
      if (constant)
        continue;
      std::vector<int64_t> values;
      values.reserve(params.size());
      for (const auto &p : params)
        values.push_back(p[w]);
      words.push_back({w, fit_pieces(values, lo)});
    }
    const bool whole = lo == range_.lo && hi == range_.hi;
    if (!whole) // a variant covering part of the range: its in-place pairs would be read by
      call.inplace.clear(); // the other variants' calls, which plan-memory cannot see
    push_call(std::move(call), region);
    PlannedCall &pc = plan_.calls.back();
    pc.extent_words = std::move(words);
    if (!whole)
      pc.guard = std::make_pair(lo, hi);
  }

  /// Pieces exact at every value: each starts where the previous one stops matching and
  /// takes its first differences from the values at its start.
  static std::vector<ExtentPiece> fit_pieces(const std::vector<int64_t> &v, int64_t lo) {
    std::vector<ExtentPiece> pieces;
    const size_t n = v.size();
    for (size_t i = 0; i < n;) {
      ExtentPiece p{lo + static_cast<int64_t>(i), v[i], 0, 0};
      auto wrap = [](uint64_t x) { return static_cast<int64_t>(x); };
      if (i + 1 < n)
        p.d1 = wrap(static_cast<uint64_t>(v[i + 1]) - static_cast<uint64_t>(v[i]));
      if (i + 2 < n)
        p.d2 = wrap(static_cast<uint64_t>(v[i + 2]) - 2 * static_cast<uint64_t>(v[i + 1]) +
                    static_cast<uint64_t>(v[i]));
      const ExtentWord one{0, {p}};
      size_t j = i + 1;
      while (j < n && extent_word_value(one, lo + static_cast<int64_t>(j)) == v[j])
        ++j;
      pieces.push_back(p);
      i = j;
    }
    return pieces;
  }

  /// The arena is planned with every type at hi: no tensor may be larger at a smaller s.
  void check_sizes_grow() {
    for (const SymbolicValue &sv : values_) {
      bool monotone = true;
      for (const SymInt &d : sv.dims)
        monotone = monotone && d.monotone();
      if (monotone)
        continue;
      const int64_t at_hi = type_bytes(sv.value->type);
      for (int64_t s = range_.lo; s <= range_.hi; ++s) {
        int64_t n = 1;
        for (const SymInt &d : sv.dims)
          n *= eval(d, s);
        if (n * dtype_bits(sv.sym.dtype) / 8 > at_hi)
          fail("tensor '{}' ({}) is larger at {} = {} than at {} = {}: onnxc plans the memory "
               "of a run-time dim for its largest value; bind '{}' with --dim {}=N",
               sv.value->name, shape_to_string(sv.sym), symbol_, s, symbol_, range_.hi, symbol_,
               symbol_);
      }
    }
  }

  Graph &g_;
  ExecutionPlan &plan_;
  const RegionLowering &lower_;
  std::string symbol_;
  SymRange range_;
  bool count_ = false; ///< symbol_ is a run-time count (Graph::counts)
  std::vector<SymbolicValue> values_;
  std::map<Value *, size_t> index_;
  std::map<const Tensor *, Value *> derived_;
};

} // namespace

int64_t extent_word_value(const ExtentWord &w, int64_t s) {
  const ExtentPiece *p = &w.pieces.front();
  for (const ExtentPiece &q : w.pieces)
    if (q.start <= s)
      p = &q;
  const uint64_t t = static_cast<uint64_t>(s - p->start);
  const uint64_t tri = t * (t - 1) / 2; // t < kMaxExtentValues: no wrap before the division
  return static_cast<int64_t>(static_cast<uint64_t>(p->value) + static_cast<uint64_t>(p->d1) * t +
                              static_cast<uint64_t>(p->d2) * tri);
}

void lower_regions_extent(Graph &g, ExecutionPlan &plan, const RegionLowering &lower,
                          const std::string &symbol) {
  ExtentLowering(g, plan, lower, symbol).run();
}

} // namespace onnxc
