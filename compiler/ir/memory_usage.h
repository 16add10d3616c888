// The compiler's own memory use, for --time-passes: what the process holds now and its peak,
// read from /proc/self/status (Linux). -1 where the platform does not say.
#pragma once

#include <cstdint>

namespace onnxc {

/// Resident memory now (VmRSS), in bytes; -1 when unknown.
int64_t current_rss_bytes();
/// The process's peak resident memory so far (VmHWM), in bytes; -1 when unknown.
int64_t peak_rss_bytes();

} // namespace onnxc
