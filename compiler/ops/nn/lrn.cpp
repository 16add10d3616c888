// LRN: local response normalisation across channels (AlexNet, GoogLeNet, ZFNet). Input
// N x C x D1 ... Dk; float or double.
#include "compiler/ops/op_util.h"

namespace onnxc {

const OpDef &op_LRN() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "LRN";
    d.batch_transparent = true;
    d.attrs = {{"size", Attribute::Kind::Int, true},
               {"alpha", Attribute::Kind::Float},
               {"beta", Attribute::Kind::Float},
               {"bias", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Float, DType::Double});
      std::vector<int64_t> x = input_dims(n, 0);
      if (x.size() < 2)
        node_fail(n, "the input must have at least 2 dims (N x C x ...), it has {}", x.size());
      if (!has_attr(n, "size") || attr_int(n, "size", 0) < 1)
        node_fail(n, "attribute 'size' is required and must be at least 1");
      set_output(n, 0, input_dtype(n, 0), x);
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> x = input_dims(n, 0);
      int64_t spatial = product({x.begin() + 2, x.end()});
      return call_on_all(n, kernel_name(n, "lrn", input_dtype(n, 0)),
                         {x[0], x[1], spatial, attr_int(n, "size", 1),
                          param_f64(attr_float(n, "alpha", 1e-4f)),
                          param_f64(attr_float(n, "beta", 0.75f)),
                          param_f64(attr_float(n, "bias", 1.0f))});
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
