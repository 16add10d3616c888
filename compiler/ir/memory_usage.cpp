#include "compiler/ir/memory_usage.h"

#include <cstdio>
#include <cstring>

namespace onnxc {
namespace {

/// The "KEY:   N kB" line of /proc/self/status, in bytes; -1 when absent.
int64_t status_kib_field(const char *key) {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  if (!f)
    return -1;
  char line[256];
  int64_t value = -1;
  const size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      long long kib = 0;
      if (std::sscanf(line + n + 1, "%lld", &kib) == 1)
        value = static_cast<int64_t>(kib) * 1024;
      break;
    }
  std::fclose(f);
  return value;
}

} // namespace

int64_t current_rss_bytes() { return status_kib_field("VmRSS"); }
int64_t peak_rss_bytes() { return status_kib_field("VmHWM"); }

} // namespace onnxc
