#include "compiler/driver/run_buffers.h"
#include "compiler/driver/test_data.h"
#include "compiler/ir/error.h"
#include "compiler/passes/bind_shapes.h"

#include <algorithm>

namespace onnxc {
namespace {

/// `s` with its run-time dims at `values` (shape and byte size).
TensorSignature at_values(TensorSignature s, const std::vector<int64_t> &values) {
  for (size_t k = 0; k < s.dim_symbols.size(); ++k)
    if (s.dim_symbols[k] >= 0) {
      s.shape[k] = values.at(static_cast<size_t>(s.dim_symbols[k]));
      s.size_bytes *= static_cast<uint64_t>(s.shape[k]);
    }
  return s;
}

} // namespace

std::vector<int64_t> run_time_dim_values(const ModelLibrary &lib,
                                         const std::vector<std::string> &dim_flags) {
  ShapeBindings flags;
  for (const std::string &f : dim_flags)
    parse_dim_flag(f, flags);
  if (!flags.ranges.empty())
    fail("--dim {}: give one value per run-time dim (NAME=N)", flags.ranges.begin()->first);
  for (const auto &[name, v] : flags.dims)
    if (std::none_of(lib.symbols().begin(), lib.symbols().end(),
                     [&](const SymbolSignature &s) { return s.name == name; }))
      fail("--dim {}: the library has no run-time dim '{}'", name, name);
  std::vector<int64_t> values;
  for (const SymbolSignature &s : lib.symbols()) {
    auto it = flags.dims.find(s.name);
    values.push_back(it == flags.dims.end() ? s.min : it->second);
  }
  return values;
}

RunBuffers::RunBuffers(const ModelLibrary &lib, const std::vector<int64_t> &values)
    : shaped_(!lib.symbols().empty()) {
  for (const TensorSignature &s : lib.inputs()) {
    TensorSignature at = at_values(s, values);
    ins_.push_back(in_bufs_.emplace_back(synthetic_input(at)).data());
    in_shapes_.push_back(at.shape);
  }
  size_outputs(lib, values);
}

RunBuffers::RunBuffers(const ModelLibrary &lib, const std::vector<const Tensor *> &inputs)
    : shaped_(!lib.symbols().empty()) {
  std::vector<int64_t> values(lib.symbols().size(), 1);
  for (size_t i = 0; i < inputs.size() && i < lib.inputs().size(); ++i) {
    const TensorSignature &s = lib.inputs()[i];
    for (size_t k = 0; k < s.dim_symbols.size() && k < inputs[i]->shape().size(); ++k)
      if (s.dim_symbols[k] >= 0) // the library checks that equal dims agree
        values.at(static_cast<size_t>(s.dim_symbols[k])) = inputs[i]->shape()[k];
    ins_.push_back(inputs[i]->data());
    in_shapes_.push_back(inputs[i]->shape());
  }
  size_outputs(lib, values);
}

void RunBuffers::size_outputs(const ModelLibrary &lib, const std::vector<int64_t> &values) {
  for (const TensorSignature &s : lib.outputs()) {
    out_bytes_.push_back(std::max<uint64_t>(at_values(s, values).size_bytes, 1));
    outs_.push_back(out_bufs_.emplace_back(out_bytes_.back()).data());
  }
}

void RunBuffers::run(ModelLibrary::Context &ctx) {
  if (shaped_)
    ctx.run_shaped(ins_, in_shapes_, outs_, out_bytes_);
  else
    ctx.run_buffers(ins_, outs_);
}

} // namespace onnxc
