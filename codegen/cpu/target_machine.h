// Resolving a CpuTarget (host defaults, CPU and features) and creating the LLVM TargetMachine.
#pragma once

#include "codegen/cpu/cpu_backend.h"

#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
}

namespace onnxc {

/// A CpuTarget with every field decided.
struct ResolvedCpuTarget {
  std::string triple;   ///< the embedded bitcode's triple (the vendor field normalised)
  std::string cpu;      ///< an LLVM CPU name valid for the triple
  std::string features; ///< LLVM feature string ("+a,-b"), possibly empty
  bool is_host = false; ///< same architecture and OS as the machine onnxc runs on
};

/// Fills in the host defaults (see CpuTarget) and checks that the triple has embedded bitcode
/// and the CPU name is known to LLVM. Throws Error otherwise.
ResolvedCpuTarget resolve_cpu_target(const CpuTarget &target);

/// The SIMD registers the code generator gives a function for this target.
struct VectorRegisters {
  int64_t count = 0; ///< vector registers (0: none)
  int64_t bytes = 0; ///< bytes per register (the widest legal fixed-width vector)
};

/// Asks LLVM's cost model (TargetTransformInfo) of the target for its vector registers.
VectorRegisters vector_registers(const ResolvedCpuTarget &target);

/// A PIC TargetMachine for the target at -O`opt_level`, with function and data sections (for
/// --gc-sections) and IEEE floating point. Initializes the X86 and AArch64 backends once.
std::unique_ptr<llvm::TargetMachine> create_target_machine(const ResolvedCpuTarget &target,
                                                           int opt_level);

} // namespace onnxc
