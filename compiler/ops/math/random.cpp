// The random ops: RandomUniform, RandomNormal (shape from the `shape` attribute),
// RandomUniformLike, RandomNormalLike (shape, and unless `dtype` is given type, from the input),
// Bernoulli (1 with the input's probability) and Multinomial (class indices drawn from the
// softmax of each row of unnormalised log-probabilities). One kernel, onnxc_k_random
// (templates/cpu/random.cpp, params in templates/cpu/random_params.h).
//
// Seeds: with a `seed` attribute the values are a pure function of (seed, the node's stream (a
// hash of its output's name, unique in the model), element index): the same on every run, every context and every thread count. Without
// one, every call draws new values (a per-call nonce from a process-wide counter, the clock and
// the context). ONNX Runtime differs: its generator advances from run to run even with a seed,
// so only its first run after loading repeats; and no generator reproduces numpy's draws, which
// the ONNX backend cases hold (docs/architecture.md, "Random ops").
//
// These ops are not pure: foldable = false, so a RandomUniform (no inputs, hence "all inputs
// constant") is never evaluated at compile time.
#include "compiler/ops/op_util.h"
#include "templates/cpu/random_params.h"

#include <algorithm>
#include <cstring>

namespace onnxc {
namespace {
using onnxc_k::RandomParams;

const std::vector<DType> kFloatTypes = {DType::Float, DType::Double, DType::Float16,
                                        DType::BFloat16};
const std::vector<DType> kBernoulliOut = {
    DType::Float,  DType::Double, DType::Float16, DType::BFloat16, DType::Uint8,
    DType::Int8,   DType::Uint16, DType::Int16,   DType::Int32,    DType::Int64,
    DType::Uint32, DType::Uint64, DType::Bool};

bool allowed(DType t, const std::vector<DType> &types) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

std::string names(const std::vector<DType> &types) {
  std::string s;
  for (DType t : types)
    s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s;
}

/// The output dtype: the `dtype` attribute, else `def` (Undefined: the input's dtype).
DType output_dtype(const Node &n, DType def, const std::vector<DType> &types) {
  DType t = def;
  if (has_attr(n, "dtype")) {
    const int64_t v = attr_int(n, "dtype", 0);
    if (!dtype_is_known(static_cast<int32_t>(v)))
      node_fail(n, "attribute 'dtype' = {} is not an ONNX data type", v);
    t = static_cast<DType>(v);
  } else if (t == DType::Undefined) {
    t = input_dtype(n, 0);
  }
  if (!allowed(t, types))
    node_fail(n, "output dtype {} is not supported: only {} are", dtype_name(t), names(types));
  return t;
}

/// The float input's dtype (Bernoulli, Multinomial).
DType float_input(const Node &n) {
  const DType t = input_dtype(n, 0);
  if (!allowed(t, kFloatTypes))
    node_fail(n, "input dtype {} is not supported: only {} are", dtype_name(t), names(kFloatTypes));
  return t;
}

/// The node's stream: FNV-1a of its output's name (names are unique in a model, subgraphs
/// included, where indices restart in every body), or its index if the output has no name.
int64_t stream_of(const Node &n) {
  const std::string name = n.outputs.empty() || !n.outputs[0] ? "" : n.outputs[0]->name;
  if (name.empty())
    return n.index;
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name)
    h = (h ^ c) * 0x100000001b3ull;
  return static_cast<int64_t>(h);
}

/// The parameters every random op shares: kind, seed (or none) and the node's stream.
RandomParams base_params(const Node &n, onnxc_k::RandomKind kind) {
  RandomParams p{};
  p.kind = kind;
  p.seeded = has_attr(n, "seed") ? 1 : 0;
  const double seed = attr_float(n, "seed", 0.0f);
  std::memcpy(&p.seed_bits, &seed, sizeof seed);
  p.node = stream_of(n);
  return p;
}

KernelCall random_call(const RandomParams &p, std::vector<Value *> args) {
  KernelCall call;
  call.kernel = "onnxc_k_random";
  call.args = std::move(args);
  set_params(call, p);
  call.scratch_bytes = onnxc_k::random_scratch_bytes(p);
  return call;
}

/// The shape of RandomUniform/RandomNormal: the `shape` attribute, no negative dims.
std::vector<int64_t> shape_attr(const Node &n) {
  if (!has_attr(n, "shape"))
    node_fail(n, "attribute 'shape' is required");
  std::vector<int64_t> dims = attr_ints(n, "shape");
  for (int64_t d : dims)
    if (d < 0)
      node_fail(n, "attribute 'shape' = {} has a negative dim", dims_to_string(dims));
  return dims;
}

/// Uniform or normal draws of the node's output type: a/b are low/high or mean/scale.
KernelCall sample_call(const Node &n, bool uniform) {
  RandomParams p = base_params(n, uniform ? onnxc_k::kRandomUniform : onnxc_k::kRandomNormal);
  p.out_dtype = static_cast<int64_t>(n.outputs[0]->type.dtype);
  p.count = product(output_dims(n, 0));
  p.a = attr_float(n, uniform ? "low" : "mean", 0.0f);
  p.b = attr_float(n, uniform ? "high" : "scale", 1.0f);
  return random_call(p, {n.outputs[0]});
}

/// RandomUniform / RandomNormal (like = false) and their *Like forms.
OpDef sample_def(const char *name, bool uniform, bool like) {
  OpDef d;
  d.name = name;
  d.min_opset = 1;
  d.before_min_opset = true;
  d.foldable = false;
  d.attrs = {{"dtype", Attribute::Kind::Int}, {"seed", Attribute::Kind::Float}};
  d.attrs.push_back({uniform ? "low" : "mean", Attribute::Kind::Float});
  d.attrs.push_back({uniform ? "high" : "scale", Attribute::Kind::Float});
  if (!like)
    d.attrs.push_back({"shape", Attribute::Kind::Ints});
  d.infer = [like](Node &n) {
    const DType t = output_dtype(n, like ? DType::Undefined : DType::Float, kFloatTypes);
    set_output(n, 0, t, like ? input_dims(n, 0) : shape_attr(n));
  };
  d.lower = [uniform](const Node &n) { return sample_call(n, uniform); };
  return d;
}

} // namespace

const OpDef &op_RandomUniform() {
  static const OpDef def = sample_def("RandomUniform", true, false);
  return def;
}
const OpDef &op_RandomNormal() {
  static const OpDef def = sample_def("RandomNormal", false, false);
  return def;
}
const OpDef &op_RandomUniformLike() {
  static const OpDef def = sample_def("RandomUniformLike", true, true);
  return def;
}
const OpDef &op_RandomNormalLike() {
  static const OpDef def = sample_def("RandomNormalLike", false, true);
  return def;
}

const OpDef &op_Bernoulli() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Bernoulli";
    d.min_opset = 15;
    d.foldable = false;
    d.attrs = {{"dtype", Attribute::Kind::Int}, {"seed", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      float_input(n);
      set_output(n, 0, output_dtype(n, DType::Undefined, kBernoulliOut), input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      RandomParams p = base_params(n, onnxc_k::kRandomBernoulli);
      p.in_dtype = static_cast<int64_t>(input_dtype(n, 0));
      p.out_dtype = static_cast<int64_t>(n.outputs[0]->type.dtype);
      p.count = product(input_dims(n, 0));
      return random_call(p, {n.inputs[0], n.outputs[0]});
    };
    return d;
  }();
  return def;
}

const OpDef &op_Multinomial() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Multinomial";
    d.min_opset = 7;
    d.foldable = false;
    d.attrs = {{"dtype", Attribute::Kind::Int},
               {"sample_size", Attribute::Kind::Int},
               {"seed", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      float_input(n);
      const std::vector<int64_t> x = input_dims(n, 0);
      if (x.size() != 2)
        node_fail(n, "input must be 2-D [batch, classes], got shape {}", dims_to_string(x));
      if (x[1] < 1 && x[0] > 0)
        node_fail(n, "input has no classes (shape {})", dims_to_string(x));
      const int64_t samples = attr_int(n, "sample_size", 1);
      if (samples < 1)
        node_fail(n, "attribute 'sample_size' = {} must be at least 1", samples);
      const DType t = output_dtype(n, DType::Int32, {DType::Int32, DType::Int64});
      set_output(n, 0, t, {x[0], samples});
    };
    d.lower = [](const Node &n) {
      RandomParams p = base_params(n, onnxc_k::kRandomMultinomial);
      p.in_dtype = static_cast<int64_t>(input_dtype(n, 0));
      p.out_dtype = static_cast<int64_t>(n.outputs[0]->type.dtype);
      p.count = input_dims(n, 0)[0];
      p.classes = input_dims(n, 0)[1];
      p.samples = attr_int(n, "sample_size", 1);
      return random_call(p, {n.inputs[0], n.outputs[0]});
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
