// In-process linking of the model object into a self-contained shared library with lld.
#pragma once

#include <string>

namespace llvm {
class TargetMachine;
}

namespace onnxc {

class TempDir;

/// Links `object` (ELF relocatable for tm's target) into the shared library `out_path`
/// (written atomically; its file name is the DT_SONAME). The library's only DT_NEEDED entries
/// are libc.so.6, libm.so.6 (when a libm function is called) and the dynamic loader (only for
/// TLS): the object's undefined symbols are resolved against stub DSOs with those sonames that
/// onnxc generates for the target, so no sysroot is needed. Throws Error if the object needs a
/// compiler-runtime helper (e.g. __extendhfsf2), which no libc provides, or if lld fails.
void link_shared_library(const std::string &object, llvm::TargetMachine &tm,
                         const std::string &out_path, const TempDir &temp);

} // namespace onnxc
