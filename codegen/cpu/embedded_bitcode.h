// Kernel and runtime-stub bitcode embedded into onnxc at build time (one pair per target
// triple in ONNXC_TARGET_TRIPLES; see embed_bitcode.cmake).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace onnxc {

struct EmbeddedBitcode {
  std::string_view triple;  ///< the triple it was compiled for, e.g. "x86_64-unknown-linux-gnu"
  std::string_view kernels; ///< kernels_<triple>.bc: all onnxc_k_* kernels and their helpers
  std::string_view runtime; ///< runtime_<triple>.bc: the C ABI, thread pool, error reporting
};

/// All embedded bitcode pairs, in ONNXC_TARGET_TRIPLES order.
const std::vector<EmbeddedBitcode> &embedded_bitcode();

/// The pair whose triple has the same architecture, OS and environment as `triple` (the vendor
/// is ignored, so x86_64-pc-linux-gnu finds x86_64-unknown-linux-gnu). Throws Error listing the
/// supported triples if there is none.
const EmbeddedBitcode &find_embedded_bitcode(const std::string &triple);

} // namespace onnxc
