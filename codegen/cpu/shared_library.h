// In-process linking of the model object into a self-contained shared library with lld.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace llvm {
class TargetMachine;
}

namespace onnxc {

class TempDir;

/// A weight blob the linker only reserves space for (WeightsPlacement::Linked): `bytes` in the
/// read-only section .onnxc_weights, which defines `symbol` (hidden, 64-byte aligned); `write`
/// then fills it in the linked file at `file_offset`. The weights never pass through lld.
struct ReservedWeights {
  uint64_t bytes = 0;
  std::string symbol;
  std::function<void(const std::string &path, uint64_t file_offset)> write;
};

/// Links `object` (ELF relocatable for tm's target) into the shared library `out_path`
/// (written atomically; its file name is the DT_SONAME). The library's only DT_NEEDED entries
/// are libc.so.6, libm.so.6 (when a libm function is called) and the dynamic loader (only for
/// TLS): the object's undefined symbols are resolved against stub DSOs with those sonames that
/// onnxc generates for the target, so no sysroot is needed. Throws Error if the object needs a
/// compiler-runtime helper (e.g. __extendhfsf2), which no libc provides, or if lld fails.
/// With `weights.bytes` > 0 the library gets the reserved weight section described above.
void link_shared_library(const std::string &object, llvm::TargetMachine &tm,
                         const std::string &out_path, const TempDir &temp,
                         const ReservedWeights &weights = {});

} // namespace onnxc
