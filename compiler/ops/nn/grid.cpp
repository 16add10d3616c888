// GridSample (opset 16+; N-D and the linear/cubic mode names from opset 20) and AffineGrid
// (opset 20+): sampling an input at normalised grid coordinates, and building such a grid
// from affine matrices. float/double; kernels templates/cpu/grid.cpp, params grid_params.h.
#include "compiler/ops/op_util.h"
#include "templates/cpu/grid_params.h"

namespace onnxc {
namespace {

int64_t grid_mode(const Node &n) {
  const std::string m = attr_string(n, "mode", n.opset > 0 && n.opset < 20 ? "bilinear" : "linear");
  if (m == "nearest")
    return onnxc_k::kGridNearest;
  if (m == "linear" || m == "bilinear")
    return onnxc_k::kGridLinear;
  if (m == "cubic" || m == "bicubic")
    return onnxc_k::kGridCubic;
  node_fail(n, "mode must be 'nearest', 'linear' or 'cubic' ('bilinear', 'bicubic'), got '{}'", m);
}

int64_t grid_padding(const Node &n) {
  const std::string m = attr_string(n, "padding_mode", "zeros");
  if (m == "zeros")
    return onnxc_k::kGridZeros;
  if (m == "border")
    return onnxc_k::kGridBorder;
  if (m == "reflection")
    return onnxc_k::kGridReflection;
  node_fail(n, "padding_mode must be 'zeros', 'border' or 'reflection', got '{}'", m);
}

/// Checks X [N, C, in...] and grid [N, out..., nd] and returns the kernel's parameters.
onnxc_k::GridSampleParams grid_sample_params(const Node &n) {
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  require_inputs_dtype(n, dt, 1, 2);
  const std::vector<int64_t> x = input_dims(n, 0), g = input_dims(n, 1);
  const int64_t nd = static_cast<int64_t>(x.size()) - 2;
  if (nd < 1 || nd > 3)
    node_fail(n, "X must have 1 to 3 spatial dims ([N, C, D?, H?, W]), got rank {}", x.size());
  if (static_cast<int64_t>(g.size()) != nd + 2 || g[0] != x[0] || g.back() != nd)
    node_fail(n, "grid must have shape [{}, <{} output dims>, {}] for X {}, got {}", x[0], nd, nd,
              dims_to_string(x), dims_to_string(g));
  onnxc_k::GridSampleParams p{};
  p.N = x[0], p.C = x[1], p.nd = nd;
  for (int64_t d = 0; d < 3; ++d)
    p.in[d] = d < 3 - nd ? 1 : x[static_cast<size_t>(d - (3 - nd) + 2)];
  p.out_size = product({g.begin() + 1, g.end() - 1});
  p.mode = grid_mode(n);
  p.padding = grid_padding(n);
  p.align_corners = attr_int(n, "align_corners", 0) != 0;
  return p;
}

/// AffineGrid's parameters from theta [N, nd, nd+1] and the constant size [N, C, spatial...].
onnxc_k::AffineGridParams affine_grid_params(const Node &n) {
  require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
  const std::vector<int64_t> th = input_dims(n, 0);
  const std::vector<int64_t> size = require_constant(n, 1, "size").to_int64_vector();
  if (size.size() != 4 && size.size() != 5)
    node_fail(n, "size must have 4 ([N, C, H, W]) or 5 ([N, C, D, H, W]) elements, got {}",
              size.size());
  const int64_t nd = static_cast<int64_t>(size.size()) - 2;
  if (th != std::vector<int64_t>{size[0], nd, nd + 1})
    node_fail(n, "theta must have shape [{}, {}, {}] for size {}, got {}", size[0], nd, nd + 1,
              dims_to_string(size), dims_to_string(th));
  onnxc_k::AffineGridParams p{};
  p.N = size[0], p.nd = nd;
  for (int64_t d = 0; d < 3; ++d) {
    p.size[d] = d < 3 - nd ? 1 : size[static_cast<size_t>(d - (3 - nd) + 2)];
    if (p.size[d] < 1)
      node_fail(n, "size must be positive, got {}", dims_to_string(size));
  }
  p.align_corners = attr_int(n, "align_corners", 0) != 0;
  return p;
}

} // namespace

const OpDef &op_GridSample() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "GridSample";
    d.min_opset = 16;
    d.attrs = {{"align_corners", Attribute::Kind::Int},
               {"mode", Attribute::Kind::String},
               {"padding_mode", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      grid_sample_params(n);
      std::vector<int64_t> out{input_dims(n, 0)[0], input_dims(n, 0)[1]};
      const std::vector<int64_t> g = input_dims(n, 1);
      out.insert(out.end(), g.begin() + 1, g.end() - 1);
      set_output(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      KernelCall call = call_on_all(n, kernel_name(n, "grid_sample", input_dtype(n, 0)), {});
      set_params(call, grid_sample_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

const OpDef &op_AffineGrid() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "AffineGrid";
    d.min_opset = 20;
    d.attrs = {{"align_corners", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      if (values_at_run_time(n, 1)) { // size at run time: the output is shaped at run time
        require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
        const std::vector<int64_t> th = input_dims(n, 0), size = input_dims(n, 1);
        if (input_dtype(n, 1) != DType::Int64 || size.size() != 1 ||
            (size[0] != 4 && size[0] != 5) ||
            th != std::vector<int64_t>{th.empty() ? 0 : th[0], size[0] - 2, size[0] - 1})
          node_fail(n, "size must be 4 or 5 int64 values and theta [N, nd, nd + 1], got {} and {}",
                    shape_to_string(n.inputs[1]->type), dims_to_string(th));
        std::vector<int64_t> bound(static_cast<size_t>(size[0] - 1), 1);
        bound[0] = th[0];
        bound.back() = size[0] - 2;
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), bound, 1);
        return;
      }
      const onnxc_k::AffineGridParams p = affine_grid_params(n);
      std::vector<int64_t> out{p.N};
      for (int64_t d = 3 - p.nd; d < 3; ++d)
        out.push_back(p.size[d]);
      out.push_back(p.nd);
      set_output(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      KernelCall call;
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        const std::vector<int64_t> th = input_dims(n, 0);
        onnxc_k::AffineGridParams p{};
        p.N = th[0];
        p.nd = th[1];
        p.align_corners = attr_int(n, "align_corners", 0) != 0;
        call.kernel = kernel_name(n, "affine_grid_rt", input_dtype(n, 0));
        call.args = {n.inputs[0], n.inputs[1], n.outputs[0]};
        set_params(call, p);
        return call;
      }
      call.kernel = kernel_name(n, "affine_grid", input_dtype(n, 0));
      call.args = {n.inputs[0], n.outputs[0]};
      set_params(call, affine_grid_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
