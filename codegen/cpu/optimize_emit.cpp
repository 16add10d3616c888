#include "codegen/cpu/optimize_emit.h"

#include "codegen/cpu/module_linker.h"
#include "codegen/cpu/specialise_parallel.h"
#include "compiler/ir/error.h"

#include <llvm/ADT/Any.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Pass.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/Instrumentation/AddressSanitizer.h>
#include <llvm/Transforms/Instrumentation/ThreadSanitizer.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/SCCP.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

namespace onnxc {
namespace {

/// Marks every defined function for `s` and adds its instrumentation passes at the end of the
/// optimisation pipeline (where clang adds them), so the optimiser sees the attributes.
void add_sanitizer(llvm::Module &m, llvm::PassBuilder &pb, Sanitizer s) {
  if (s == Sanitizer::None)
    return;
  auto attr =
      s == Sanitizer::Thread ? llvm::Attribute::SanitizeThread : llvm::Attribute::SanitizeAddress;
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

// specialise-first. A kernel's bitcode holds every algorithm and tile variant (a conv: GEMM
// tiles for each A layout, Winograd, depthwise, few-channel direct), and the default pipeline
// simplifies every function bottom-up before it inlines the kernel into its node and learns,
// from the node's constant params, which of them the node uses. Simplifying those generic
// templates was most of a small model's optimisation time (mnist-8 on a Zen 3: 2.1 of the
// 2.5 s), for code that was then either dead or simplified again inside the node. So:
//  - before the pipeline, each kernel is inlined into its node, the node's params are folded
//    through it (GVN forwards the loads of the kernel's stack copy of them, whose address its
//    helpers take, from the constant), the branches they rule out are dropped, and functions
//    nothing references any more are deleted (add_fold_node_params);
//  - during the simplification half of the pipeline, function and loop passes skip the
//    template code (kTemplateCodeAttr): clang optimised it when it built the bitcode, and what
//    of it the nodes use is simplified inside them once inlined. The inliner runs everywhere;
//  - the optimisation half (vectorisers, unrolling, code layout) runs on the model's code and
//    on the template functions marked `hot` in the source (the micro-kernels: their K loops
//    are unrolled for the target's core here, a generic -O2 build does not; bert_style 15-20%
//    slower without), not on the rest of the template code: it is as clang left it, and
//    unrolling it again for the target only grew it (mnist-8: code 82 -> 75 KB, median CPU of
//    the compile -22%; the bench models within noise, performance.md session 49)
//    (skip_template_code).

/// Runs `fpm` on the model's own functions (nodes, kernel specialisations, run), not on the
/// template code.
struct OnModelCode : llvm::PassInfoMixin<OnModelCode> {
  llvm::FunctionPassManager fpm;
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &fam) {
    if (f.hasFnAttribute(kTemplateCodeAttr))
      return llvm::PreservedAnalyses::all();
    return fpm.run(f, fam);
  }
  static bool isRequired() { return true; }
};

void add_fold_node_params(llvm::ModulePassManager &mpm) {
  mpm.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/true));
  OnModelCode fold;
  fold.fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  fold.fpm.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/false));
  fold.fpm.addPass(llvm::GVNPass());
  fold.fpm.addPass(llvm::SCCPPass());
  fold.fpm.addPass(llvm::SimplifyCFGPass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fold)));
  mpm.addPass(llvm::GlobalDCEPass());
}

/// The function an optional pass is about to run on, for function and loop passes.
const llvm::Function *function_of(const llvm::Any &ir) {
  if (const auto *f = llvm::any_cast<const llvm::Function *>(&ir))
    return *f;
  if (const auto *l = llvm::any_cast<const llvm::Loop *>(&ir))
    return (*l)->getHeader()->getParent();
  return nullptr;
}

/// Marks the end of the simplification half of the pipeline.
struct EndSimplification : llvm::PassInfoMixin<EndSimplification> {
  bool *simplifying;
  llvm::PreservedAnalyses run(llvm::Module &, llvm::ModuleAnalysisManager &) {
    *simplifying = false;
    return llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

void skip_template_code(llvm::PassInstrumentationCallbacks &pic, llvm::PassBuilder &pb,
                                  bool *simplifying) {
  pb.registerOptimizerEarlyEPCallback(
      [simplifying](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
        mpm.addPass(EndSimplification{{}, simplifying});
      });
  pic.registerShouldRunOptionalPassCallback([simplifying](llvm::StringRef name, llvm::Any ir) {
    const llvm::Function *f = function_of(ir);
    if (!*simplifying) // the optimisation half: template code only where it is marked hot
      return !f || !f->hasFnAttribute(kTemplateCodeAttr) ||
             f->hasFnAttribute(llvm::Attribute::Hot);
    // It only annotates indirect calls with the functions they may reach (!callees), which
    // nothing in this non-LTO pipeline reads (the same code for mnist-8 and the bench models);
    // its walk of every generic body's function pointers was ~5% of mnist-8's compile.
    if (name == "CalledValuePropagationPass")
      return false;
    return !f || !f->hasFnAttribute(kTemplateCodeAttr);
  });
}

/// With `on`, LLVM's pass timings for the scope, reported to stderr at its end.
struct PassTimings {
  bool on;
  explicit PassTimings(bool enable) : on(enable) { llvm::TimePassesIsEnabled = on; }
  ~PassTimings() {
    if (on)
      llvm::reportAndResetTimings(&llvm::errs());
    llvm::TimePassesIsEnabled = false;
  }
};

} // namespace

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, const CpuCodegenOptions &opts) {
  const int opt_level = opts.opt_level;
  static const llvm::OptimizationLevel kLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  PassTimings timings(opts.time_passes);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks pic;
  llvm::StandardInstrumentations si(m.getContext(), /*DebugLogging=*/false);
  si.registerCallbacks(pic, &mam);
  bool simplifying = true;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder pb(&tm, tuning, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  add_sanitizer(m, pb, opts.sanitize);
  // Simplification ends before the optimizer-early passes registered after this one.
  if (opt_level >= 2 && opts.specialise_first) {
    pb.registerPipelineStartEPCallback(
        [](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) { add_fold_node_params(mpm); });
    skip_template_code(pic, pb, &simplifying);
  }
  if (opt_level >= 2 && opts.specialise_parallel)
    pb.registerOptimizerEarlyEPCallback(
        [&pb](llvm::ModulePassManager &mpm, llvm::OptimizationLevel level) {
          mpm.addPass(SpecialiseParallelPass(pb, level));
          // The generic bodies it replaced were all that referenced most of the template code
          // (every micro-kernel variant of every A layout, ...): drop it now, not after the
          // optimisation half has vectorised and unrolled it (mnist-8: 1.6 -> 1.0 s of
          // optimisation, the same code).
          mpm.addPass(llvm::GlobalDCEPass());
        });
  llvm::ModulePassManager mpm = opt_level == 0
                                    ? pb.buildO0DefaultPipeline(kLevels[0])
                                    : pb.buildPerModuleDefaultPipeline(kLevels[opt_level]);
  mpm.run(m, mam);
  if (llvm::Function *f = m.getFunction(kParallelForParamsSymbol)) // kept external until now
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
}

std::string emit_machine_code(llvm::Module &m, llvm::TargetMachine &tm, bool assembly,
                              bool time_passes) {
  PassTimings timings(time_passes);
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
