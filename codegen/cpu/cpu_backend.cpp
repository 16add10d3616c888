// compile_cpu(): the CPU backend pipeline, step by step.
#include "codegen/cpu/cpu_backend.h"

#include "codegen/cpu/c_header.h"
#include "codegen/cpu/embedded_bitcode.h"
#include "codegen/cpu/model_module.h"
#include "codegen/cpu/module_linker.h"
#include "codegen/cpu/optimize_emit.h"
#include "codegen/cpu/output_files.h"
#include "codegen/cpu/shared_library.h"
#include "codegen/cpu/target_machine.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>

namespace onnxc {
namespace {

/// Prints "onnxc: codegen <phase>: <ms> ms" to stderr after each phase when enabled.
class PhaseTimer {
public:
  explicit PhaseTimer(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  void done(const char *phase) {
    if (!enabled_)
      return;
    auto now = Clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - start_).count();
    llvm::errs() << llvm::format("onnxc: codegen %-16s %8.1f ms\n", phase, ms);
    start_ = now;
  }

private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point start_;
};

} // namespace

void compile_cpu(const ExecutionPlan &plan, const CpuCodegenOptions &opts,
                 const std::string &out_path) {
  PhaseTimer timer(opts.time_passes);
  ResolvedCpuTarget target = resolve_cpu_target(opts.target);
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(target, opts.opt_level);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module =
      build_model_module(plan, ctx, target.triple, tm->createDataLayout(), opts.profile);
  timer.done("build IR");
  link_runtime_and_kernels(*module, find_embedded_bitcode(target.triple));
  restrict_exports(*module, sanitize_c_identifier(plan.model_name));
  timer.done("link bitcode");
  optimize_module(*module, *tm, opts.opt_level, opts.time_passes, opts.sanitize);
  timer.done("optimise");
  switch (opts.emit) {
  case EmitKind::LlvmIr:
    write_file_atomically(out_path, print_llvm_ir(*module));
    break;
  case EmitKind::Assembly:
  case EmitKind::Object:
    write_file_atomically(out_path,
                          emit_machine_code(*module, *tm, opts.emit == EmitKind::Assembly));
    break;
  case EmitKind::SharedLibrary: {
    std::string object = emit_machine_code(*module, *tm, /*assembly=*/false);
    timer.done("emit object");
    TempDir temp;
    link_shared_library(object, *tm, out_path, temp);
    timer.done("link (lld)");
    return;
  }
  }
  timer.done("emit");
}

std::vector<std::string> supported_cpu_triples() {
  std::vector<std::string> triples;
  for (const EmbeddedBitcode &bc : embedded_bitcode())
    triples.emplace_back(bc.triple);
  return triples;
}

} // namespace onnxc
