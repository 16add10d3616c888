// Shape and Size: metadata of the input, known at compile time once shapes are static. Both
// evaluate without the input's data (OpDef::eval) and lower to writing the constant result.
#include "compiler/ops/sym_util.h"

#include <algorithm>
#include <cstring>

namespace onnxc {

/// Dims [start, end) of the input (opset 15 start/end attributes, clamped like Slice).
template <typename D> static std::vector<D> shape_of(const Node &n, const std::vector<D> &dims) {
  int64_t rank = static_cast<int64_t>(dims.size());
  int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
  if (n.opset < 15)
    start = 0, end = rank;
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
  start = clamp(start);
  end = std::max(clamp(end), start);
  return {dims.begin() + start, dims.begin() + end};
}

static std::vector<int64_t> shape_of(const Node &n) { return shape_of(n, input_dims(n, 0)); }

static bool shaped_by_run(const Node &n) { return !n.inputs[0]->run_time_shape_from.empty(); }

/// Writes `words` (int64) to the output, those of `shape_words` computed from the run's shape
/// of input 0 (templates/cpu/shaped.cpp onnxc_k_write_words).
static KernelCall write_words_call(const Node &n, size_t count, std::vector<ShapeWord> words) {
  KernelCall call{"onnxc_k_write_words", {n.inputs[0], n.outputs[0]}, {}};
  call.params.assign(1 + count, 0);
  call.params[0] = static_cast<int64_t>(count);
  for (ShapeWord &w : words)
    w.word += 1;
  call.shape_words = std::move(words);
  return call;
}

/// Shape of a symbolic input: the dims as expressions (Value::sym_value).
std::vector<SymInt> sym_shape_of(const Node &n) { return shape_of(n, input_sym_dims(n, 0)); }

const OpDef &op_Shape() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Shape";
    d.reads_input_values = false;
    d.run_time_shaped_input = true; // its dims read from the run
    d.attrs = {{"start", Attribute::Kind::Int}, {"end", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      set_output(n, 0, DType::Int64, {static_cast<int64_t>(sym_shape_of(n).size())});
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return std::vector<Tensor>{Tensor::vector_i64(shape_of(n))};
    };
    d.lower = [](const Node &n) {
      if (shaped_by_run(n)) {
        std::vector<int64_t> all(input_dims(n, 0).size());
        for (size_t k = 0; k < all.size(); ++k)
          all[k] = static_cast<int64_t>(k);
        std::vector<ShapeWord> words;
        for (int64_t k : shape_of(n, all))
          words.push_back(ShapeWord{words.size(), 0, k, 0, 1});
        const size_t count = words.size();
        return write_words_call(n, count, std::move(words));
      }
      return write_constant_call(n, Tensor::vector_i64(shape_of(n)));
    };
    return d;
  }();
  return def;
}

const OpDef &op_Size() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "Size";
    d.reads_input_values = false;
    d.run_time_shaped_input = true; // its element count read from the run
    d.infer = [](Node &n) {
      input_sym_dims(n, 0);
      set_output(n, 0, DType::Int64, {});
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return std::vector<Tensor>{Tensor::scalar_i64(product(input_dims(n, 0)))};
    };
    d.lower = [](const Node &n) {
      if (shaped_by_run(n))
        return write_words_call(n, 1, {ShapeWord{0, 0, -1, 0, 1}});
      return write_constant_call(n, Tensor::scalar_i64(product(input_dims(n, 0))));
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
