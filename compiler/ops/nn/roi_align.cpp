// RoiAlign (opset 10+; coordinate_transformation_mode from opset 16, default half_pixel there):
// average or max of bilinear samples over each output bin of each region of interest.
// float/double; kernel templates/cpu/spatial_misc.cpp, params misc_params.h.
#include "compiler/ops/op_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {
onnxc_k::RoiAlignParams roi_align_params(const Node &n) {
  const DType dt = input_dtype(n, 0);
  require_dtype(n, dt, {DType::Float, DType::Double});
  require_inputs_dtype(n, dt, 1, 2);
  if (input_dtype(n, 2) != DType::Int64)
    node_fail(n, "batch_indices must be int64, got {}", dtype_name(input_dtype(n, 2)));
  const std::vector<int64_t> x = input_dims(n, 0), rois = input_dims(n, 1);
  if (x.size() != 4)
    node_fail(n, "X must have shape [N, C, H, W], got {}", dims_to_string(x));
  if (rois.size() != 2 || rois[1] != 4)
    node_fail(n, "rois must have shape [num_rois, 4], got {}", dims_to_string(rois));
  if (input_dims(n, 2) != std::vector<int64_t>{rois[0]})
    node_fail(n, "batch_indices must have shape [{}] (one per roi), got {}", rois[0],
              dims_to_string(input_dims(n, 2)));
  const std::string mode = attr_string(n, "mode", "avg");
  if (mode != "avg" && mode != "max")
    node_fail(n, "mode must be 'avg' or 'max', got '{}'", mode);
  const std::string ctm =
      attr_string(n, "coordinate_transformation_mode",
                  n.opset > 0 && n.opset < 16 ? "output_half_pixel" : "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    node_fail(
        n, "coordinate_transformation_mode must be 'half_pixel' or 'output_half_pixel', got '{}'",
        ctm);
  onnxc_k::RoiAlignParams p{};
  p.N = x[0], p.C = x[1], p.H = x[2], p.W = x[3], p.R = rois[0];
  p.out_h = attr_int(n, "output_height", 1), p.out_w = attr_int(n, "output_width", 1);
  p.sampling_ratio = attr_int(n, "sampling_ratio", 0);
  if (p.out_h < 1 || p.out_w < 1 || p.sampling_ratio < 0)
    node_fail(n, "output_height/width must be positive and sampling_ratio >= 0 (got {}, {}, {})",
              p.out_h, p.out_w, p.sampling_ratio);
  p.max_mode = mode == "max";
  p.half_pixel = ctm == "half_pixel";
  p.spatial_scale = attr_float(n, "spatial_scale", 1.0f);
  return p;
}
} // namespace

const OpDef &op_RoiAlign() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "RoiAlign";
    d.min_opset = 10;
    d.attrs = {{"coordinate_transformation_mode", Attribute::Kind::String},
               {"mode", Attribute::Kind::String},
               {"output_height", Attribute::Kind::Int},
               {"output_width", Attribute::Kind::Int},
               {"sampling_ratio", Attribute::Kind::Int},
               {"spatial_scale", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      const onnxc_k::RoiAlignParams p = roi_align_params(n);
      set_output(n, 0, input_dtype(n, 0), {p.R, p.C, p.out_h, p.out_w});
    };
    d.lower = [](const Node &n) {
      KernelCall call = call_on_all(n, kernel_name(n, "roi_align", input_dtype(n, 0)), {});
      set_params(call, roi_align_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
