// onnxc.CheckShape (internal, from infer-shapes): a body output whose shape values computed at
// run time decide (Value::run_time_shape_from, bounded), where the model declares a static
// shape for it (a Loop's carried value or scan output, an If branch's result: onnxc compiles
// the enclosing op with static shapes). Its output has the declared shape; the kernel
// (onnxc_k_check_shape, templates/cpu/shaped.cpp) compares the shape the run recorded with it,
// fails the run naming both when they differ, and copies the elements.
#include "compiler/ops/tensor/check_shape.h"
#include "compiler/ops/op_util.h"

namespace onnxc {

bool check_shape_supports(DType t) {
  const int bits = dtype_bits(t);
  return t != DType::String && bits > 0 && bits % 8 == 0;
}

const OpDef &op_CheckShape() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "CheckShape";
    d.domain = "onnxc";
    d.foldable = false;
    d.run_time_shaped_inputs = true; // reads its input's shape from the run
    d.infer = [](Node &n) {
      const Value *x = n.inputs.empty() ? nullptr : n.inputs[0];
      const std::vector<int64_t> dims = attr_ints(n, kCheckShapeDimsAttr);
      if (!x || x->run_time_data() || x->type.rank() != static_cast<int64_t>(dims.size()) ||
          !check_shape_supports(x->type.dtype))
        node_fail(n, "internal error: CheckShape takes a bounded value shaped at run time of "
                     "the declared rank");
      // Inferred again after its input became static (a later inference of the body knows
      // more): then the shapes are compared now.
      if (x->run_time_shape_from.empty() && x->type.static_dims() != dims)
        node_fail(n, "the body output '{}' is {} but the model declares {}", x->name,
                  dims_to_string(x->type.static_dims()), dims_to_string(dims));
      n.outputs[0]->type = Type::of(x->type.dtype, dims);
    };
    d.lower = [](const Node &n) {
      const std::vector<int64_t> dims = attr_ints(n, kCheckShapeDimsAttr);
      const auto rank = static_cast<int64_t>(dims.size());
      // {elem_bytes, rank, declared dims..., the run's dims...}
      std::vector<int64_t> p{dtype_bits(input_dtype(n, 0)) / 8, rank};
      p.insert(p.end(), dims.begin(), dims.end());
      std::vector<ShapeWord> words;
      const bool from_run = !n.inputs[0]->run_time_shape_from.empty();
      for (int64_t k = 0; k < rank; ++k) {
        if (from_run)
          words.push_back(ShapeWord{p.size(), 0, k, 0, 1});
        p.push_back(from_run ? -1 : input_dims(n, 0)[k]);
      }
      KernelCall call{"onnxc_k_check_shape", {n.inputs[0], n.outputs[0]}, std::move(p)};
      call.shape_words = std::move(words);
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
