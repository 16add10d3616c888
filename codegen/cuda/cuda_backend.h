// CUDA backend: the plan lowered by CudaKernels (one CUDA C++ kernel per region) is compiled
// in-process by NVRTC into a cubin per requested architecture plus PTX for the newest, and
// packaged by the CPU backend's host path (codegen/cpu: descriptor, runtime stub, lld) with the
// weights into one self-contained shared library whose stub runs the model on the GPU
// (runtime_stub/cuda.c).
#pragma once

#include "codegen/cpu/cpu_backend.h"
#include "codegen/cuda/cuda_kernels.h"

#include <string>
#include <vector>

namespace onnxc {

struct CudaCodegenOptions {
  /// Compute capabilities to build cubins for (80: sm_80); PTX is added for the newest.
  std::vector<int> archs = {80, 90};
  /// --precision: how float32 Conv / Gemm / MatMul multiply (CudaPrecision).
  CudaPrecision precision = CudaPrecision::kFp32;
  /// Non-empty: also write the generated CUDA C++ to this file (--emit-cuda).
  std::string source_path;
  bool time_passes = false;
};

/// True when this onnxc was built with the CUDA Toolkit's NVRTC (the CUDA backend exists).
bool cuda_backend_available();

/// Parses "sm_80,sm_90" (or "80,90") into compute capabilities; throws Error on a bad entry.
std::vector<int> parse_cuda_archs(const std::string &list);

/// Compiles the CUDA translation unit for every architecture of opts (cubins) and PTX for the
/// newest; throws Error with NVRTC's log when it fails.
std::vector<DeviceImage> compile_cuda_source(const std::string &source,
                                             const CudaCodegenOptions &opts);

/// Writes the library for `plan` (lowered by `kernels`) to out_path: host code from the CPU
/// backend with `host` options (emit must be a shared library), device code from NVRTC.
/// `cpu_fallback_symbol`: see DeviceCode::cpu_run_symbol.
CpuArtifactInfo compile_cuda(ExecutionPlan &plan, const CudaKernels &kernels,
                             const CpuCodegenOptions &host, const CudaCodegenOptions &opts,
                             const std::string &out_path);

} // namespace onnxc
