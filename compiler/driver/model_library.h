// A compiled model loaded with dlopen and driven through the generic C ABI
// (runtime_stub/onnxc_runtime.h). Used by `onnxc run`, `verify` and `bench`.
#pragma once

#include "compiler/ir/tensor.h"
#include "runtime_stub/onnxc_runtime.h"

#include <string>
#include <vector>

namespace onnxc {

struct TensorSignature {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;       ///< -1: a run-time dim (dim_symbols says which symbol)
  uint64_t size_bytes;              ///< with every symbol 1
  std::vector<int32_t> dim_symbols; ///< per dim: symbol index or -1; empty if all static
};

/// A run-time dim of a compiled model (onnxc_symbol_info).
struct SymbolSignature {
  std::string name;
  int64_t min, max;
  bool count = false; ///< a run-time count: the run computes it (onnxc_symbol_info::count)
};

class ModelLibrary {
public:
  /// dlopens `path` (RTLD_LOCAL) and resolves the ABI; throws Error if it is not an onnxc model.
  explicit ModelLibrary(const std::string &path);
  ~ModelLibrary();
  ModelLibrary(const ModelLibrary &) = delete;
  ModelLibrary &operator=(const ModelLibrary &) = delete;

  const std::vector<TensorSignature> &inputs() const { return inputs_; }
  const std::vector<TensorSignature> &outputs() const { return outputs_; }
  /// The run-time dims (empty if every dim is static).
  const std::vector<SymbolSignature> &symbols() const { return symbols_; }
  uint64_t arena_size() const { return api_.arena_size(); }
  std::string signature_json() const { return api_.signature_json(); }
  std::string model_name() const { return api_.model_name(); }
  /// Kernel calls a profile build times; -1 if it was compiled without --profile (or by an
  /// onnxc without onnxc_profile_*).
  int32_t profile_num_nodes() const {
    return api_.profile_num_nodes ? api_.profile_num_nodes() : -1;
  }

  /// A context of this model (one per concurrent caller).
  class Context {
  public:
    explicit Context(const ModelLibrary &lib);
    ~Context();
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;
    void set_num_threads(int n);
    /// Runs with inputs in signature order; returns the outputs. Throws Error with the
    /// library's message on failure.
    std::vector<Tensor> run(const std::vector<const Tensor *> &inputs);
    /// Runs a library with run-time dims on pre-allocated buffers: the inputs' shapes give the
    /// symbols; output_bytes[i] is the capacity of outputs[i] (for benchmarking).
    void run_shaped(const std::vector<const void *> &inputs,
                    const std::vector<std::vector<int64_t>> &input_shapes,
                    const std::vector<void *> &outputs, const std::vector<uint64_t> &output_bytes);
    /// Runs on pre-allocated buffers (for benchmarking: no allocation).
    void run_buffers(const std::vector<const void *> &inputs, const std::vector<void *> &outputs);
    /// Kernel call `i` of a profile build and its timings on this context; throws otherwise.
    onnxc_profile_node_info profile_node(int32_t i) const;

  private:
    const ModelLibrary &lib_;
    onnxc_context *ctx_ = nullptr;
  };

private:
  struct Api {
    uint32_t (*abi_version)();
    const char *(*signature_json)();
    const char *(*model_name)();
    uint64_t (*arena_size)();
    int32_t (*num_inputs)();
    int32_t (*num_outputs)();
    onnxc_status (*input_info)(int32_t, onnxc_tensor_info *);
    onnxc_status (*output_info)(int32_t, onnxc_tensor_info *);
    onnxc_status (*create)(onnxc_context **);
    void (*destroy)(onnxc_context *);
    onnxc_status (*set_num_threads)(onnxc_context *, int32_t);
    onnxc_status (*run)(onnxc_context *, const onnxc_tensor *, int32_t, onnxc_tensor *, int32_t);
    onnxc_status (*run_buffers)(onnxc_context *, const void *const *, void *const *);
    const char *(*last_error)(const onnxc_context *);
    // Optional (NULL in libraries from an onnxc before profiling existed).
    int32_t (*profile_num_nodes)();
    onnxc_status (*profile_node)(const onnxc_context *, int32_t, onnxc_profile_node_info *);
    // Optional (NULL before outputs shaped at run time, ABI 3).
    onnxc_status (*output_result)(const onnxc_context *, int32_t, onnxc_tensor *);
  };
  void *handle_ = nullptr;
  std::string path_;
  Api api_{};
  std::vector<TensorSignature> inputs_, outputs_;
  std::vector<SymbolSignature> symbols_;
};

} // namespace onnxc
