// Node-specialised parallel loops: after inlining, a kernel's call
//   onnxc_parallel_for_params(rt, n, grain, @body, <constant params>, ctx)
// gets its own copy of @body with the params argument replaced by that constant, which is
// then simplified, so the code the thread pool (and, with one thread, the caller) runs is
// specialised for the node (templates/cpu/kernel_abi.h). Identical (body, params) pairs share
// one copy.
#pragma once

#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>

namespace onnxc {

/// The module pass; `pb` builds the simplification pipeline run on each copy.
class SpecialiseParallelPass : public llvm::PassInfoMixin<SpecialiseParallelPass> {
public:
  SpecialiseParallelPass(llvm::PassBuilder &pb, llvm::OptimizationLevel level)
      : pb_(pb), level_(level) {}
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &mam);

private:
  llvm::PassBuilder &pb_;
  llvm::OptimizationLevel level_;
};

/// Name of the runtime function whose call sites are specialised.
inline constexpr char kParallelForParamsSymbol[] = "onnxc_parallel_for_params";

} // namespace onnxc
