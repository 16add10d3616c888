// BatchNormalization (inference mode), InstanceNormalization and LayerNormalization.
// float/double; kernels in templates/cpu/norm.cpp.
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/sym_util.h"

namespace onnxc {
namespace {

bool output_used(const Node &n, size_t i) {
  Value *v = i < n.outputs.size() ? n.outputs[i] : nullptr;
  return v && (!v->uses.empty() || v->is_graph_output);
}

void require_float_inputs(const Node &n) {
  DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  require_inputs_dtype(n, dt, 1, n.inputs.size());
}

/// N, C and the spatial size S of an N x C x D1 x ... input.
std::vector<int64_t> ncs(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() < 2)
    node_fail(n, "X must be N x C x ... (rank >= 2), got {}", dims_to_string(x));
  int64_t s = 1;
  for (size_t i = 2; i < x.size(); ++i)
    s *= x[i];
  return {x[0], x[1], s};
}

void require_per_channel(const Node &n, size_t first, size_t last, int64_t C) {
  static const char *names[] = {"X", "scale", "B", "mean", "var"};
  for (size_t i = first; i <= last; ++i)
    if (input_dims(n, i) != std::vector<int64_t>{C})
      node_fail(n, "{} has shape {} but must have one value per channel ({})",
                i < 5 ? names[i] : "input", dims_to_string(input_dims(n, i)), C);
}

} // namespace

const OpDef &op_BatchNormalization() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "BatchNormalization";
    d.batch_transparent = true;
    d.attrs = {{"epsilon", Attribute::Kind::Float},
               {"momentum", Attribute::Kind::Float},
               {"spatial", Attribute::Kind::Int},
               {"training_mode", Attribute::Kind::Int},
               {"is_test", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      require_float_inputs(n);
      if (attr_int(n, "training_mode", 0) != 0)
        node_fail(n, "training_mode=1 is compiled through its expansion into standard ops "
                     "(infer-shapes, compiler/passes/expand_ops.h), which this node did not get "
                     "(it needs opset 14 or later)");
      for (size_t i = 1; i < n.outputs.size(); ++i)
        if (output_used(n, i))
          node_fail(n, "the training outputs (running/saved mean and variance) are not "
                       "supported; only Y can be used");
      if (attr_int(n, "spatial", 1) == 0)
        node_fail(n, "spatial=0 (per-activation statistics) is not supported");
      std::vector<int64_t> s = ncs(n);
      for (size_t i = 1; i < 5; ++i)
        input_type(n, i); // all five inputs are required
      require_per_channel(n, 1, 4, s[1]);
      set_output(n, 0, input_dtype(n, 0), input_dims(n, 0));
      for (size_t i = 1; i < n.outputs.size(); ++i)
        set_output(n, i, input_dtype(n, 0), {s[1]});
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> s = ncs(n);
      KernelCall call;
      call.kernel = kernel_name(n, "batchnorm", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[3], n.inputs[4], n.outputs[0]};
      call.params = {s[0], s[1], s[2], param_f64(attr_float(n, "epsilon", 1e-5f))};
      return call;
    };
    return d;
  }();
  return def;
}

const OpDef &op_InstanceNormalization() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "InstanceNormalization";
    d.batch_transparent = true;
    d.attrs = {{"epsilon", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      require_float_inputs(n);
      std::vector<int64_t> s = ncs(n);
      input_type(n, 1), input_type(n, 2);
      require_per_channel(n, 1, 2, s[1]);
      set_output(n, 0, input_dtype(n, 0), input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> s = ncs(n);
      KernelCall call;
      call.kernel = kernel_name(n, "instnorm", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]};
      call.params = {s[0], s[1], s[2], param_f64(attr_float(n, "epsilon", 1e-5f))};
      return call;
    };
    return d;
  }();
  return def;
}

namespace {

struct LayerNormShape {
  int64_t axis, outer, inner;
  std::vector<int64_t> stats; ///< shape of Mean / InvStdDev
};

LayerNormShape layernorm_shape(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0);
  const int64_t rank = static_cast<int64_t>(x.size());
  LayerNormShape s{normalize_axis(n, attr_int(n, "axis", -1), rank), 1, 1, x};
  for (int64_t i = 0; i < rank; ++i) {
    (i < s.axis ? s.outer : s.inner) *= x[i];
    if (i >= s.axis)
      s.stats[i] = 1;
  }
  return s;
}

/// Stride of Scale / B over the normalised elements: 1 (full size) or 0 (a single value).
int64_t param_stride(const Node &n, size_t i, int64_t inner, const char *what) {
  int64_t numel = product(input_dims(n, i));
  if (numel == inner)
    return 1;
  if (numel == 1)
    return 0;
  node_fail(n, "{} has shape {} but the normalised part of X has {} elements", what,
            dims_to_string(input_dims(n, i)), inner);
}

} // namespace

const OpDef &op_LayerNormalization() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "LayerNormalization";
    d.min_opset = 17;
    d.attrs = {{"axis", Attribute::Kind::Int},
               {"epsilon", Attribute::Kind::Float},
               {"stash_type", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      require_float_inputs(n);
      std::vector<SymInt> x = input_sym_dims(n, 0), stats = x;
      const int64_t rank = static_cast<int64_t>(x.size());
      const int64_t axis = normalize_axis(n, attr_int(n, "axis", -1), rank);
      SymInt inner = 1;
      for (int64_t i = axis; i < rank; ++i)
        inner = inner * x[i], stats[i] = 1;
      if (!inner.is_const())
        node_fail(n, "the normalised dims of X ({}) must be static; bind them with --dim "
                     "NAME=N",
                  sym_dims_to_string(x));
      param_stride(n, 1, *inner.as_const(), "Scale");
      if (n.has_input(2))
        param_stride(n, 2, *inner.as_const(), "B");
      set_output_sym(n, 0, input_dtype(n, 0), x);
      set_output_sym(n, 1, input_dtype(n, 0), stats);
      set_output_sym(n, 2, input_dtype(n, 0), stats);
    };
    d.lower = [](const Node &n) {
      LayerNormShape s = layernorm_shape(n);
      KernelCall call;
      call.kernel = kernel_name(n, "layernorm", input_dtype(n, 0));
      auto out = [&](size_t i) { return i < n.outputs.size() ? n.outputs[i] : nullptr; };
      call.args = {n.inputs[0], n.inputs[1], n.input(2), out(0), out(1), out(2)};
      call.params = {s.outer, s.inner, param_f64(attr_float(n, "epsilon", 1e-5f)),
                     param_stride(n, 1, s.inner, "Scale"),
                     n.has_input(2) ? param_stride(n, 2, s.inner, "B") : 0};
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
