#include "codegen/cpu/target_machine.h"

#include "codegen/cpu/embedded_bitcode.h"
#include "compiler/ir/error.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeX86AsmParser();
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64Target();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64AsmPrinter();
void LLVMInitializeAArch64AsmParser();
void LLVMInitializeARMTargetInfo();
void LLVMInitializeARMTarget();
void LLVMInitializeARMTargetMC();
void LLVMInitializeARMAsmPrinter();
void LLVMInitializeARMAsmParser();
}

namespace onnxc {
namespace {

void initialize_backends() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser(); // for inline asm in kernels, if any
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeAArch64AsmParser();
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTarget();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMAsmPrinter();
    LLVMInitializeARMAsmParser();
  });
}

const llvm::Target &lookup_target(const std::string &triple) {
  initialize_backends();
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t)
    fail("no LLVM backend for target '{}': {}", triple, error);
  return *t;
}

std::string host_features() {
  llvm::SubtargetFeatures features;
  for (const auto &f : llvm::sys::getHostCPUFeatures())
    features.AddFeature(f.first(), f.second);
  return features.getString();
}

std::string join_features(const std::string &a, const std::string &b) {
  if (a.empty())
    return b;
  if (b.empty())
    return a;
  return a + "," + b;
}

} // namespace

ResolvedCpuTarget resolve_cpu_target(const CpuTarget &target) {
  std::string requested =
      target.triple.empty() ? llvm::sys::getDefaultTargetTriple() : target.triple;
  ResolvedCpuTarget r;
  r.triple = std::string(find_embedded_bitcode(requested).triple);
  llvm::Triple t(r.triple), host(llvm::sys::getProcessTriple());
  r.is_host = t.getArch() == host.getArch() && t.getOS() == host.getOS();
  r.cpu = target.cpu;
  if (r.cpu.empty() || r.cpu == "native") {
    if (r.is_host) {
      r.cpu = std::string(llvm::sys::getHostCPUName());
      r.features = host_features();
    } else if (r.cpu == "native") {
      fail("--cpu native needs the host target, not '{}'; name a CPU such as 'generic'", r.triple);
    } else {
      r.cpu = "generic";
    }
  }
  r.features = join_features(r.features, target.features);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      lookup_target(r.triple).createMCSubtargetInfo(r.triple, "", ""));
  if (!sti || !sti->isCPUStringValid(r.cpu))
    fail("unknown CPU '{}' for target '{}' (LLVM names such as 'generic', 'x86-64-v3', "
         "'skylake-avx512', 'neoverse-n1')",
         r.cpu, r.triple);
  // LLVM tunes most Intel AVX-512 CPUs (skylake-avx512 to sapphirerapids, and rocketlake, which
  // is what a KVM guest of a recent Xeon may report) for 256-bit vectors (the tuning feature
  // prefer-256-bit, against the clock drop of early AVX-512 parts). The kernels are written on
  // 64-byte vectors and the GEMM tile is chosen for the register width the code generator
  // reports, so under that tuning every zmm operation was split into two ymm halves and the
  // tile shrank to AVX2's (mlp at 1 thread on a Xeon with AVX-512: 7.8 -> 5.0 ms; ResNet-50 at
  // 40% of the FMA peak). A target with AVX-512F therefore gets -prefer-256-bit unless the
  // user's --features mention it (`--features=+prefer-256-bit` restores LLVM's tuning).
  if (t.isX86() && target.features.find("prefer-256-bit") == std::string::npos) {
    std::unique_ptr<llvm::MCSubtargetInfo> sub(
        lookup_target(r.triple).createMCSubtargetInfo(r.triple, r.cpu, r.features));
    if (sub && sub->checkFeatures("+avx512f"))
      r.features = join_features(r.features, "-prefer-256-bit");
  }
  return r;
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(const ResolvedCpuTarget &target,
                                                           int opt_level) {
  static constexpr llvm::CodeGenOptLevel kLevels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less, llvm::CodeGenOptLevel::Default,
      llvm::CodeGenOptLevel::Aggressive};
  if (opt_level < 0 || opt_level > 3)
    fail("optimisation level must be 0..3, not {}", opt_level);
  llvm::TargetOptions options;
  options.FunctionSections = true;
  options.DataSections = true;
  options.EmitStackSizeSection = true; // read back by stack_estimate() (budget.h)
  llvm::TargetMachine *tm =
      lookup_target(target.triple)
          .createTargetMachine(target.triple, target.cpu, target.features, options,
                               llvm::Reloc::PIC_, std::nullopt, kLevels[opt_level]);
  if (!tm)
    fail("LLVM cannot create a code generator for '{}' (cpu '{}')", target.triple, target.cpu);
  return std::unique_ptr<llvm::TargetMachine>(tm);
}

VectorRegisters vector_registers(const ResolvedCpuTarget &target) {
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(target, 2);
  llvm::LLVMContext ctx;
  llvm::Module m("onnxc.probe", ctx);
  m.setTargetTriple(target.triple);
  m.setDataLayout(tm->createDataLayout());
  auto *f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                   llvm::GlobalValue::ExternalLinkage, "probe", m);
  const llvm::TargetTransformInfo tti = tm->getTargetTransformInfo(*f);
  VectorRegisters r;
  r.count = tti.getNumberOfRegisters(tti.getRegisterClassForType(true));
  r.bytes = static_cast<int64_t>(
      tti.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector).getFixedValue() / 8);
  return r;
}

} // namespace onnxc
