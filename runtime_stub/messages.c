/* messages.c — bounded message building for error strings (no libc formatting available). */
#include "runtime_stub/stub_internal.h"

onnxc_msg onnxc_msg_begin(char *buf, size_t cap) {
  onnxc_msg m = {buf, cap, 0};
  if (cap > 0)
    buf[0] = '\0';
  return m;
}

static void msg_char(onnxc_msg *m, char c) {
  if (m->len + 1 < m->cap) {
    m->buf[m->len++] = c;
    m->buf[m->len] = '\0';
  }
}

void onnxc_msg_str(onnxc_msg *m, const char *s) {
  if (!s)
    s = "(null)";
  while (*s && m->len + 1 < m->cap)
    msg_char(m, *s++);
}

void onnxc_msg_u64(onnxc_msg *m, uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    msg_char(m, digits[--n]);
}

void onnxc_msg_i64(onnxc_msg *m, int64_t v) {
  if (v < 0) {
    msg_char(m, '-');
    onnxc_msg_u64(m, (uint64_t)0 - (uint64_t)v);
  } else {
    onnxc_msg_u64(m, (uint64_t)v);
  }
}

void onnxc_msg_dims(onnxc_msg *m, const int64_t *dims, int32_t rank) {
  if (rank <= 0) {
    onnxc_msg_str(m, "scalar");
    return;
  }
  for (int32_t i = 0; i < rank; ++i) {
    if (i > 0)
      msg_char(m, 'x');
    if (dims[i] < 0)
      msg_char(m, '?');
    else
      onnxc_msg_i64(m, dims[i]);
  }
}

const char *onnxc_dtype_name(int32_t dtype) {
  static const char *const kNames[] = {
      "undefined",      "float",      "uint8",      "int8",           "uint16",
      "int16",          "int32",      "int64",      "string",         "bool",
      "float16",        "double",     "uint32",     "uint64",         "complex64",
      "complex128",     "bfloat16",   "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",      "int4",       "float4e2m1",     "float8e8m0",
      "uint2",          "int2",
  };
  if (dtype < 0 || dtype >= (int32_t)(sizeof kNames / sizeof kNames[0]))
    return "unknown dtype";
  return kNames[dtype];
}
