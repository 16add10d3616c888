// The CUDA backend's lowering of regions (compiler/passes/lower_regions.h): each region becomes
// one CUDA C++ kernel, specialised on its constant shapes and appended to the model's
// translation unit, and one KernelCall of onnxc_k_cuda_launch (runtime_stub/cuda.c) whose
// params say which kernel to launch with which grid. The memory planner then places the call's
// tensors exactly as for the CPU backend; the host code passes their device addresses.
#pragma once

#include "compiler/ops/op_def.h"
#include "compiler/passes/execution_plan.h"

#include <string>
#include <vector>

namespace onnxc {

/// The runtime stub's kernel that launches a device kernel (runtime_stub/cuda.c).
inline constexpr char kCudaLaunchKernel[] = "onnxc_k_cuda_launch";

/// Words of a launch call's params: kernel index, grid x/y/z, block x/y/z, dynamic shared
/// memory bytes, number of tensors.
enum CudaLaunchWord {
  kLaunchKernel,
  kLaunchGridX,
  kLaunchGridY,
  kLaunchGridZ,
  kLaunchBlockX,
  kLaunchBlockY,
  kLaunchBlockZ,
  kLaunchSharedBytes,
  kLaunchNumTensors,
  kLaunchWords
};

/// The kernels of one model, built region by region.
class CudaKernels {
public:
  /// Lowers one region (the PipelineOptions::lower of a CUDA compile). Throws Error naming the
  /// node when the CUDA target has no kernel for its op or dtype.
  KernelCall lower(const Region &r);

  /// After plan-memory: copies whose source and destination the planner made the same buffer
  /// launch nothing (their kernel index becomes -1).
  void drop_noop_copies(ExecutionPlan &plan) const;

  /// The translation unit: templates/cuda/onnxc_cuda.cuh, then every kernel.
  std::string source() const;
  const std::vector<std::string> &names() const { return names_; }

private:
  /// Appends `body` (a whole `extern "C" __global__` definition of `name`) and returns the
  /// launch call on `args` with the given grid and block.
  KernelCall add(const std::string &name, const std::string &body, std::vector<Value *> args,
                 int64_t grid_x, int64_t grid_y, int64_t grid_z, int64_t block);

  std::vector<std::string> names_;
  std::vector<std::string> bodies_;
  std::vector<size_t> copies_; ///< indices of plain copy kernels (args {src, dst})
};

/// The shared device templates (templates/cuda/onnxc_cuda.cuh) as compiled into onnxc.
const char *cuda_templates_source();

} // namespace onnxc
