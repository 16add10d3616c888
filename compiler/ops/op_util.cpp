#include "compiler/ops/op_util.h"
#include "templates/cpu/shaped_params.h"

#include <cstring>
#include <map>
#include <set>
#include <unordered_set>

#include <fmt/ranges.h>

namespace onnxc {

int64_t param_f64(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

static const Attribute *typed_attr(const Node &n, const std::string &name, Attribute::Kind kind) {
  const Attribute *a = n.attr(name);
  if (a && a->kind != kind)
    node_fail(n, "attribute '{}' must be of type {}, but the model gives {}", name,
              attribute_kind_name(kind), attribute_kind_name(a->kind));
  return a;
}

bool has_attr(const Node &n, const std::string &name) { return n.attr(name) != nullptr; }

int64_t attr_int(const Node &n, const std::string &name, int64_t def) {
  const Attribute *a = typed_attr(n, name, Attribute::Kind::Int);
  return a ? a->i : def;
}

float attr_float(const Node &n, const std::string &name, float def) {
  const Attribute *a = n.attr(name);
  if (a && a->kind == Attribute::Kind::Int) // some exporters write integral floats as ints
    return static_cast<float>(a->i);
  a = typed_attr(n, name, Attribute::Kind::Float);
  return a ? a->f : def;
}

std::string attr_string(const Node &n, const std::string &name, const std::string &def) {
  const Attribute *a = typed_attr(n, name, Attribute::Kind::String);
  return a ? a->s : def;
}

std::vector<int64_t> attr_ints(const Node &n, const std::string &name,
                               const std::vector<int64_t> &def) {
  const Attribute *a = typed_attr(n, name, Attribute::Kind::Ints);
  return a ? a->ints : def;
}

std::vector<float> attr_floats(const Node &n, const std::string &name) {
  const Attribute *a = typed_attr(n, name, Attribute::Kind::Floats);
  return a ? a->floats : std::vector<float>{};
}

TensorPtr attr_tensor(const Node &n, const std::string &name) {
  const Attribute *a = typed_attr(n, name, Attribute::Kind::Tensor);
  return a ? a->t : nullptr;
}

size_t num_inputs(const Node &n) {
  size_t k = n.inputs.size();
  while (k > 0 && !n.inputs[k - 1])
    --k;
  return k;
}

const Type &input_type(const Node &n, size_t i) {
  if (!n.input(i))
    node_fail(n, "input {} is required but missing", i);
  return n.inputs[i]->type;
}

DType input_dtype(const Node &n, size_t i) { return input_type(n, i).dtype; }

std::vector<int64_t> input_dims(const Node &n, size_t i) {
  const Type &t = input_type(n, i);
  if (!t.shape)
    node_fail(n,
              "the rank of input {} ('{}') is unknown; give the graph input shapes with "
              "--shape NAME=AxBxC",
              i, n.inputs[i]->name);
  std::vector<int64_t> dims;
  for (const Dim &d : *t.shape) {
    if (!d.is_static()) {
      if (!d.param.empty())
        node_fail(n, "input '{}' has the symbolic dimension '{}'; bind it with --dim {}=N",
                  n.inputs[i]->name, d.param, d.param);
      if (d.is_known()) {
        const std::set<std::string> syms = d.sym.symbols();
        node_fail(n, "input '{}' has the symbolic dimension '{}'; bind it with --dim {}=N",
                  n.inputs[i]->name, d.sym.str(), syms.empty() ? "NAME" : *syms.begin());
      }
      node_fail(n,
                "input '{}' has an unknown dimension; give the graph input shapes with "
                "--shape NAME=AxBxC",
                n.inputs[i]->name);
    }
    dims.push_back(d.value);
  }
  return dims;
}

const Tensor *input_constant(const Node &n, size_t i) {
  Value *v = n.input(i);
  return v && v->constant ? v->constant.get() : nullptr;
}

/// The graph inputs `v` is computed from (in the order found), at most 16 of them.
static std::vector<std::string> graph_inputs_behind(const Value *v) {
  std::vector<std::string> found;
  std::vector<const Value *> todo{v};
  std::unordered_set<const Value *> seen{v};
  while (!todo.empty() && found.size() < 16 && seen.size() < 100000) {
    const Value *u = todo.back();
    todo.pop_back();
    if (u->is_graph_input)
      found.push_back(u->name);
    if (!u->producer)
      continue;
    for (const Value *w : u->producer->inputs)
      if (w && !w->is_constant() && seen.insert(w).second)
        todo.push_back(w);
  }
  return found;
}

std::string computed_from(const Value *v) {
  std::string from;
  if (v && !v->is_graph_input) {
    std::vector<std::string> inputs = graph_inputs_behind(v);
    if (!inputs.empty())
      from = fmt::format(" (from the graph input{} '{}')", inputs.size() > 1 ? "s" : "",
                         fmt::join(inputs, "', '"));
  }
  return fmt::format("it is computed at run time from '{}'{}", v ? v->name : "?", from);
}

const Tensor &require_constant(const Node &n, size_t i, const char *what) {
  const Tensor *t = input_constant(n, i);
  if (t)
    return *t;
  node_fail(n, "input '{}' must be a compile-time constant (onnxc needs static shapes); {}", what,
            computed_from(n.input(i)));
}

void set_output(Node &n, size_t i, DType dtype, const std::vector<int64_t> &dims) {
  if (i >= n.outputs.size() || !n.outputs[i])
    return;
  checked_numel(dims);
  n.outputs[i]->type = Type::of(dtype, dims);
}

void set_run_time_shaped_output(Node &n, size_t i, DType dtype, std::vector<int64_t> bound,
                                size_t from, bool bounded) {
  if (bound.size() > 8)
    node_fail(n,
              "output {} would have rank {}: a shape decided at run time supports rank 8 at "
              "most; {}",
              i, bound.size(), computed_from(n.input(from)));
  for (int64_t &d : bound)
    d = std::max<int64_t>(d, 1);
  set_output(n, i, dtype, bound);
  if (i < n.outputs.size() && n.outputs[i]) {
    n.outputs[i]->run_time_shape_from = n.inputs[from]->name;
    n.outputs[i]->run_time_shape_trace = computed_from(n.inputs[from]);
    n.outputs[i]->run_time_shape_root = n.outputs[i]->name;
    n.outputs[i]->run_time_bounded = bounded;
  }
}

std::vector<std::optional<int64_t>> partial_int_values(const Value *v) {
  if (!v || !v->type.is_static() || v->type.rank() > 1 || v->type.dtype != DType::Int64)
    return {};
  const auto numel = static_cast<size_t>(product(v->type.static_dims()));
  std::vector<std::optional<int64_t>> out(numel);
  if (v->constant) {
    for (size_t k = 0; k < numel; ++k)
      out[k] = v->constant->int_at(static_cast<int64_t>(k));
    return out;
  }
  const Node *p = v->producer;
  if (!p || !p->domain.empty() || p->inputs.empty())
    return out;
  if (p->op_type == "Concat") {
    std::vector<std::optional<int64_t>> cat;
    for (const Value *in : p->inputs) {
      std::vector<std::optional<int64_t>> part = partial_int_values(in);
      if (part.empty() && in && in->type.is_static() && in->type.rank() <= 1)
        part.resize(static_cast<size_t>(product(in->type.static_dims())));
      cat.insert(cat.end(), part.begin(), part.end());
    }
    return cat.size() == numel ? cat : out;
  }
  if (p->op_type == "Identity" || p->op_type == "Unsqueeze" || p->op_type == "Squeeze" ||
      p->op_type == "Reshape") {
    std::vector<std::optional<int64_t>> in = partial_int_values(p->inputs[0]);
    return in.size() == numel ? in : out;
  }
  return out;
}

bool values_at_run_time(const Node &n, size_t i) {
  return n.has_input(i) && !n.inputs[i]->constant && !n.inputs[i]->sym_value;
}

KernelCall rename_call(const Node &n) {
  KernelCall c{"onnxc_k_copy", {n.inputs[0], n.outputs[0]}, {type_bytes(n.outputs[0]->type)}};
  c.inplace = {{0, 1}};
  return c;
}

KernelCall shape_copy_call(const Node &n, int64_t mode) {
  const std::vector<int64_t> in = input_dims(n, 0);
  if (in.size() > 8)
    node_fail(n, "a shape decided at run time supports inputs of rank 8 at most");
  onnxc_k::ShapeCopyParams p{};
  p.mode = mode;
  p.bytes = type_bytes(n.inputs[0]->type);
  p.rank = static_cast<int64_t>(in.size());
  std::copy(in.begin(), in.end(), p.dims);
  p.n = product(input_dims(n, 1));
  p.allowzero = n.opset >= 14 && attr_int(n, "allowzero", 0) != 0;
  KernelCall call{"onnxc_k_shape_copy", {n.inputs[0], n.inputs[1], n.outputs[0]}, {}};
  set_params(call, p);
  return call;
}

std::vector<int64_t> output_dims(const Node &n, size_t i) {
  return n.outputs.at(i)->type.static_dims();
}

int64_t normalize_axis(const Node &n, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    node_fail(n, "axis {} is out of range for a tensor of rank {}", axis, rank);
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> broadcast_shapes(const Node &n, const std::vector<std::vector<int64_t>> &s) {
  size_t rank = 0;
  for (const auto &d : s)
    rank = std::max(rank, d.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto &d : s) {
    for (size_t k = 0; k < d.size(); ++k) {
      int64_t &o = out[rank - d.size() + k];
      int64_t v = d[k];
      if (v == o || v == 1)
        continue;
      if (o == 1) {
        o = v;
        continue;
      }
      std::string all;
      for (const auto &x : s)
        all += (all.empty() ? "" : " and ") + dims_to_string(x);
      node_fail(n, "shapes {} cannot be broadcast together", all);
    }
  }
  return out;
}

std::vector<int64_t> broadcast_strides(const std::vector<int64_t> &dims,
                                       const std::vector<int64_t> &out_dims) {
  size_t rank = out_dims.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    size_t o = rank - dims.size() + k;
    strides[o] = (dims[k] == 1 && out_dims[o] != 1) ? 0 : s;
    s *= dims[k];
  }
  return strides;
}

int64_t product(const std::vector<int64_t> &dims) { return checked_numel(dims); }

std::string kernel_name(const Node &n, const std::string &base, DType dtype) {
  std::string_view sfx = dtype_suffix(dtype);
  if (sfx.empty())
    node_fail(n, "element type {} is not supported by {} yet", dtype_name(dtype), n.op_type);
  return "onnxc_k_" + base + "_" + std::string(sfx);
}

void require_inputs_dtype(const Node &n, DType dtype, size_t first, size_t last) {
  for (size_t i = first; i < last; ++i)
    if (n.has_input(i) && input_dtype(n, i) != dtype)
      node_fail(n, "input {} has element type {} but input 0 has {}", i,
                dtype_name(input_dtype(n, i)), dtype_name(dtype));
}

void require_dtype(const Node &n, DType dtype, std::initializer_list<DType> allowed) {
  for (DType d : allowed)
    if (d == dtype)
      return;
  std::string names;
  for (DType d : allowed)
    names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
  node_fail(n, "element type {} is not supported (supported: {})", dtype_name(dtype), names);
}

int64_t type_bytes(const Type &t) {
  auto b = dtype_storage_bytes(t.dtype, static_cast<uint64_t>(checked_numel(t.static_dims())));
  if (!b)
    fail("tensor size overflows");
  return static_cast<int64_t>(*b);
}

KernelCall call_on_all(const Node &n, std::string kernel, std::vector<int64_t> params) {
  KernelCall c;
  c.kernel = std::move(kernel);
  c.args.assign(n.inputs.begin(), n.inputs.end());
  c.args.insert(c.args.end(), n.outputs.begin(), n.outputs.end());
  c.params = std::move(params);
  return c;
}

KernelCall write_constant_call(const Node &n, const Tensor &t) {
  std::vector<int64_t> params{static_cast<int64_t>(t.nbytes())};
  params.resize(1 + (t.nbytes() + 7) / 8);
  if (t.nbytes())
    std::memcpy(params.data() + 1, t.data(), t.nbytes());
  return KernelCall{"onnxc_k_write_bytes", {n.outputs[0]}, params};
}

namespace {
thread_local std::map<std::string, TensorPtr> *derived_cache = nullptr;
thread_local int derived_cache_depth = 0;
} // namespace

DerivedCache::DerivedCache() {
  if (derived_cache_depth++ == 0)
    derived_cache = new std::map<std::string, TensorPtr>();
}
DerivedCache::~DerivedCache() {
  if (--derived_cache_depth == 0) {
    delete derived_cache;
    derived_cache = nullptr;
  }
}

TensorPtr derived_tensor(const std::string &key, const std::function<TensorPtr()> &make) {
  if (!derived_cache)
    return make();
  TensorPtr &t = (*derived_cache)[key];
  if (!t)
    t = make();
  return t;
}

} // namespace onnxc
