// libFuzzer target over the ONNX loader and the whole pass pipeline (see fuzz_entry.h).
// Build: -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 -DONNXC_FUZZ=ON
// -DONNXC_SANITIZE=ON; run: scripts/fuzz.sh (docs/security.md).
#include "tests/fuzz/fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  onnxc::fuzz_compile_bytes(data, size);
  return 0;
}
