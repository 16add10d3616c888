#include "codegen/cpu/optimize_emit.h"

#include "compiler/ir/error.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Pass.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

namespace onnxc {

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int opt_level, bool time_passes) {
  static const llvm::OptimizationLevel kLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  llvm::TimePassesIsEnabled = time_passes;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks pic;
  llvm::StandardInstrumentations si(m.getContext(), /*DebugLogging=*/false);
  si.registerCallbacks(pic, &mam);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder pb(&tm, tuning, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = opt_level == 0
                                    ? pb.buildO0DefaultPipeline(kLevels[0])
                                    : pb.buildPerModuleDefaultPipeline(kLevels[opt_level]);
  mpm.run(m, mam);
  if (time_passes)
    llvm::reportAndResetTimings(&llvm::errs());
  llvm::TimePassesIsEnabled = false;
}

std::string emit_machine_code(llvm::Module &m, llvm::TargetMachine &tm, bool assembly) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  pm.add(new llvm::TargetLibraryInfoWrapperPass(llvm::Triple(m.getTargetTriple())));
  auto kind = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (tm.addPassesToEmitFile(pm, os, nullptr, kind, /*DisableVerify=*/true))
    fail("LLVM cannot emit {} for {}", assembly ? "assembly" : "an object file",
         m.getTargetTriple());
  pm.run(m);
  return std::string(buffer.data(), buffer.size());
}

std::string print_llvm_ir(const llvm::Module &m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return text;
}

} // namespace onnxc
