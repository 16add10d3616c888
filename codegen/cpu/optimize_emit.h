// LLVM optimisation pipeline and machine-code emission for the linked model module.
#pragma once

#include "codegen/cpu/cpu_backend.h"

#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace onnxc {

/// Runs the new pass manager's per-module default pipeline at -O`opts.opt_level` (-O0: only the
/// always-inliner, so kernels are still inlined). With `time_passes`, prints LLVM's pass
/// timing report to stderr. IEEE floating-point semantics are kept (no fast-math). With a
/// sanitizer, every defined function is marked sanitize_thread/sanitize_address and LLVM's
/// instrumentation passes run at the end of the pipeline, as clang -fsanitize= does.
/// At -O2 and up: with `specialise_first`, kernels are inlined into their nodes and the nodes'
/// params folded before the pipeline, and the template code linked from the bitcode is
/// simplified only inside nodes; with `specialise_parallel`, node-specialised copies of the
/// kernels' parallel loop bodies are made after inlining (SpecialiseParallelPass).
void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, const CpuCodegenOptions &opts);

/// Machine code for `m`: an ELF relocatable object, or assembly text. Throws Error if the
/// target cannot emit that file type.
std::string emit_machine_code(llvm::Module &m, llvm::TargetMachine &tm, bool assembly,
                              bool time_passes = false);

/// Textual LLVM IR of `m`.
std::string print_llvm_ir(const llvm::Module &m);

} // namespace onnxc
