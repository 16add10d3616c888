// MaxUnpool (opset 9+: kernel_shape, strides, pads; the optional output_shape input) and Col2Im
// (opset 18+: image_shape and block_shape; dilations, pads, strides): the inverses of MaxPool
// and of im2col. Up to 3 spatial dims; kernels templates/cpu/spatial_misc.cpp, params
// misc_params.h. When output_shape, or image_shape / block_shape, are computed at run time,
// the *_rt kernels check them and compute the output, shaped by the run with no bound.
#include "compiler/ops/nn/nn_util.h"
#include "templates/cpu/misc_params.h"

namespace onnxc {
namespace {

/// MaxUnpool's default output dims: (in - 1) * stride - pads + kernel per spatial dim.
std::vector<int64_t> unpool_default(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() < 3 || x.size() > 5)
    node_fail(n, "X must be N x C x D1 x ... with 1 to 3 spatial dims, got {}", dims_to_string(x));
  if (input_dtype(n, 1) != DType::Int64 || input_dims(n, 1) != x)
    node_fail(n, "I must be int64 with X's shape {}", dims_to_string(x));
  const size_t rank = x.size() - 2;
  const std::vector<int64_t> k = attr_ints(n, "kernel_shape");
  const std::vector<int64_t> s = attr_ints(n, "strides", std::vector<int64_t>(rank, 1));
  const std::vector<int64_t> pads = attr_ints(n, "pads", std::vector<int64_t>(2 * rank, 0));
  if (k.size() != rank || s.size() != rank || pads.size() != 2 * rank)
    node_fail(n,
              "kernel_shape, strides and pads must have {}, {} and {} values for {} spatial dims",
              rank, rank, 2 * rank, rank);
  std::vector<int64_t> out{x[0], x[1]};
  for (size_t d = 0; d < rank; ++d) {
    out.push_back((x[d + 2] - 1) * s[d] - pads[d] - pads[d + rank] + k[d]);
    if (out.back() < 1)
      node_fail(n, "the output would be empty in spatial dim {}", d);
  }
  return out;
}

/// output_shape computed at run time: the output is shaped by the run.
bool unpool_shape_at_run_time(const Node &n) { return values_at_run_time(n, 2); }

/// MaxUnpool's output dims: output_shape (a compile-time constant) if given, else the default.
std::vector<int64_t> unpool_output(const Node &n) {
  const std::vector<int64_t> def = unpool_default(n);
  if (!n.has_input(2))
    return def;
  std::vector<int64_t> out = require_constant(n, 2, "output_shape").to_int64_vector();
  bool fits = out.size() == def.size() && out[0] == def[0] && out[1] == def[1];
  for (size_t d = 2; fits && d < out.size(); ++d)
    fits = out[d] >= def[d];
  if (!fits)
    node_fail(n, "output_shape {} must have rank {}, start with {}, {} and be at least {}",
              dims_to_string(out), def.size(), def[0], def[1], dims_to_string(def));
  return out;
}

onnxc_k::MaxUnpoolParams max_unpool_params(const Node &n) {
  const std::vector<int64_t> def = unpool_default(n), out = output_dims(n, 0);
  onnxc_k::MaxUnpoolParams p{};
  p.in_count = product(input_dims(n, 0));
  p.planes = def[0] * def[1];
  const size_t lead = 5 - def.size();
  for (size_t d = 0; d < 3; ++d) {
    p.def[d] = d < lead ? 1 : def[d - lead + 2];
    p.out[d] = d < lead ? 1 : out[d - lead + 2];
  }
  return p;
}

bool col2im_at_run_time(const Node &n) {
  return values_at_run_time(n, 1) || values_at_run_time(n, 2);
}

/// Col2Im with image_shape or block_shape computed at run time: what the attributes and the
/// input's shape fix.
onnxc_k::Col2ImRtParams col2im_rt_params(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0);
  if (x.size() != 3)
    node_fail(n, "input must have shape [N, C * prod(block_shape), L], got {}", dims_to_string(x));
  for (size_t i : {size_t{1}, size_t{2}})
    if (input_dtype(n, i) != DType::Int64 || input_dims(n, i).size() != 1 ||
        input_dims(n, i) != input_dims(n, 1))
      node_fail(n,
                "image_shape and block_shape must be 1-D int64 tensors of one length, not {} "
                "and {}",
                shape_to_string(n.inputs[1]->type), shape_to_string(n.inputs[2]->type));
  const int64_t rank = input_dims(n, 1)[0];
  if (rank < 1 || rank > 3)
    node_fail(n, "image_shape with {} values: 1 to 3 spatial dims are supported", rank);
  const std::vector<int64_t> ones(static_cast<size_t>(rank), 1);
  Window w = make_window(n, ones, ones, false); // strides, pads, dilations from the attributes
  onnxc_k::Col2ImRtParams q{};
  q.N = x[0], q.CK = x[1], q.L = x[2], q.spatial = rank;
  q.w = window_geom(n, w);
  return q;
}

/// Col2Im's output dims [N, C, image...] and params.
onnxc_k::Col2ImParams col2im_params(const Node &n, std::vector<int64_t> *out_dims) {
  const std::vector<int64_t> x = input_dims(n, 0);
  const std::vector<int64_t> image = require_constant(n, 1, "image_shape").to_int64_vector();
  const std::vector<int64_t> block = require_constant(n, 2, "block_shape").to_int64_vector();
  if (x.size() != 3)
    node_fail(n, "input must have shape [N, C * prod(block_shape), L], got {}", dims_to_string(x));
  if (image.size() != block.size() || image.empty())
    node_fail(n, "image_shape {} and block_shape {} must have the same, non-zero length",
              dims_to_string(image), dims_to_string(block));
  const Window w = make_window(n, image, block, false);
  const int64_t k = product(block);
  if (x[1] % k != 0 || product(w.out) != x[2])
    node_fail(n, "input {} does not match block_shape {} ({} values per channel) and {} blocks",
              dims_to_string(x), dims_to_string(block), k, product(w.out));
  onnxc_k::Col2ImParams p{};
  p.N = x[0], p.C = x[1] / k;
  p.w = window_geom(n, w);
  if (out_dims) {
    *out_dims = {p.N, p.C};
    out_dims->insert(out_dims->end(), image.begin(), image.end());
  }
  return p;
}

} // namespace

const OpDef &op_MaxUnpool() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "MaxUnpool";
    d.min_opset = 9;
    d.attrs = {{"kernel_shape", Attribute::Kind::Ints, true},
               {"pads", Attribute::Kind::Ints},
               {"strides", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      kernel_name(n, "max_unpool", input_dtype(n, 0));
      if (unpool_shape_at_run_time(n)) {
        const std::vector<int64_t> def = unpool_default(n);
        if (input_dtype(n, 2) != DType::Int64 ||
            input_dims(n, 2) != std::vector<int64_t>{static_cast<int64_t>(def.size())})
          node_fail(n, "output_shape must be a 1-D int64 tensor of {} values, it is {}", def.size(),
                    shape_to_string(n.inputs[2]->type));
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), def, 2);
        return;
      }
      set_output(n, 0, input_dtype(n, 0), unpool_output(n));
    };
    d.lower = [](const Node &n) {
      if (unpool_shape_at_run_time(n)) {
        onnxc_k::MaxUnpoolRtParams q{};
        const std::vector<int64_t> def = unpool_default(n);
        q.p = max_unpool_params(n); // `out` is the default until the run reads output_shape
        q.rank = static_cast<int64_t>(def.size());
        q.n = def[0], q.c = def[1];
        KernelCall call{kernel_name(n, "max_unpool_rt", input_dtype(n, 0)),
                        {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]},
                        {}};
        set_params(call, q);
        return call;
      }
      KernelCall call;
      call.kernel = kernel_name(n, "max_unpool", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1], n.outputs[0]};
      set_params(call, max_unpool_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

const OpDef &op_Col2Im() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Col2Im";
    d.min_opset = 18;
    d.attrs = {{"dilations", Attribute::Kind::Ints},
               {"pads", Attribute::Kind::Ints},
               {"strides", Attribute::Kind::Ints}};
    d.infer = [](Node &n) {
      kernel_name(n, "col2im", input_dtype(n, 0));
      if (col2im_at_run_time(n)) {
        const onnxc_k::Col2ImRtParams q = col2im_rt_params(n);
        set_run_time_shaped_output(n, 0, input_dtype(n, 0),
                                   std::vector<int64_t>(static_cast<size_t>(2 + q.spatial), 1),
                                   values_at_run_time(n, 1) ? 1 : 2);
        return;
      }
      std::vector<int64_t> out;
      col2im_params(n, &out);
      set_output(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      if (col2im_at_run_time(n)) {
        KernelCall call{kernel_name(n, "col2im_rt", input_dtype(n, 0)),
                        {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]},
                        {}};
        set_params(call, col2im_rt_params(n));
        return call;
      }
      KernelCall call;
      call.kernel = kernel_name(n, "col2im", input_dtype(n, 0));
      call.args = {n.inputs[0], n.outputs[0]};
      set_params(call, col2im_params(n, nullptr));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
