/* weights.c — contexts of a model compiled with --weights-file: the weight blob comes from a
 * file (mapped read-only) or a caller-owned buffer, checked against the model (weights_format.h).
 */
#include "runtime_stub/stub_internal.h"
#include "runtime_stub/weights_format.h"

#define ONNXC_O_RDONLY 0
#define ONNXC_O_CLOEXEC 02000000 /* same on x86_64 and aarch64 */
#define ONNXC_SEEK_END 2

/// Why a weight image was refused; indexes the message tables below.
enum weights_problem {
  WEIGHTS_OK,
  WEIGHTS_TOO_SMALL,
  WEIGHTS_BAD_MAGIC,
  WEIGHTS_BAD_VERSION,
  WEIGHTS_OTHER_MODEL,
  WEIGHTS_BAD_SIZE,
  WEIGHTS_BAD_CHECKSUM,
  WEIGHTS_MISALIGNED,
};

#define WEIGHTS_MESSAGES(fn, what)                                                                 \
  {                                                                                                \
    0, fn ": " what " is shorter than the weights header",                                         \
        fn ": " what " is not an onnxc weights file (bad magic)",                                  \
        fn ": " what " has an unsupported weights format version",                                 \
        fn ": " what " holds the weights of another model",                                        \
        fn ": " what " has the wrong size for this model's weights",                               \
        fn ": " what " is corrupt (weights checksum mismatch)",                                    \
        fn ": " what " is not aligned to 64 bytes",                                                \
  }

static const char *const file_messages[] =
    WEIGHTS_MESSAGES("onnxc_create_with_weights", "the weights file");
static const char *const buffer_messages[] =
    WEIGHTS_MESSAGES("onnxc_create_with_weights_buffer", "the weights buffer");

static uint64_t read_le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/// Checks a whole weights image (header + blob) against this model.
static enum weights_problem check_image(const unsigned char *p, uint64_t size) {
  if ((uintptr_t)p % 64 != 0)
    return WEIGHTS_MISALIGNED;
  if (size < ONNXC_WEIGHTS_HEADER_SIZE)
    return WEIGHTS_TOO_SMALL;
  if (__builtin_memcmp(p, ONNXC_WEIGHTS_MAGIC, 8) != 0)
    return WEIGHTS_BAD_MAGIC;
  if (read_le(p + 8, 4) != ONNXC_WEIGHTS_VERSION || read_le(p + 12, 4) != ONNXC_WEIGHTS_HEADER_SIZE)
    return WEIGHTS_BAD_VERSION;
  const char *name = onnxc__model.model_name;
  const unsigned char *stored = p + 32;
  for (uint32_t i = 0; i + 1 < ONNXC_WEIGHTS_NAME_BYTES; ++i) {
    if ((unsigned char)name[i] != stored[i])
      return WEIGHTS_OTHER_MODEL;
    if (!name[i])
      break;
  }
  uint64_t blob = read_le(p + 16, 8);
  if (blob != onnxc__model.weights_size || size - ONNXC_WEIGHTS_HEADER_SIZE != blob)
    return WEIGHTS_BAD_SIZE;
  if (read_le(p + 24, 8) != onnxc__model.weights_checksum)
    return WEIGHTS_OTHER_MODEL;
  if (onnxc_weights_checksum(p + ONNXC_WEIGHTS_HEADER_SIZE, blob) != onnxc__model.weights_checksum)
    return WEIGHTS_BAD_CHECKSUM;
  return WEIGHTS_OK;
}

/// Argument checks shared by both entry points; NULL if they pass, else the message.
static const char *check_arguments(const void *p, const char *embedded_msg, const char *null_msg) {
  if (!onnxc__model.weights_external)
    return embedded_msg;
  return p ? 0 : null_msg;
}

/// Creates a context whose kernels read `image`'s blob; `map`/`map_size` (may be NULL) are
/// unmapped on destroy.
static onnxc_status create_on(const unsigned char *image, void *map, uint64_t map_size,
                              onnxc_context **out) {
  onnxc_status st = onnxc_create_owned(out);
  if (st != ONNXC_OK)
    return st;
  (*out)->weights = image + ONNXC_WEIGHTS_HEADER_SIZE;
  (*out)->weights_map = map;
  (*out)->weights_map_size = map_size;
  return ONNXC_OK;
}

ONNXC_API onnxc_status onnxc_create_with_weights_buffer(const void *data, uint64_t size,
                                                        onnxc_context **out) {
  if (!out)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT,
                                  "onnxc_create_with_weights_buffer: out is NULL");
  *out = 0;
  const char *bad = check_arguments(
      data, "onnxc_create_with_weights_buffer: this model embeds its weights; use onnxc_create",
      "onnxc_create_with_weights_buffer: data is NULL");
  if (bad)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT, bad);
  enum weights_problem problem = check_image((const unsigned char *)data, size);
  if (problem != WEIGHTS_OK)
    return onnxc_set_create_error(ONNXC_ERROR_BAD_WEIGHTS, buffer_messages[problem]);
  return create_on((const unsigned char *)data, 0, 0, out);
}

/// Maps `path` read-only; returns its image or NULL with *msg set.
static const unsigned char *map_file(const char *path, uint64_t *size, const char **msg) {
  int fd = open(path, ONNXC_O_RDONLY | ONNXC_O_CLOEXEC);
  if (fd < 0) {
    *msg = "onnxc_create_with_weights: cannot open the weights file";
    return 0;
  }
  long end = lseek(fd, 0, ONNXC_SEEK_END);
  void *map = ONNXC_MAP_FAILED;
  if (end >= (long)ONNXC_WEIGHTS_HEADER_SIZE)
    map = mmap(0, (size_t)end, ONNXC_PROT_READ, ONNXC_MAP_SHARED, fd, 0);
  close(fd);
  if (end < 0)
    *msg = "onnxc_create_with_weights: cannot read the weights file (not a regular file?)";
  else if (end < (long)ONNXC_WEIGHTS_HEADER_SIZE)
    *msg = file_messages[WEIGHTS_TOO_SMALL];
  else if (map == ONNXC_MAP_FAILED)
    *msg = "onnxc_create_with_weights: cannot map the weights file";
  if (map == ONNXC_MAP_FAILED)
    return 0;
  *size = (uint64_t)end;
  return (const unsigned char *)map;
}

ONNXC_API onnxc_status onnxc_create_with_weights(const char *path, onnxc_context **out) {
  if (!out)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT,
                                  "onnxc_create_with_weights: out is NULL");
  *out = 0;
  const char *bad = check_arguments(path,
                                    "onnxc_create_with_weights: this model embeds its weights; use "
                                    "onnxc_create",
                                    "onnxc_create_with_weights: path is NULL");
  if (bad)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT, bad);
  uint64_t size = 0;
  const char *msg = 0;
  const unsigned char *image = map_file(path, &size, &msg);
  if (!image)
    return onnxc_set_create_error(ONNXC_ERROR_BAD_WEIGHTS, msg);
  enum weights_problem problem = check_image(image, size);
  onnxc_status st = problem == WEIGHTS_OK
                        ? create_on(image, (void *)image, size, out)
                        : onnxc_set_create_error(ONNXC_ERROR_BAD_WEIGHTS, file_messages[problem]);
  if (st != ONNXC_OK)
    munmap((void *)image, (size_t)size);
  return st;
}
