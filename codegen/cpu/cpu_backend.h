// CPU backend: ExecutionPlan -> LLVM module (linked with the embedded kernel and runtime
// bitcode, internalized, optimised) -> object / assembly / LLVM IR / self-contained shared
// library (linked in-process by lld; needs only libc.so.6 and libm.so.6 at load time).
#pragma once

#include "codegen/cpu/model_module.h"
#include "compiler/passes/execution_plan.h"

#include <string>
#include <vector>

namespace onnxc {

/// Target of the generated code. Empty fields mean "the host": the default triple, and for a
/// host triple the host CPU with its features; for a foreign triple an empty cpu is "generic".
/// cpu "native" is the host CPU (host triple only). `features` ("+avx2,-fma") is applied last.
struct CpuTarget {
  std::string triple;
  std::string cpu;
  std::string features;
};

/// The artifact: libNAME.so, NAME.o / libNAME.a for static linking (only NAME_* exported),
/// LLVM IR or assembly.
enum class EmitKind { SharedLibrary, Object, StaticLibrary, LlvmIr, Assembly };

/// Sanitizer instrumentation of the generated code (`onnxc compile --sanitize=...`), for testing
/// onnxc itself: the artifact then references the sanitizer runtime's __tsan_* / __asan_*
/// symbols, so it loads only into a program built with the same -fsanitize= (which provides
/// them); it is no longer self-contained.
enum class Sanitizer { None, Thread, Address };

struct CpuCodegenOptions {
  CpuTarget target;
  int opt_level = 3; ///< 0..3, as -O0..-O3 (LLVM pass pipeline and code generator)
  EmitKind emit = EmitKind::SharedLibrary;
  bool time_passes = false;             ///< print phase and LLVM pass timings to stderr
  Sanitizer sanitize = Sanitizer::None; ///< instrument the model, kernels and runtime
  bool profile = false; ///< time every kernel call (onnxc_profile_*); off: nothing emitted
  /// Give each node's parallel loops their own copy specialised for its constant params
  /// (codegen/cpu/specialise_parallel.h); off with --disable-pass=specialise-parallel.
  bool specialise_parallel = true;
  /// Inline kernels into their nodes and fold the nodes' params before the LLVM pipeline, and
  /// simplify the kernel templates only inside nodes (codegen/cpu/optimize_emit.cpp): a faster
  /// compile, the same code; off with --disable-pass=specialise-first.
  bool specialise_first = true;
  /// Non-empty: write the weights to this file (runtime_stub/weights_format.h) instead of
  /// embedding them; contexts are then created with NAME_create_with_weights[_buffer].
  std::string weights_file;
  /// Non-null: the host side of a CUDA-target library (codegen/cuda/cuda_backend.h): the
  /// module carries this device code and addresses tensors on the device.
  const DeviceCode *device = nullptr;
  /// With `device`: a plan lowered for the CPU, linked in as the code a `--target cpu,cuda`
  /// library runs when no GPU is usable (DeviceCode::cpu_run_symbol).
  const ExecutionPlan *cpu_fallback = nullptr;
};

/// What compile_cpu measured (the edge budget, budget.h). Zero for LLVM IR and assembly.
struct CpuArtifactInfo {
  uint64_t code_bytes = 0;  ///< loaded bytes of the artifact beyond its embedded weights
  uint64_t stack_bytes = 0; ///< per-thread stack estimate
  bool measured = false;    ///< true for so/obj/static
};

/// Compiles `plan` for opts.target and writes the artifact to out_path (and the weights to
/// opts.weights_file) atomically (a temp file beside each, renamed at the end), touching nothing
/// else outside a private temp dir it removes. Throws onnxc::Error (unsupported target, missing
/// kernel, link failure, I/O error); on failure no output file is left behind.
CpuArtifactInfo compile_cpu(const ExecutionPlan &plan, const CpuCodegenOptions &opts,
                            const std::string &out_path);

/// Target triples whose kernel and runtime bitcode is embedded in this onnxc, e.g.
/// "x86_64-unknown-linux-gnu".
std::vector<std::string> supported_cpu_triples();

} // namespace onnxc
