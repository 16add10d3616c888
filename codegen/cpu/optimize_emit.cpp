#include "codegen/cpu/optimize_emit.h"

#include "codegen/cpu/specialise_parallel.h"
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
#include <llvm/Transforms/Instrumentation/AddressSanitizer.h>
#include <llvm/Transforms/Instrumentation/ThreadSanitizer.h>

namespace onnxc {
namespace {

/// Marks every defined function for `s` and adds its instrumentation passes at the end of the
/// optimisation pipeline (where clang adds them), so the optimiser sees the attributes.
void add_sanitizer(llvm::Module &m, llvm::PassBuilder &pb, Sanitizer s) {
  if (s == Sanitizer::None)
    return;
  auto attr = s == Sanitizer::Thread ? llvm::Attribute::SanitizeThread
                                     : llvm::Attribute::SanitizeAddress;
  for (llvm::Function &f : m)
    if (!f.isDeclaration())
      f.addFnAttr(attr);
  pb.registerOptimizerLastEPCallback([s](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
    if (s == Sanitizer::Thread) {
      mpm.addPass(llvm::ModuleThreadSanitizerPass());
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::ThreadSanitizerPass()));
    } else {
      mpm.addPass(llvm::AddressSanitizerPass(llvm::AddressSanitizerOptions{}));
    }
  });
}

} // namespace

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int opt_level, bool time_passes,
                     Sanitizer sanitize, bool specialise_parallel) {
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
  add_sanitizer(m, pb, sanitize);
  if (opt_level >= 2 && specialise_parallel)
    pb.registerOptimizerEarlyEPCallback(
        [&pb](llvm::ModulePassManager &mpm, llvm::OptimizationLevel level) {
          mpm.addPass(SpecialiseParallelPass(pb, level));
        });
  llvm::ModulePassManager mpm = opt_level == 0
                                    ? pb.buildO0DefaultPipeline(kLevels[0])
                                    : pb.buildPerModuleDefaultPipeline(kLevels[opt_level]);
  mpm.run(m, mam);
  if (llvm::Function *f = m.getFunction(kParallelForParamsSymbol)) // kept external until now
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
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
