/* Run-time messages of kernels (freestanding: no snprintf): a fixed buffer filled piece by
 * piece, then given to onnxc_rt_fail. */
#ifndef ONNXC_KERNEL_MESSAGE_H
#define ONNXC_KERNEL_MESSAGE_H

#include <stdint.h>

namespace onnxc_k {

/// Appends "[d0, d1, ...]" to buf at *len (capacity cap, always NUL-terminated).
inline void append_dims(char *buf, int64_t cap, int64_t *len, const int64_t *dims, int64_t rank) {
  auto put = [&](char c) {
    if (*len + 1 < cap)
      buf[(*len)++] = c;
    buf[*len] = 0;
  };
  put('[');
  for (int64_t k = 0; k < rank; ++k) {
    if (k)
      put(','), put(' ');
    char digits[24];
    int64_t nd = 0;
    uint64_t v = dims[k] < 0 ? uint64_t(-dims[k]) : uint64_t(dims[k]);
    do
      digits[nd++] = char('0' + v % 10);
    while ((v /= 10) && nd < 24);
    if (dims[k] < 0)
      put('-');
    while (nd)
      put(digits[--nd]);
  }
  put(']');
}

inline void append_str(char *buf, int64_t cap, int64_t *len, const char *s) {
  for (; *s && *len + 1 < cap; ++s)
    buf[(*len)++] = *s;
  buf[*len] = 0;
}

} // namespace onnxc_k

#endif
