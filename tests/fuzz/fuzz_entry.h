// The one entry point shared by the libFuzzer target (fuzz_loader.cpp) and the regression replay
// (replay_regressions.cpp): bytes → loader → the whole pass pipeline, with small limits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnxc {

/// Loads `size` bytes as a model (no external data allowed) and runs every pass of the pipeline
/// with small size limits. Returns true if the model compiled to a plan, false if onnxc rejected
/// it with onnxc::Error (the expected outcome for malformed input). Anything else — a crash, a
/// sanitizer report, any other exception escaping — is a bug.
bool fuzz_compile_bytes(const uint8_t *data, size_t size);

} // namespace onnxc
