// onnxc.SelectShaped (internal, from desugar-sequences): one of several static tensors of one
// element type and rank but different shapes, chosen by an index computed at run time (an
// element of a sequence whose position is given at run time). The output is shaped by the run,
// bounded by the largest dims (Value::run_time_bounded); onnxc_k_select_shaped copies the
// choice and records its shape.
#include "compiler/ops/tensor/select_shaped.h"
#include "compiler/ops/op_util.h"

#include <algorithm>

namespace onnxc {

const OpDef &op_SelectShaped() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "SelectShaped";
    d.domain = "onnxc";
    d.foldable = false;
    d.run_time_shaped_inputs = true; // choices shaped by the run: their shapes read from it
    d.infer = [](Node &n) {
      if (n.inputs.size() < 2 || input_dtype(n, 0) != DType::Int64 ||
          product(input_dims(n, 0)) != 1)
        node_fail(n, "internal error: SelectShaped takes an int64 index and its choices");
      const DType t = input_dtype(n, 1);
      std::vector<int64_t> bound = input_dims(n, 1);
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        const std::vector<int64_t> dims = input_dims(n, i);
        const int bits = dtype_bits(input_dtype(n, i));
        if (input_dtype(n, i) != t || dims.size() != bound.size() || t == DType::String ||
            bits <= 0 || bits % 8 != 0 || n.inputs[i]->run_time_data())
          node_fail(n, "its choices at a run-time position must be numeric or bool tensors of "
                       "one element type and rank");
        for (size_t k = 0; k < dims.size(); ++k)
          bound[k] = std::max(bound[k], dims[k]);
      }
      set_run_time_shaped_output(n, 0, t, bound, 0, true);
    };
    d.lower = [](const Node &n) {
      const size_t count = n.inputs.size() - 1, rank = input_dims(n, 1).size();
      // {count, elem_bytes, rank, dims of choice 0, ..., dims of choice count-1}
      std::vector<int64_t> p{static_cast<int64_t>(count), dtype_bits(input_dtype(n, 1)) / 8,
                             static_cast<int64_t>(rank)};
      std::vector<ShapeWord> words; // the dims of choices shaped by the run, from the run
      for (size_t i = 1; i <= count; ++i)
        for (size_t k = 0; k < rank; ++k) {
          if (!n.inputs[i]->run_time_shape_from.empty())
            words.push_back(ShapeWord{p.size(), i, static_cast<int64_t>(k), 0, 1});
          p.push_back(input_dims(n, i)[k]);
        }
      std::vector<Value *> args(n.inputs.begin(), n.inputs.end());
      args.push_back(n.outputs[0]);
      KernelCall call{"onnxc_k_select_shaped", std::move(args), std::move(p)};
      call.shape_words = std::move(words);
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
