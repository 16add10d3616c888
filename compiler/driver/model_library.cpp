#include "compiler/driver/model_library.h"
#include "compiler/ir/error.h"
#include "compiler/ir/ir.h"

#include <algorithm>

#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <map>

namespace onnxc {
namespace {

template <typename F> void resolve(void *h, const std::string &path, const char *name, F &fn) {
  void *sym = dlsym(h, name);
  if (!sym)
    fail("{} is not an onnxc model library: symbol {} is missing", path, name);
  fn = reinterpret_cast<F>(sym);
}

std::vector<TensorSignature> signatures(int32_t n,
                                        onnxc_status (*info)(int32_t, onnxc_tensor_info *)) {
  std::vector<TensorSignature> out;
  for (int32_t i = 0; i < n; ++i) {
    onnxc_tensor_info ti{};
    if (info(i, &ti) != ONNXC_OK)
      fail("the model library could not describe tensor {}", i);
    TensorSignature s{ti.name ? ti.name : "",
                      static_cast<DType>(ti.dtype),
                      std::vector<int64_t>(ti.shape, ti.shape + ti.rank),
                      ti.size_bytes,
                      {}};
    if (ti.dim_symbols)
      s.dim_symbols.assign(ti.dim_symbols, ti.dim_symbols + ti.rank);
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace

ModelLibrary::ModelLibrary(const std::string &path) : path_(path) {
  // dlopen searches the library path for names without a slash; always pass a path.
  std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  if (!std::filesystem::exists(p))
    fail("{}: no such file", path);
  handle_ = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_)
    fail("cannot load {}: {}", path, dlerror());
  resolve(handle_, path, "onnxc_abi_version", api_.abi_version);
  if (api_.abi_version() != ONNXC_ABI_VERSION)
    fail("{} was compiled for runtime ABI {}, this onnxc speaks ABI {}; recompile the model", path,
         api_.abi_version(), ONNXC_ABI_VERSION);
  resolve(handle_, path, "onnxc_signature_json", api_.signature_json);
  resolve(handle_, path, "onnxc_model_name", api_.model_name);
  resolve(handle_, path, "onnxc_arena_size", api_.arena_size);
  resolve(handle_, path, "onnxc_num_inputs", api_.num_inputs);
  resolve(handle_, path, "onnxc_num_outputs", api_.num_outputs);
  resolve(handle_, path, "onnxc_input_info", api_.input_info);
  resolve(handle_, path, "onnxc_output_info", api_.output_info);
  resolve(handle_, path, "onnxc_create", api_.create);
  resolve(handle_, path, "onnxc_destroy", api_.destroy);
  resolve(handle_, path, "onnxc_set_num_threads", api_.set_num_threads);
  resolve(handle_, path, "onnxc_run", api_.run);
  resolve(handle_, path, "onnxc_run_buffers", api_.run_buffers);
  resolve(handle_, path, "onnxc_last_error", api_.last_error);
  api_.profile_num_nodes =
      reinterpret_cast<int32_t (*)()>(dlsym(handle_, "onnxc_profile_num_nodes"));
  api_.profile_node =
      reinterpret_cast<decltype(api_.profile_node)>(dlsym(handle_, "onnxc_profile_node"));
  if (!api_.profile_node)
    api_.profile_num_nodes = nullptr;
  api_.output_result =
      reinterpret_cast<decltype(api_.output_result)>(dlsym(handle_, "onnxc_output_result"));
  onnxc_status (*symbol)(int32_t, onnxc_symbol_info *) = nullptr;
  int32_t (*num_symbols)() = nullptr;
  resolve(handle_, path, "onnxc_num_symbols", num_symbols);
  resolve(handle_, path, "onnxc_symbol", symbol);
  for (int32_t i = 0; i < num_symbols(); ++i) {
    onnxc_symbol_info info{};
    if (symbol(i, &info) != ONNXC_OK)
      fail("{}: the model library could not describe symbol {}", path, i);
    symbols_.push_back({info.name ? info.name : "", info.min, info.max, info.count != 0});
  }
  inputs_ = signatures(api_.num_inputs(), api_.input_info);
  outputs_ = signatures(api_.num_outputs(), api_.output_info);
}

ModelLibrary::~ModelLibrary() {
  if (handle_)
    dlclose(handle_);
}

ModelLibrary::Context::Context(const ModelLibrary &lib) : lib_(lib) {
  if (lib_.api_.create(&ctx_) != ONNXC_OK)
    fail("{}: cannot create a context: {}", lib_.path_, lib_.api_.last_error(nullptr));
}

ModelLibrary::Context::~Context() { lib_.api_.destroy(ctx_); }

void ModelLibrary::Context::set_num_threads(int n) {
  if (lib_.api_.set_num_threads(ctx_, n) != ONNXC_OK)
    fail("{}: {}", lib_.path_, lib_.api_.last_error(ctx_));
}

static onnxc_tensor make_abi_tensor(void *data, uint64_t bytes, DType dt,
                                    const std::vector<int64_t> &shape) {
  onnxc_tensor t{};
  t.data = data;
  t.size_bytes = bytes;
  t.dtype = static_cast<int32_t>(dt);
  t.rank = static_cast<int32_t>(shape.size());
  if (shape.size() > ONNXC_MAX_RANK)
    fail("tensors of rank {} exceed the ABI's maximum rank {}", shape.size(), ONNXC_MAX_RANK);
  std::copy(shape.begin(), shape.end(), t.shape);
  return t;
}

/// String tensors cross the ABI as arrays of `const char *`: pointers into the input tensors'
/// strings, and for outputs slots the library fills (copied into the results after the run).
struct StringSlots {
  std::vector<std::vector<const char *>> arrays;

  /// Data pointer and byte size of `t` as the ABI wants it.
  std::pair<void *, uint64_t> input(const Tensor &t) {
    if (t.dtype() != DType::String)
      return {const_cast<uint8_t *>(t.data()), t.nbytes()};
    auto &v = arrays.emplace_back();
    for (const std::string &s : t.strings())
      v.push_back(s.c_str());
    return {v.data(), v.size() * sizeof(const char *)};
  }
  std::pair<void *, uint64_t> output(Tensor &t) {
    if (t.dtype() != DType::String)
      return {t.data(), t.nbytes()};
    auto &v = arrays.emplace_back(t.strings().size(), nullptr);
    return {v.data(), v.size() * sizeof(const char *)};
  }
};

std::vector<Tensor> ModelLibrary::Context::run(const std::vector<const Tensor *> &inputs) {
  std::vector<onnxc_tensor> in, out;
  StringSlots slots;
  slots.arrays.reserve(inputs.size() + lib_.outputs_.size());
  for (const Tensor *t : inputs) {
    auto [data, bytes] = slots.input(*t);
    in.push_back(make_abi_tensor(data, bytes, t->dtype(), t->shape()));
  }
  // Run-time dims: each symbol's value from the first input dim that is it (the library
  // checks the others), then the outputs' shapes from those values.
  std::map<int32_t, int64_t> symbols;
  for (size_t i = 0; i < inputs.size() && i < lib_.inputs_.size(); ++i)
    for (size_t k = 0; k < lib_.inputs_[i].dim_symbols.size() && k < inputs[i]->shape().size(); ++k)
      if (lib_.inputs_[i].dim_symbols[k] >= 0)
        symbols.emplace(lib_.inputs_[i].dim_symbols[k], inputs[i]->shape()[k]);
  std::vector<Tensor> results;
  for (const TensorSignature &s : lib_.outputs_) {
    std::vector<int64_t> shape = s.shape;
    if (std::count(s.dim_symbols.begin(), s.dim_symbols.end(), -2) > 0) {      // set by the run:
      const auto elem = static_cast<uint64_t>(Tensor(s.dtype, {1}).nbytes());  // room for the
      results.emplace_back(s.dtype, std::vector<int64_t>{static_cast<int64_t>( // largest result
                                        s.size_bytes / std::max<uint64_t>(elem, 1))});
      continue;
    }
    for (size_t k = 0; k < s.dim_symbols.size(); ++k)
      if (s.dim_symbols[k] >= 0) {
        auto it = symbols.find(s.dim_symbols[k]);
        const auto sym = static_cast<size_t>(s.dim_symbols[k]);
        if (sym < lib_.symbols_.size() && lib_.symbols_[sym].count) // room for the largest
          shape[k] = lib_.symbols_[sym].max;
        else
          shape[k] = it == symbols.end() ? 1 : std::max<int64_t>(it->second, 0);
      }
    results.emplace_back(s.dtype, shape);
  }
  std::vector<const char **> string_outs;
  for (Tensor &r : results) {
    auto [data, bytes] = slots.output(r);
    string_outs.push_back(r.dtype() == DType::String ? static_cast<const char **>(data) : nullptr);
    out.push_back(make_abi_tensor(data, bytes, r.dtype(), r.shape()));
  }
  onnxc_status st = lib_.api_.run(ctx_, in.data(), static_cast<int32_t>(in.size()), out.data(),
                                  static_cast<int32_t>(out.size()));
  if (st == ONNXC_ERROR_BUFFER_TOO_SMALL && lib_.api_.output_result) {
    // An output shaped at run time without a bound (Range, ConstantOfShape) came back larger
    // than its planned size: read the kept results (docs/runtime-api.md).
    bool fetched = false;
    for (size_t i = 0; i < results.size(); ++i) {
      onnxc_tensor view{};
      if (lib_.api_.output_result(ctx_, static_cast<int32_t>(i), &view) != ONNXC_OK)
        continue;
      fetched = true;
      Tensor r(results[i].dtype(), std::vector<int64_t>(view.shape, view.shape + view.rank));
      if (r.nbytes() != view.size_bytes)
        fail("{}: output {} holds {} bytes for {} elements", lib_.path_, i, view.size_bytes,
             r.numel());
      std::copy_n(static_cast<const uint8_t *>(view.data), r.nbytes(), r.data());
      results[i] = std::move(r);
      std::copy_n(view.shape, view.rank, out[i].shape);
      out[i].rank = view.rank;
    }
    if (fetched) // the run finished: every output shaped at run time is read
      st = ONNXC_OK;
  }
  if (st != ONNXC_OK)
    fail("{}: run failed (status {}): {}", lib_.path_, static_cast<int>(st),
         lib_.api_.last_error(ctx_));
  for (size_t i = 0; i < results.size(); ++i) { // outputs with a run-time count: as computed
    std::vector<int64_t> got(out[i].shape, out[i].shape + std::max(out[i].rank, 0));
    if (got == results[i].shape())
      continue;
    Tensor r(results[i].dtype(), got);
    if (r.dtype() == DType::String) { // its pointers are read below
      if (r.numel() > results[i].numel())
        fail("{}: output {} grew to {} after the run", lib_.path_, i, dims_to_string(got));
      results[i] = std::move(r);
      continue;
    }
    if (r.nbytes() > results[i].nbytes())
      fail("{}: output {} grew to {} after the run", lib_.path_, i, dims_to_string(got));
    std::copy_n(results[i].data(), r.nbytes(), r.data());
    results[i] = std::move(r);
  }
  for (size_t i = 0; i < results.size(); ++i)
    for (size_t k = 0; string_outs[i] && k < results[i].strings().size(); ++k) {
      if (!string_outs[i][k])
        fail("{}: output {} string element {} is NULL after the run", lib_.path_, i, k);
      results[i].strings()[k] = string_outs[i][k];
    }
  return results;
}

void ModelLibrary::Context::run_shaped(const std::vector<const void *> &inputs,
                                       const std::vector<std::vector<int64_t>> &input_shapes,
                                       const std::vector<void *> &outputs,
                                       const std::vector<uint64_t> &output_bytes) {
  std::vector<onnxc_tensor> in, out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSignature &s = lib_.inputs_.at(i);
    uint64_t bytes = s.size_bytes;
    for (size_t k = 0; k < s.dim_symbols.size(); ++k)
      if (s.dim_symbols[k] >= 0)
        bytes *= static_cast<uint64_t>(input_shapes[i][k]);
    in.push_back(make_abi_tensor(const_cast<void *>(inputs[i]), bytes, s.dtype, input_shapes[i]));
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    out.push_back(make_abi_tensor(outputs[i], output_bytes[i], lib_.outputs_.at(i).dtype, {}));
  onnxc_status st = lib_.api_.run(ctx_, in.data(), static_cast<int32_t>(in.size()), out.data(),
                                  static_cast<int32_t>(out.size()));
  if (st != ONNXC_OK)
    fail("{}: run failed (status {}): {}", lib_.path_, static_cast<int>(st),
         lib_.api_.last_error(ctx_));
}

void ModelLibrary::Context::run_buffers(const std::vector<const void *> &inputs,
                                        const std::vector<void *> &outputs) {
  onnxc_status st = lib_.api_.run_buffers(ctx_, inputs.data(), outputs.data());
  if (st != ONNXC_OK)
    fail("{}: run failed (status {}): {}", lib_.path_, static_cast<int>(st),
         lib_.api_.last_error(ctx_));
}

onnxc_profile_node_info ModelLibrary::Context::profile_node(int32_t i) const {
  onnxc_profile_node_info info{};
  onnxc_status st =
      lib_.api_.profile_node ? lib_.api_.profile_node(ctx_, i, &info) : ONNXC_ERROR_UNSUPPORTED;
  if (st == ONNXC_ERROR_UNSUPPORTED)
    fail("{} was not compiled with --profile", lib_.path_);
  if (st != ONNXC_OK)
    fail("{}: onnxc_profile_node({}) failed (status {})", lib_.path_, i, static_cast<int>(st));
  return info;
}

} // namespace onnxc
