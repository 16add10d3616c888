// Range: [start, start + delta, ...) up to limit. With constant inputs Range evaluates at
// compile time; with a length from symbolic shapes its length is an expression; with inputs
// computed at run time its output is shaped at run time by onnxc_k_range_rt (no bound: the
// result goes to run-scoped memory under the context's dynamic limit).
#include "compiler/ops/sym_util.h"
#include "templates/cpu/half.h"
#include "templates/cpu/shaped_params.h"

#include <cmath>
#include <cstring>

namespace onnxc {

static Tensor range_value(const Node &n) {
  DType t = input_dtype(n, 0);
  require_dtype(n, t,
                {DType::Float, DType::Double, DType::Float16, DType::BFloat16, DType::Int16,
                 DType::Int32, DType::Int64});
  const char *names[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    if (require_constant(n, i, names[i]).numel() != 1)
      node_fail(n, "input '{}' must be a scalar", names[i]);
    if (input_dtype(n, i) != t)
      node_fail(n, "inputs have different element types");
  }
  const Tensor &s = *input_constant(n, 0), &l = *input_constant(n, 1), &dl = *input_constant(n, 2);
  bool is_float = dtype_is_float(t);
  double start = s.float_at(0), limit = l.float_at(0), delta = dl.float_at(0);
  if (delta == 0)
    node_fail(n, "delta is 0");
  // The element count, computed without overflow; Range is evaluated at compile time, so its
  // result is capped like other folded constants (256 MiB) instead of allocating unboundedly.
  const double max_count = double(int64_t(256) << 20) / double(dtype_bits(t) / 8);
  double wanted;
  if (is_float) {
    wanted = std::max(std::ceil((limit - start) / delta), 0.0);
  } else {
    int64_t a = s.int_at(0), b = l.int_at(0), d = dl.int_at(0);
    __int128 num = static_cast<__int128>(b) - a + d + (d > 0 ? -1 : 1);
    wanted = std::max(static_cast<double>(num / d), 0.0);
  }
  if (!(wanted <= max_count)) // also NaN
    node_fail(n,
              "the output would have {} elements, more than onnxc evaluates at compile time "
              "(256 MiB)",
              wanted);
  int64_t count = static_cast<int64_t>(wanted);
  // start + i * delta in wrapping arithmetic: the result lies in [start, limit), but i * delta
  // alone may not fit in int64.
  auto int_term = [&](int64_t i) {
    return static_cast<int64_t>(static_cast<uint64_t>(s.int_at(0)) +
                                static_cast<uint64_t>(i) * static_cast<uint64_t>(dl.int_at(0)));
  };
  Tensor out(t, {count});
  for (int64_t i = 0; i < count; ++i) {
    auto put = [&](auto v) { std::memcpy(out.data() + i * sizeof v, &v, sizeof v); };
    switch (t) {
    case DType::Float:
      put(static_cast<float>(start + double(i) * delta));
      break;
    case DType::Double:
      put(start + double(i) * delta);
      break;
    case DType::Float16: // start + i * delta in float, rounded once (numpy's arange for half)
      put(onnxc_k::half::float_to_half(static_cast<float>(start + double(i) * delta)));
      break;
    case DType::BFloat16:
      put(onnxc_k::half::float_to_bf16(static_cast<float>(start + double(i) * delta)));
      break;
    case DType::Int16:
      put(static_cast<int16_t>(int_term(i)));
      break;
    case DType::Int32:
      put(static_cast<int32_t>(int_term(i)));
      break;
    default:
      put(static_cast<int64_t>(int_term(i)));
      break;
    }
  }
  return out;
}

/// The length max(ceil((limit - start) / delta), 0) when the inputs are known as expressions
/// (a shape value) and not all constant; nullopt otherwise. delta must be a constant > 0.
static std::optional<SymInt> range_sym_length(const Node &n) {
  auto start = input_sym_value(n, 0), limit = input_sym_value(n, 1), delta = input_sym_value(n, 2);
  if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1 || (input_constant(n, 0) && input_constant(n, 1)))
    return std::nullopt;
  auto d = (*delta)[0].as_const();
  if (!d || *d <= 0)
    node_fail(n,
              "delta must be a positive constant when start or limit is a run-time dim "
              "({} .. {} by {})",
              (*start)[0].str(), (*limit)[0].str(), (*delta)[0].str());
  return SymInt::max(SymInt::ceildiv((*limit)[0] - (*start)[0], *d), 0);
}

/// The first of start/limit/delta computed at run time (values_at_run_time), or 3.
static size_t range_run_time_input(const Node &n) {
  for (size_t i = 0; i < 3; ++i)
    if (values_at_run_time(n, i))
      return i;
  return 3;
}

const OpDef &op_Range() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Range";
    d.min_opset = 11;
    d.infer = [](Node &n) {
      if (size_t from = range_run_time_input(n); from < 3 && !range_sym_length(n)) {
        const DType t = input_dtype(n, 0);
        require_dtype(n, t,
                      {DType::Float, DType::Double, DType::Float16, DType::BFloat16, DType::Int16,
                       DType::Int32, DType::Int64});
        for (size_t i = 0; i < 3; ++i)
          if (input_dtype(n, i) != t || product(input_dims(n, i)) != 1)
            node_fail(n, "start, limit and delta must be scalars of one element type");
        set_run_time_shaped_output(n, 0, t, {1}, from);
        return;
      }
      if (auto len = range_sym_length(n)) { // a length computed from symbolic shapes
        set_output_sym(n, 0, input_dtype(n, 0), {*len});
        return;
      }
      Tensor t = range_value(n);
      set_output(n, 0, t.dtype(), t.shape());
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return std::vector<Tensor>{range_value(n)};
    };
    d.lower = [](const Node &n) {
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        const DType t = input_dtype(n, 0);
        onnxc_k::RangeRtParams p{t == DType::Float      ? onnxc_k::kRangeF32
                                 : t == DType::Double   ? onnxc_k::kRangeF64
                                 : t == DType::Float16  ? onnxc_k::kRangeF16
                                 : t == DType::BFloat16 ? onnxc_k::kRangeBF16
                                 : t == DType::Int16    ? onnxc_k::kRangeI16
                                 : t == DType::Int32    ? onnxc_k::kRangeI32
                                                        : onnxc_k::kRangeI64};
        KernelCall call{
            "onnxc_k_range_rt", {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]}, {}};
        set_params(call, p);
        return call;
      }
      return write_constant_call(n, range_value(n));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
