// The CUDA backend's lowering of regions (compiler/passes/lower_regions.h): each region becomes
// one CUDA C++ kernel, specialised on its constant shapes and appended to the model's
// translation unit, and one KernelCall of onnxc_k_cuda_launch (runtime_stub/cuda.c) whose
// params say which kernel to launch with which grid. The memory planner then places the call's
// tensors exactly as for the CPU backend; the host code passes their device addresses.
#pragma once

#include "compiler/ops/op_def.h"
#include "compiler/passes/execution_plan.h"

#include <set>
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

/// --precision: how Conv / Gemm / MatMul on float32 tensors multiply. kFp32 (the default) on
/// CUDA cores, exact; the others on tensor cores (sm_80+) with the operands rounded to tf32,
/// fp16 or bf16 and float32 accumulation. Tensors stay float32 in memory.
enum class CudaPrecision { kFp32, kTf32, kFp16, kBf16 };

/// Parses "fp32", "tf32", "fp16" or "bf16"; throws Error on anything else.
CudaPrecision parse_cuda_precision(const std::string &name);

/// The kernels of one model, built region by region.
class CudaKernels {
public:
  /// `host_regions`: a region whose op or dtype has no CUDA kernel is lowered to its CPU
  /// kernel, which the library runs on the host inside the GPU's run (its tensors copied to
  /// pinned host memory and back); false: such a region is an error.
  explicit CudaKernels(bool host_regions = true, CudaPrecision precision = CudaPrecision::kFp32)
      : host_regions_(host_regions), precision_(precision) {}

  /// Lowers one region (the PipelineOptions::lower of a CUDA compile): a call of
  /// kCudaLaunchKernel, or a CPU kernel call for a host region. Throws Error naming the node
  /// when the region can run nowhere.
  KernelCall lower(const Region &r);

  /// The ops of the regions lowered to the host.
  const std::set<std::string> &host_ops() const { return host_ops_; }

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
  bool host_regions_;
  CudaPrecision precision_;
  std::set<std::string> host_ops_;
};

/// The shared device templates (templates/cuda/onnxc_cuda.cuh) as compiled into onnxc.
const char *cuda_templates_source();

} // namespace onnxc
