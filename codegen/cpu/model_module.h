// Builds the model-specific LLVM module from an ExecutionPlan: the weights blob, the
// onnxc__model descriptor the runtime stub reads, one function per kernel call, and
// onnxc__model_run calling them in order (runtime_stub/model_desc.h describes the contract).
#pragma once

#include "compiler/passes/execution_plan.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace llvm {
class DataLayout;
class LLVMContext;
class Module;
} // namespace llvm

namespace onnxc {

/// The module for `plan` (kernels and runtime helpers only declared). Each kernel call is
/// marked always-inline so that, once linked with the kernel bitcode, LLVM specialises the
/// kernel for its constant params. Throws Error if a value has no storage assigned or the plan
/// is inconsistent (weights outside the blob, ...). The result passes the IR verifier.
/// With `external_weights` non-null the blob is not embedded: it is moved there, and the code
/// reads weights through the `weights` argument of onnxc__model_run (the context's blob),
/// whose size and checksum the descriptor records. With `profile`, the descriptor also describes
/// every kernel call (PlannedCall::profile) and onnxc__model_run times each call
/// (onnxc_rt_profile_begin / onnxc_rt_profile_node); without it, nothing of either is emitted.
std::unique_ptr<llvm::Module> build_model_module(const ExecutionPlan &plan, llvm::LLVMContext &ctx,
                                                 const std::string &triple,
                                                 const llvm::DataLayout &layout,
                                                 std::vector<uint8_t> *external_weights = nullptr,
                                                 bool profile = false);

} // namespace onnxc
