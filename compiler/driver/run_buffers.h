// Buffers for running a library repeatedly without allocating (bench, profile): inputs that are
// synthetic or a data set's, outputs sized for the values of the library's run-time dims.
#pragma once

#include "compiler/driver/model_library.h"
#include "compiler/ir/tensor.h"

#include <string>
#include <vector>

namespace onnxc {

/// One value per run-time dim of `lib` (in lib.symbols() order): --dim NAME=N flags, else the
/// dim's minimum. Throws Error for a malformed flag, a range or a name the library lacks.
std::vector<int64_t> run_time_dim_values(const ModelLibrary &lib,
                                         const std::vector<std::string> &dim_flags);

class RunBuffers {
public:
  /// Synthetic inputs with the run-time dims at `values`.
  RunBuffers(const ModelLibrary &lib, const std::vector<int64_t> &values);
  /// The given inputs (in the signature's order; their shapes give the run-time dims).
  RunBuffers(const ModelLibrary &lib, const std::vector<const Tensor *> &inputs);
  /// One run on the buffers: onnxc_run_buffers for a static model, else with the shapes.
  void run(ModelLibrary::Context &ctx);

private:
  void size_outputs(const ModelLibrary &lib, const std::vector<int64_t> &values);

  bool shaped_ = false;
  std::vector<std::vector<uint8_t>> in_bufs_, out_bufs_;
  std::vector<const void *> ins_;
  std::vector<void *> outs_;
  std::vector<std::vector<int64_t>> in_shapes_;
  std::vector<uint64_t> out_bytes_;
};

} // namespace onnxc
