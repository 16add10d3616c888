// Split: cuts the input along `axis` into the node's outputs. Sizes come from the `split`
// attribute (before opset 13), the constant `split` input (13+), or are equal: the axis must
// divide evenly, except with opset 18's num_outputs, where the last part may be smaller. A
// `split` input computed at run time shapes the outputs at run time (onnxc_k_split_rt, which
// checks the sizes and reports each output's shape: Value::run_time_shape_from).
#include "compiler/ops/op_util.h"
#include "compiler/ops/sym_util.h"
#include "templates/cpu/shaped_params.h"

namespace onnxc {

static std::vector<int64_t> split_sizes(const Node &n, int64_t len) {
  std::vector<int64_t> sizes;
  if (n.opset < 13)
    sizes = attr_ints(n, "split");
  else if (n.has_input(1))
    sizes = require_constant(n, 1, "split").to_int64_vector();
  int64_t parts = static_cast<int64_t>(n.outputs.size());
  if (!sizes.empty()) {
    if (static_cast<int64_t>(sizes.size()) != parts)
      node_fail(n, "split has {} sizes but the node has {} outputs", sizes.size(), parts);
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0)
        node_fail(n, "split size {} is negative", s);
      if (s > len - total) // also keeps the sum from overflowing
        node_fail(n, "split sizes add up to more than the axis' size {}", len);
      total += s;
    }
    if (total != len)
      node_fail(n, "split sizes add up to {} but the axis has size {}", total, len);
    return sizes;
  }
  if (n.opset >= 18 && has_attr(n, "num_outputs")) {
    int64_t k = attr_int(n, "num_outputs", parts);
    if (k != parts || k <= 0)
      node_fail(n, "num_outputs is {} but the node has {} outputs", k, parts);
    const int64_t chunk = (len + k - 1) / k;
    if ((k - 1) * chunk > len) // ONNX's reference refuses a last part below 0 (5 into 4)
      node_fail(n,
                "num_outputs {} cannot split an axis of size {}: parts of {} (the rounded-up "
                "share) leave {} for the last one",
                k, len, chunk, len - (k - 1) * chunk);
    for (int64_t i = 0; i < k; ++i)
      sizes.push_back(std::min(chunk, len - i * chunk));
    return sizes;
  }
  if (parts == 0 || len % parts != 0)
    node_fail(n, "axis of size {} cannot be split evenly into {} outputs", len, parts);
  return std::vector<int64_t>(static_cast<size_t>(parts), len / parts);
}

const OpDef &op_Split() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Split";
    d.min_opset = 2;
    d.attrs = {{"axis", Attribute::Kind::Int},
               {"split", Attribute::Kind::Ints},
               {"num_outputs", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      if (n.opset >= 13 && input_type(n, 0).is_static() && values_at_run_time(n, 1)) {
        const std::vector<int64_t> in = input_dims(n, 0);
        if (in.empty() || in.size() > 8)
          node_fail(n, "a split given at run time needs an input of rank 1 to 8, not {}",
                    in.size());
        if (input_dtype(n, 1) != DType::Int64 ||
            input_dims(n, 1) != std::vector<int64_t>{static_cast<int64_t>(n.outputs.size())})
          node_fail(n, "split must be an int64 tensor of {} sizes, one per output, it is {}",
                    n.outputs.size(), shape_to_string(n.inputs[1]->type));
        normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(in.size()));
        for (size_t i = 0; i < n.outputs.size(); ++i)
          set_run_time_shaped_output(n, i, input_dtype(n, 0), in, 1, true);
        return;
      }
      if (has_symbolic_input(n)) { // run-time dims off the split axis pass through
        std::vector<SymInt> in = input_sym_dims(n, 0);
        if (in.empty())
          node_fail(n, "cannot split a scalar");
        size_t axis = static_cast<size_t>(
            normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(in.size())));
        auto len = in[axis].as_const();
        if (!len)
          node_fail(n,
                    "splitting the run-time dim '{}' (axis {}) is not supported yet; bind it "
                    "with --dim NAME=N",
                    in[axis].str(), axis);
        std::vector<int64_t> sizes = split_sizes(n, *len);
        for (size_t i = 0; i < sizes.size(); ++i) {
          std::vector<SymInt> out = in;
          out[axis] = sizes[i];
          set_output_sym(n, i, input_dtype(n, 0), out);
        }
        return;
      }
      std::vector<int64_t> in = input_dims(n, 0);
      if (in.empty())
        node_fail(n, "cannot split a scalar");
      size_t axis = static_cast<size_t>(
          normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(in.size())));
      std::vector<int64_t> sizes = split_sizes(n, in[axis]);
      for (size_t i = 0; i < sizes.size(); ++i) {
        std::vector<int64_t> out = in;
        out[axis] = sizes[i];
        set_output(n, i, input_dtype(n, 0), out);
      }
    };
    d.lower = [](const Node &n) {
      std::vector<int64_t> in = input_dims(n, 0);
      size_t axis = static_cast<size_t>(
          normalize_axis(n, attr_int(n, "axis", 0), static_cast<int64_t>(in.size())));
      int bits = dtype_slot_bits(input_dtype(n, 0));
      if (bits < 8 || bits > 64)
        node_fail(n, "element type {} is not supported", dtype_name(input_dtype(n, 0)));
      if (n.opset >= 13 && values_at_run_time(n, 1)) {
        onnxc_k::SplitRtParams p{};
        p.elem_bytes = bits / 8;
        p.rank = static_cast<int64_t>(in.size());
        std::copy(in.begin(), in.end(), p.dims);
        p.axis = static_cast<int64_t>(axis);
        p.outputs = static_cast<int64_t>(n.outputs.size());
        KernelCall c{"onnxc_k_split_rt", {n.inputs[0], n.inputs[1]}, {}};
        c.args.insert(c.args.end(), n.outputs.begin(), n.outputs.end());
        set_params(c, p);
        return c;
      }
      int64_t inner = product({in.begin() + axis + 1, in.end()});
      std::vector<int64_t> params{bits / 8, product({in.begin(), in.begin() + axis}),
                                  static_cast<int64_t>(n.outputs.size())};
      for (int64_t s : split_sizes(n, in[axis]))
        params.push_back(s * inner);
      KernelCall c{"onnxc_k_split", {n.inputs[0]}, params};
      c.args.insert(c.args.end(), n.outputs.begin(), n.outputs.end());
      return c;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
