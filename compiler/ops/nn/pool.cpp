// MaxPool, AveragePool (1-D to 3-D: kernel_shape, strides, pads, dilations, auto_pad, ceil_mode,
// count_include_pad; MaxPool's optional Indices output), GlobalAveragePool and GlobalMaxPool.
// LpPool (typed params templates/cpu/pool_params.h). All run templates/cpu/pool.cpp.
#include "compiler/ops/nn/nn_util.h"
#include "templates/cpu/pool_params.h"

#include <algorithm>

namespace onnxc {
namespace {

enum PoolMode : int64_t { kMax = 0, kAvg = 1, kAvgIncludePad = 2 };

std::vector<int64_t> pool_input(const Node &n) {
  std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() < 3)
    node_fail(n, "X must be N x C x D1 x ... (rank >= 3), got {}", dims_to_string(x));
  return x;
}

Window pool_window(const Node &n) {
  std::vector<int64_t> x = pool_input(n), in(x.begin() + 2, x.end());
  std::vector<int64_t> kernel = attr_ints(n, "kernel_shape");
  if (kernel.size() != in.size())
    node_fail(n, "kernel_shape has {} values but the input has {} spatial dims", kernel.size(),
              in.size());
  return make_window(n, in, kernel, attr_int(n, "ceil_mode", 0) != 0);
}

OpDef pool_def(const char *name, PoolMode mode, std::initializer_list<DType> types) {
  OpDef d;
  d.name = name;
  d.batch_transparent = true;
  d.attrs = {{"auto_pad", Attribute::Kind::String},
             {"ceil_mode", Attribute::Kind::Int},
             {"dilations", Attribute::Kind::Ints},
             {"kernel_shape", Attribute::Kind::Ints, true},
             {"pads", Attribute::Kind::Ints},
             {"strides", Attribute::Kind::Ints},
             {"count_include_pad", Attribute::Kind::Int},
             {"storage_order", Attribute::Kind::Int}};
  std::vector<DType> allowed(types);
  d.infer = [mode, allowed](Node &n) {
    DType dt = input_dtype(n, 0);
    if (std::find(allowed.begin(), allowed.end(), dt) == allowed.end())
      node_fail(n, "element type {} is not supported", dtype_name(dt));
    std::vector<int64_t> x = pool_input(n), out{x[0], x[1]};
    Window w = pool_window(n);
    out.insert(out.end(), w.out.begin(), w.out.end());
    set_output(n, 0, dt, out);
    if (mode == kMax)
      set_output(n, 1, DType::Int64, out);
  };
  d.lower = [mode](const Node &n) {
    std::vector<int64_t> x = pool_input(n);
    PoolMode m = mode;
    if (m == kAvg && attr_int(n, "count_include_pad", 0) != 0)
      m = kAvgIncludePad;
    std::vector<int64_t> params{x[0] * x[1], m}, wp = window_params(n, pool_window(n));
    params.insert(params.end(), wp.begin(), wp.end());
    params.push_back(attr_int(n, "storage_order", 0));
    KernelCall call;
    call.kernel = kernel_name(n, "pool", input_dtype(n, 0));
    call.args = {n.inputs[0], n.outputs[0],
                 mode == kMax && n.outputs.size() > 1 ? n.outputs[1] : nullptr};
    call.params = params;
    return call;
  };
  return d;
}

OpDef global_pool_def(const char *name, PoolMode mode) {
  OpDef d;
  d.name = name;
  d.batch_transparent = true;
  d.infer = [](Node &n) {
    require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
    std::vector<int64_t> x = pool_input(n), out(x.size(), 1);
    out[0] = x[0], out[1] = x[1];
    set_output(n, 0, input_dtype(n, 0), out);
  };
  d.lower = [mode](const Node &n) {
    std::vector<int64_t> x = pool_input(n);
    int64_t s = 1;
    for (size_t i = 2; i < x.size(); ++i)
      s *= x[i];
    // One 1-D window over the flattened spatial dims.
    std::vector<int64_t> params{x[0] * x[1], mode, 1, 1, s, 1, 1, 1, 1, 1, s, 1, 1,
                                1,           0,    0, 0, 1, 1, 1, 0, 0, 0, 0}; // ..., storage order
    KernelCall call;
    call.kernel = kernel_name(n, "pool", input_dtype(n, 0));
    call.args = {n.inputs[0], n.outputs[0], nullptr};
    call.params = params;
    return call;
  };
  return d;
}

OpDef lp_pool_def() {
  OpDef d;
  d.name = "LpPool";
  d.batch_transparent = true;
  d.min_opset = 2; // opset 1 had a float p
  d.attrs = {{"auto_pad", Attribute::Kind::String}, {"ceil_mode", Attribute::Kind::Int},
             {"dilations", Attribute::Kind::Ints},  {"kernel_shape", Attribute::Kind::Ints, true},
             {"p", Attribute::Kind::Int},           {"pads", Attribute::Kind::Ints},
             {"strides", Attribute::Kind::Ints}};
  d.infer = [](Node &n) {
    require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
    if (attr_int(n, "p", 2) < 1)
      node_fail(n, "p must be >= 1, got {}", attr_int(n, "p", 2));
    std::vector<int64_t> x = pool_input(n), out{x[0], x[1]};
    Window w = pool_window(n);
    out.insert(out.end(), w.out.begin(), w.out.end());
    set_output(n, 0, input_dtype(n, 0), out);
  };
  d.lower = [](const Node &n) {
    std::vector<int64_t> x = pool_input(n);
    onnxc_k::LpPoolParams p{};
    p.planes = x[0] * x[1];
    p.w = window_geom(n, pool_window(n));
    p.p = static_cast<double>(attr_int(n, "p", 2));
    KernelCall call;
    call.kernel = kernel_name(n, "lp_pool", input_dtype(n, 0));
    call.args = {n.inputs[0], n.outputs[0]};
    set_params(call, p);
    return call;
  };
  return d;
}

} // namespace

const OpDef &op_LpPool() {
  static const OpDef def = lp_pool_def();
  return def;
}

const OpDef &op_MaxPool() {
  static const OpDef def =
      pool_def("MaxPool", kMax, {DType::Float, DType::Double, DType::Int8, DType::Uint8});
  return def;
}

const OpDef &op_AveragePool() {
  static const OpDef def = pool_def("AveragePool", kAvg, {DType::Float, DType::Double});
  return def;
}

const OpDef &op_GlobalAveragePool() {
  static const OpDef def = global_pool_def("GlobalAveragePool", kAvg);
  return def;
}

const OpDef &op_GlobalMaxPool() {
  static const OpDef def = global_pool_def("GlobalMaxPool", kMax);
  return def;
}

} // namespace onnxc
