/* weights_format.h — the separate weights file of a model compiled with --weights-file.
 *
 * Shared by onnxc (which writes the file) and the runtime stub (which checks it). Layout, all
 * integers little-endian:
 *
 *   offset  size  field
 *   0       8     magic "ONNXCWT\0"
 *   8       4     version (1)
 *   12      4     header size (64): the blob starts here, 64-byte aligned in the file
 *   16      8     blob size in bytes
 *   24      8     checksum of the blob (onnxc_weights_checksum)
 *   32      32    model name, NUL-padded (truncated to 31 bytes)
 *   64      ...   the weight blob, every weight at its planned offset
 *
 * C99 and C++; freestanding (no libc).
 */
#ifndef ONNXC_WEIGHTS_FORMAT_H
#define ONNXC_WEIGHTS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define ONNXC_WEIGHTS_MAGIC "ONNXCWT"
#define ONNXC_WEIGHTS_VERSION 1u
#define ONNXC_WEIGHTS_HEADER_SIZE 64u
#define ONNXC_WEIGHTS_NAME_BYTES 32u

/// 64-bit checksum of a weight blob: a multiply-xorshift chain over its little-endian 64-bit
/// words (the tail zero-padded), seeded with the size. Detects corruption, not tampering.
static inline uint64_t onnxc_weights_checksum(const unsigned char *data, uint64_t size) {
  uint64_t h = 0xcbf29ce484222325ull ^ size;
  uint64_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    __builtin_memcpy(&w, data + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  if (i < size) {
    uint64_t w = 0;
    for (uint64_t k = 0; i + k < size; ++k)
      w |= (uint64_t)data[i + k] << (8 * k);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

#endif /* ONNXC_WEIGHTS_FORMAT_H */
