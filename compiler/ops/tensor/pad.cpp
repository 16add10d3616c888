// Pad: constant / reflect / edge / wrap (opset 19) padding; negative pads crop. Before opset 11
// pads, mode and value are attributes; from 11 pads is a constant input and constant_value an
// optional input (may be computed at run time); opset 18 adds the optional axes input. pads or
// axes computed at run time shape the output at run time (onnxc_k_pad_rt, no bound).
#include "compiler/ops/tensor/pad.h"
#include "templates/cpu/shaped_params.h"

#include <cstring>

namespace onnxc {

namespace {
int64_t pad_mode(const Node &n) {
  std::string mode = attr_string(n, "mode", "constant");
  if (mode == "constant")
    return 0;
  if (mode == "reflect")
    return 1;
  if (mode == "edge")
    return 2;
  if (mode == "wrap" && n.opset >= 19)
    return 3;
  node_fail(n, "mode '{}' is not supported (constant, reflect, edge{})", mode,
            n.opset >= 19 ? ", wrap" : "");
}

/// Begin pads, one per input axis (end pads in `end`).
std::vector<int64_t> pad_begins(const Node &n, std::vector<int64_t> &end) {
  int64_t rank = static_cast<int64_t>(input_dims(n, 0).size());
  std::vector<int64_t> pads = n.opset < 11 ? attr_ints(n, has_attr(n, "pads") ? "pads" : "paddings")
                                           : require_constant(n, 1, "pads").to_int64_vector();
  std::vector<int64_t> axes;
  if (n.opset >= 18 && n.has_input(3))
    axes = require_constant(n, 3, "axes").to_int64_vector();
  else
    for (int64_t k = 0; k < rank; ++k)
      axes.push_back(k);
  if (pads.size() != 2 * axes.size())
    node_fail(n, "pads has {} entries but needs {} (begin and end for {} axes)", pads.size(),
              2 * axes.size(), axes.size());
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
  end.assign(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(normalize_axis(n, axes[i], rank));
    begin[a] = pads[i];
    end[a] = pads[i + axes.size()];
  }
  return begin;
}

int64_t elem_bytes(const Node &n) {
  DType t = input_dtype(n, 0);
  int bits = dtype_bits(t);
  if (t == DType::String || bits < 8 || bits > 64)
    node_fail(n, "element type {} is not supported", dtype_name(t));
  return bits / 8;
}

/// Bits of the pre-opset-11 `value` attribute in the input's dtype.
int64_t attr_value_bits(const Node &n) {
  double v = attr_float(n, "value", 0.0f);
  int64_t bits = 0;
  if (input_dtype(n, 0) == DType::Float) {
    float f = static_cast<float>(v);
    std::memcpy(&bits, &f, sizeof f);
  } else if (input_dtype(n, 0) == DType::Double) {
    std::memcpy(&bits, &v, sizeof v);
  } else if (v != 0) {
    node_fail(n, "a non-zero pad value is supported for float and double only");
  }
  return bits;
}
/// The first of pads / axes computed at run time (opset 11+ / 18+), or 0.
size_t pads_run_time_input(const Node &n) {
  if (n.opset >= 11 && values_at_run_time(n, 1))
    return 1;
  if (n.opset >= 18 && values_at_run_time(n, 3))
    return 3;
  return 0;
}
} // namespace

KernelCall pad_call(const Node &n, const std::vector<int64_t> &begin, int64_t mode,
                    int64_t value_bits, Value *value) {
  std::vector<int64_t> in = input_dims(n, 0), out = output_dims(n, 0);
  std::vector<int64_t> params{elem_bytes(n), mode, static_cast<int64_t>(in.size())};
  for (const std::vector<int64_t> *v :
       std::initializer_list<const std::vector<int64_t> *>{&out, &in, &begin})
    params.insert(params.end(), v->begin(), v->end());
  params.push_back(value_bits);
  return KernelCall{"onnxc_k_pad", {n.inputs[0], value, n.outputs[0]}, params};
}

const OpDef &op_Pad() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Pad";
    d.min_opset = 2;
    d.attrs = {{"mode", Attribute::Kind::String},
               {"pads", Attribute::Kind::Ints},
               {"value", Attribute::Kind::Float}};
    d.infer = [](Node &n) {
      if (size_t from = pads_run_time_input(n)) {
        const std::vector<int64_t> in = input_dims(n, 0);
        pad_mode(n);
        elem_bytes(n);
        const int64_t naxes =
            n.opset >= 18 && n.has_input(3) ? product(input_dims(n, 3)) : int64_t(in.size());
        if (input_dtype(n, 1) != DType::Int64 || product(input_dims(n, 1)) != 2 * naxes ||
            in.size() > 8)
          node_fail(n, "pads must be {} int64 values (begin and end for {} axes), it is {}",
                    2 * naxes, naxes, shape_to_string(n.inputs[1]->type));
        set_run_time_shaped_output(n, 0, input_dtype(n, 0), std::vector<int64_t>(in.size(), 1),
                                   from);
        return;
      }
      std::vector<int64_t> in = input_dims(n, 0), end, out;
      std::vector<int64_t> begin = pad_begins(n, end);
      int64_t mode = pad_mode(n);
      elem_bytes(n);
      if (n.opset >= 11 && n.has_input(2) && input_dtype(n, 2) != input_dtype(n, 0))
        node_fail(n, "constant_value has element type {} but the data has {}",
                  dtype_name(input_dtype(n, 2)), dtype_name(input_dtype(n, 0)));
      for (size_t k = 0; k < in.size(); ++k) {
        int64_t o = 0;
        if (__builtin_add_overflow(in[k], begin[k], &o) || __builtin_add_overflow(o, end[k], &o))
          node_fail(n, "pads {} / {} on axis {} are too large", begin[k], end[k], k);
        if (o < 0)
          node_fail(n, "pads {} / {} crop axis {} of size {} below zero", begin[k], end[k], k,
                    in[k]);
        if (mode != 0 && in[k] == 0 && o > 0)
          node_fail(n, "cannot pad the empty axis {} in a non-constant mode", k);
        out.push_back(o);
      }
      set_output(n, 0, input_dtype(n, 0), out);
    };
    d.lower = [](const Node &n) {
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        const std::vector<int64_t> in = input_dims(n, 0);
        onnxc_k::PadRtParams p{};
        p.elem_bytes = elem_bytes(n);
        p.mode = pad_mode(n);
        p.rank = static_cast<int64_t>(in.size());
        std::copy(in.begin(), in.end(), p.dims);
        const bool axes = n.opset >= 18 && n.has_input(3);
        if (axes) {
          p.axes_bytes = input_dtype(n, 3) == DType::Int32 ? 4 : 8;
          p.naxes = product(input_dims(n, 3));
        }
        KernelCall call{
            "onnxc_k_pad_rt",
            {n.inputs[0], n.inputs[1], n.input(2), axes ? n.inputs[3] : nullptr, n.outputs[0]},
            {}};
        set_params(call, p);
        return call;
      }
      std::vector<int64_t> end;
      std::vector<int64_t> begin = pad_begins(n, end);
      Value *value = n.opset >= 11 ? n.input(2) : nullptr;
      return pad_call(n, begin, pad_mode(n), n.opset < 11 ? attr_value_bits(n) : 0, value);
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
