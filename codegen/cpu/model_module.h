// Builds the model-specific LLVM module from an ExecutionPlan: the weights blob, the
// onnxc__model descriptor the runtime stub reads, one function per kernel call, and
// onnxc__model_run calling them in order (runtime_stub/model_desc.h describes the contract).
#pragma once

#include "compiler/passes/execution_plan.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class DataLayout;
class LLVMContext;
class Module;
} // namespace llvm

namespace onnxc {

/// Where the weight blob of a model module goes.
enum class WeightsPlacement {
  /// A private constant of the module (section .rodata.onnxc_weights): objects, static
  /// libraries, text output, the tile plans of a run-time batch.
  InModule,
  /// Not in the module: the code reads weights through the `weights` argument of
  /// onnxc__model_run (the context's blob, from a weights file), whose size and checksum the
  /// descriptor records; the blob goes to `external_weights`.
  External,
  /// Declared only (kLinkedWeightsSymbol, hidden, 64-byte aligned): the linker reserves the
  /// blob's space in the shared library (link_shared_library) and write_linked_weights copies
  /// the weights into the file, so the weights never pass through LLVM or the linker.
  Linked,
};

/// Device code a host module carries (the CUDA backend's, codegen/cuda): the module's kernel
/// calls then launch these kernels, and its code addresses the weights through the `weights`
/// argument of onnxc__model_run (the device copy) while the blob stays in the library for the
/// upload (runtime_stub/model_desc.h, onnxc_device_desc).
struct DeviceImage {
  int32_t sm = 0;   ///< compute capability major * 10 + minor
  bool ptx = false; ///< PTX text (else a cubin)
  std::string data;
};
struct DeviceCode {
  std::vector<DeviceImage> images;
  std::vector<std::string> kernels; ///< __global__ names, indexed by the launch params
  /// The kernel that launches them (codegen/cuda kCudaLaunchKernel); a call of any other
  /// kernel runs on the host through kHostCallSymbol, between copies of its tensors.
  std::string launch_kernel;
  /// Non-empty: a function of the module (same type as onnxc__model_run) that runs the model
  /// on the CPU when no GPU is usable (--target cpu,cuda).
  std::string cpu_run_symbol;
};

/// Runtime helper (runtime_stub/cuda.c) through which a CUDA-target library runs a CPU kernel.
inline constexpr char kHostCallSymbol[] = "onnxc_cuda_host";
/// Runtime helpers (runtime_stub/cuda.c) through which a CUDA-target library's If / Loop / Scan
/// read a condition, iteration or trip count from the GPU's memory and write the iteration.
inline constexpr char kDeviceLoadSymbol[] = "onnxc_rt_device_load";
inline constexpr char kDeviceStoreSymbol[] = "onnxc_rt_device_store";

/// The symbol of the weight blob that WeightsPlacement::Linked leaves to the linker.
inline constexpr char kLinkedWeightsSymbol[] = "onnxc.weights";

/// The module for `plan` (kernels and runtime helpers only declared). Each kernel call is
/// marked always-inline so that, once linked with the kernel bitcode, LLVM specialises the
/// kernel for its constant params. Throws Error if a value has no storage assigned or the plan
/// is inconsistent (weights outside the blob, ...). The result passes the IR verifier.
/// `external_weights` receives the blob with WeightsPlacement::External (and must be non-null
/// then). With `profile`, the descriptor also describes every kernel call
/// (PlannedCall::profile) and onnxc__model_run times each call (onnxc_rt_profile_begin /
/// onnxc_rt_profile_node); without it, nothing of either is emitted.
std::unique_ptr<llvm::Module>
build_model_module(const ExecutionPlan &plan, llvm::LLVMContext &ctx, const std::string &triple,
                   const llvm::DataLayout &layout,
                   WeightsPlacement placement = WeightsPlacement::InModule,
                   std::vector<uint8_t> *external_weights = nullptr, bool profile = false,
                   const DeviceCode *device = nullptr);

/// Size in bytes of `plan`'s weight blob (every weight at its offset). Throws Error when
/// weights overlap or lack data.
uint64_t weights_blob_size(const ExecutionPlan &plan);

/// Writes `plan`'s weights into the file at `path`, the blob starting at `file_offset` (bytes
/// between weights are left as they are: zero in a linker-reserved section). Streams from the
/// plan's tensors; throws Error naming `path` on an I/O error.
void write_linked_weights(const ExecutionPlan &plan, const std::string &path, uint64_t file_offset);

} // namespace onnxc
