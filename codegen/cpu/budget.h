// The edge budget of a compiled model: the code it adds beyond its weights and the stack it
// needs, measured from the emitted object and the final artifact with llvm::object.
#pragma once

#include <cstdint>
#include <string_view>

namespace onnxc {

/// Bytes of every allocated section with file contents (code, read-only data, data, relocation
/// and symbol tables the loader reads, unwind tables) of the ELF object, archive member or
/// shared library `image`, minus `embedded_weights` (the weight blob it contains, 0 if none).
/// Throws Error if `image` is not an ELF object.
uint64_t code_size(std::string_view image, uint64_t embedded_weights);

/// Size of the embedded weight blob (section .rodata.onnxc_weights) of the relocatable ELF
/// `object`; 0 if it has none.
uint64_t embedded_weights_bytes(std::string_view object);

/// Stack estimate from the `.stack_sizes` sections (one frame size per function) of the
/// relocatable ELF `object`: the largest of
///  - the caller's chain: largest exported entry frame + run_model + onnxc__model_run +
///    largest node.* frame + largest shared kernel.* specialisation + the two largest remaining
///    frames (parallel_for and the range body it calls, or a kernel helper), and
///  - a pool worker's chain: worker_main + run_chunks + the two largest remaining frames.
/// Calls into libc (memcpy, futex syscalls) are not counted. 0 if the object has no such
/// section. Throws Error if `object` is not an ELF object.
uint64_t stack_estimate(std::string_view object);

} // namespace onnxc
