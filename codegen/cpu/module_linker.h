// Turns the model module into a complete program: links the runtime stub and the kernels it
// calls, and fixes which symbols the shared library exports.
#pragma once

#include "codegen/cpu/embedded_bitcode.h"

#include <string>

namespace llvm {
class Module;
}

namespace onnxc {

/// Links the whole runtime bitcode and, lazily, only the kernels (and their helpers) that
/// `model` calls. Afterwards every onnxc_* function is defined; throws Error naming the missing
/// kernel or runtime function otherwise. Removes the per-function target-cpu/target-features
/// the bitcode was compiled with, so that the TargetMachine's CPU applies everywhere.
/// Every function it links gets the string attribute kTemplateCodeAttr.
void link_runtime_and_kernels(llvm::Module &model, const EmbeddedBitcode &bitcode);

/// Marks a function linked from the kernel or runtime bitcode: code clang already optimised
/// (-O2) and not specialised for any node. optimize_module does not simplify it again on its
/// own, only once it is inlined into a node's code (codegen/cpu/optimize_emit.cpp).
inline constexpr char kTemplateCodeAttr[] = "onnxc-template-code";

/// Internalizes every symbol except the ABI (kCpuAbiSymbols) and adds default-visibility
/// aliases "<model_name>_<name minus onnxc_>" for each ABI function (skipped where the alias
/// would be the ABI name itself, i.e. for a model named "onnxc"). Without `generic_abi` (static
/// linking: --emit obj/static) the ABI functions are renamed to those names instead, so the
/// object defines no onnxc_* symbol and several models link into one program.
void restrict_exports(llvm::Module &model, const std::string &model_name, bool generic_abi);

} // namespace onnxc
