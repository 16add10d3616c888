// Expand: broadcasts the input to the `shape` input, bidirectionally as numpy does. Lowers to
// the broadcasting copy kernel; with a shape computed at run time, to onnxc_k_broadcast_rt (an
// output shaped at run time, no bound).
#include "compiler/ops/op_util.h"
#include "compiler/ops/tensor/broadcast_call.h"
#include "templates/cpu/shaped_params.h"

namespace onnxc {

KernelCall broadcast_call(const Node &n, const std::vector<int64_t> &in) {
  std::vector<int64_t> out = output_dims(n, 0);
  int bits = dtype_slot_bits(input_dtype(n, 0));
  if (bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(input_dtype(n, 0)));
  std::vector<int64_t> params{bits / 8, static_cast<int64_t>(out.size())};
  params.insert(params.end(), out.begin(), out.end());
  params.insert(params.end(), in.begin(), in.end());
  return KernelCall{"onnxc_k_broadcast", {n.inputs[0], n.outputs[0]}, params};
}

KernelCall broadcast_rt_call(const Node &n, bool tile) {
  const std::vector<int64_t> in = input_dims(n, 0);
  int bits = dtype_slot_bits(input_dtype(n, 0));
  if (bits < 8 || bits > 64 || in.size() > 8)
    node_fail(n, "element type {} of rank {} is not supported with {} given at run time",
              dtype_name(input_dtype(n, 0)), in.size(), tile ? "repeats" : "a shape");
  onnxc_k::BroadcastRtParams p{};
  p.elem_bytes = bits / 8;
  p.tile = tile;
  p.rank = static_cast<int64_t>(in.size());
  std::copy(in.begin(), in.end(), p.dims);
  p.n = product(input_dims(n, 1));
  KernelCall call{"onnxc_k_broadcast_rt", {n.inputs[0], n.inputs[1], n.outputs[0]}, {}};
  set_params(call, p);
  return call;
}

const OpDef &op_Expand() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Expand";
    d.min_opset = 8;
    d.infer = [](Node &n) {
      if (values_at_run_time(n, 1)) {
        const std::vector<int64_t> in = input_dims(n, 0), s = input_dims(n, 1);
        if (input_dtype(n, 1) != DType::Int64 || s.size() != 1)
          node_fail(n, "shape must be a 1-D int64 tensor, it is {}",
                    shape_to_string(n.inputs[1]->type));
        const size_t rank = std::max<size_t>(in.size(), static_cast<size_t>(s[0]));
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), std::vector<int64_t>(rank, 1), 1);
        // The dims the compiler knows: a shape value e broadcast with the input's dim d is d
        // when d > 1 (e must be 1 or d), and e when e is known.
        const std::vector<std::optional<int64_t>> e = partial_int_values(n.inputs[1]);
        std::vector<int64_t> &known = n.outputs[0]->run_time_dims;
        known.assign(rank, -1);
        for (size_t k = 0; k < rank; ++k) {
          const auto s0 = static_cast<size_t>(s[0]);
          const int64_t d = k + in.size() >= rank ? in[k + in.size() - rank] : 1;
          std::optional<int64_t> v = 1; // no shape value there: the input's dim
          if (k + s0 >= rank)
            v = e.size() == s0 ? e[k + s0 - rank] : std::nullopt;
          if (v && *v >= 0)
            known[k] = *v == 1 ? d : *v;
          else if (d != 1)
            known[k] = d;
        }
        return;
      }
      std::vector<int64_t> shape = require_constant(n, 1, "shape").to_int64_vector();
      for (int64_t s : shape)
        if (s < 0)
          node_fail(n, "shape {} has a negative dimension", dims_to_string(shape));
      set_output(n, 0, input_dtype(n, 0), broadcast_shapes(n, {input_dims(n, 0), shape}));
    };
    d.lower = [](const Node &n) {
      if (!n.outputs[0]->run_time_shape_from.empty())
        return broadcast_rt_call(n, false);
      std::vector<int64_t> in = input_dims(n, 0);
      in.insert(in.begin(), output_dims(n, 0).size() - in.size(), 1);
      return broadcast_call(n, in);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
