// Tile: repeats the input `repeats[d]` times along each axis (repeats: an int64 input).
// Lowers to the broadcasting copy kernel, which reads input coordinate c % in_dim; with repeats
// computed at run time, to onnxc_k_broadcast_rt (an output shaped at run time, no bound).
#include "compiler/ops/op_util.h"
#include "compiler/ops/tensor/broadcast_call.h"

namespace onnxc {

const OpDef &op_Tile() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Tile";
    d.min_opset = 6;
    d.infer = [](Node &n) {
      std::vector<int64_t> in = input_dims(n, 0);
      if (values_at_run_time(n, 1)) {
        if (input_dtype(n, 1) != DType::Int64 ||
            input_dims(n, 1) != std::vector<int64_t>{static_cast<int64_t>(in.size())})
          node_fail(n, "repeats must be {} int64 values, one per input dim, it is {}", in.size(),
                    shape_to_string(n.inputs[1]->type));
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), std::vector<int64_t>(in.size(), 1), 1);
        return;
      }
      std::vector<int64_t> reps = require_constant(n, 1, "repeats").to_int64_vector();
      if (reps.size() != in.size())
        node_fail(n, "repeats has {} entries but the input has rank {}", reps.size(), in.size());
      for (size_t k = 0; k < in.size(); ++k) {
        if (reps[k] < 0)
          node_fail(n, "repeats[{}] = {} is negative", k, reps[k]);
        if (__builtin_mul_overflow(in[k], reps[k], &in[k]))
          node_fail(n, "repeats[{}] = {} makes the output too large", k, reps[k]);
      }
      set_output(n, 0, input_dtype(n, 0), in);
    };
    d.lower = [](const Node &n) {
      if (!n.outputs[0]->run_time_shape_from.empty())
        return broadcast_rt_call(n, true);
      return broadcast_call(n, input_dims(n, 0));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
