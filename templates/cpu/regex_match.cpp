/* RegexFullMatch: POSIX extended regular expressions through libc's <regex.h> (regcomp /
 * regexec), the only libc functions a kernel calls. onnxc translates the ONNX (RE2) pattern at
 * compile time into an anchored ERE and checks that libc compiles it
 * (compiler/ops/strings/regex_full_match.cpp); the kernel compiles it again at each call. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"
#include "templates/cpu/string_params.h"

/* glibc's <regex.h>, declared by hand (kernels include no libc header). regex_t is 64 bytes on
 * the supported 64-bit targets; a larger, aligned buffer stands in for it. */
extern "C" {
int regcomp(void *preg, const char *pattern, int cflags);
int regexec(const void *preg, const char *string, size_t nmatch, void *pmatch, int eflags);
void regfree(void *preg);
}

namespace {
constexpr int kRegExtended = 1; // REG_EXTENDED
constexpr int kRegNoSub = 8;    // REG_NOSUB
struct alignas(16) RegexBuffer {
  unsigned char bytes[256];
};
} // namespace

using namespace onnxc_k;

/// tensors {pattern (packed table of one string), x (string), y (bool)}.
extern "C" int32_t onnxc_k_regex_full_match(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrUnaryParams>(params);
  const char *const *x = static_cast<const char *const *>(t[1]);
  uint8_t *y = static_cast<uint8_t *>(t[2]);
  RegexBuffer re;
  if (regcomp(&re, table_string(t[0], 0), kRegExtended | kRegNoSub) != 0)
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR, "libc regcomp refused the pattern");
  for (i64 i = 0; i < p.n; ++i)
    y[i] = regexec(&re, x[i], 0, nullptr, 0) == 0 ? 1 : 0;
  regfree(&re);
  return 0;
}
