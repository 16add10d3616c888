/* Cast between strings and numbers (compiler/ops/math/cast.cpp), through libc's snprintf and
 * strto* (declared by hand: kernels include no libc header).
 *
 * number -> string: integers in decimal; float and double as the shortest %g form that reads
 * back to the same value ("0.5", "1e+10", "3.1415927"), NaN as "NaN", infinities as "INF" and
 * "-INF" (the ONNX spelling). string -> number: strtod / strtoll / strtoull on the whole text
 * ("3.14", "1e-5", "INF", "+INF", "-inf", "NaN" in any case); text that is no number gives 0.
 * StrCastParams: {n, the numeric side's ONNX dtype}; tensors {x, y}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"
#include "templates/cpu/string_params.h"

extern "C" {
int snprintf(char *buf, size_t size, const char *fmt, ...);
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
long long strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
}

namespace {
using onnxc_k::i64;

/// ONNX dtype numbers of the numeric side.
enum : i64 {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13
};

/// Room for one number's text (the longest: a double in %.17g, or -9223372036854775808).
constexpr i64 kNumberChars = 32;

/// Writes v's shortest round-tripping %g text (precision up to max_digits) into buf.
template <typename T> void format_real(char *buf, T v, int max_digits) {
  if (v != v) {
    __builtin_memcpy(buf, "NaN", 4);
    return;
  }
  if (v == static_cast<T>(__builtin_inf()) || v == -static_cast<T>(__builtin_inf())) {
    __builtin_memcpy(buf, v > 0 ? "INF" : "-INF", v > 0 ? 4 : 5);
    return;
  }
  for (int digits = 1; digits <= max_digits; ++digits) {
    snprintf(buf, kNumberChars, "%.*g", digits, static_cast<double>(v));
    T back = sizeof(T) == 4 ? static_cast<T>(strtof(buf, nullptr))
                            : static_cast<T>(strtod(buf, nullptr));
    if (back == v)
      return;
  }
}

void format_number(char *buf, const void *x, i64 i, i64 dtype) {
  switch (dtype) {
  case kFloat:
    return format_real(buf, static_cast<const float *>(x)[i], 9);
  case kDouble:
    return format_real(buf, static_cast<const double *>(x)[i], 17);
  case kInt8:
    snprintf(buf, kNumberChars, "%d", static_cast<const int8_t *>(x)[i]);
    return;
  case kInt16:
    snprintf(buf, kNumberChars, "%d", static_cast<const int16_t *>(x)[i]);
    return;
  case kInt32:
    snprintf(buf, kNumberChars, "%d", static_cast<const int32_t *>(x)[i]);
    return;
  case kInt64:
    snprintf(buf, kNumberChars, "%lld", static_cast<long long>(static_cast<const int64_t *>(x)[i]));
    return;
  case kUint8:
    snprintf(buf, kNumberChars, "%u", static_cast<const uint8_t *>(x)[i]);
    return;
  case kUint16:
    snprintf(buf, kNumberChars, "%u", static_cast<const uint16_t *>(x)[i]);
    return;
  case kUint32:
    snprintf(buf, kNumberChars, "%u", static_cast<const uint32_t *>(x)[i]);
    return;
  default:
    snprintf(buf, kNumberChars, "%llu",
             static_cast<unsigned long long>(static_cast<const uint64_t *>(x)[i]));
  }
}

template <typename T> void store(void *y, i64 i, T v) { static_cast<T *>(y)[i] = v; }

void parse_number(const char *s, void *y, i64 i, i64 dtype) {
  switch (dtype) {
  case kFloat:
    return store(y, i, strtof(s, nullptr));
  case kDouble:
    return store(y, i, strtod(s, nullptr));
  case kInt8:
    return store(y, i, static_cast<int8_t>(strtoll(s, nullptr, 10)));
  case kInt16:
    return store(y, i, static_cast<int16_t>(strtoll(s, nullptr, 10)));
  case kInt32:
    return store(y, i, static_cast<int32_t>(strtoll(s, nullptr, 10)));
  case kInt64:
    return store(y, i, static_cast<int64_t>(strtoll(s, nullptr, 10)));
  case kUint8:
    return store(y, i, static_cast<uint8_t>(strtoull(s, nullptr, 10)));
  case kUint16:
    return store(y, i, static_cast<uint16_t>(strtoull(s, nullptr, 10)));
  case kUint32:
    return store(y, i, static_cast<uint32_t>(strtoull(s, nullptr, 10)));
  default:
    return store(y, i, static_cast<uint64_t>(strtoull(s, nullptr, 10)));
  }
}

} // namespace

using namespace onnxc_k;

extern "C" int32_t onnxc_k_cast_to_string(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrCastParams>(params);
  char *buf =
      static_cast<char *>(onnxc_rt_dyn_alloc(rt, static_cast<uint64_t>(p.n * kNumberChars)));
  if (!buf && p.n > 0)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  const char **y = static_cast<const char **>(t[1]);
  for (i64 i = 0; i < p.n; ++i) {
    char *s = buf + i * kNumberChars;
    s[0] = '\0';
    format_number(s, t[0], i, p.dtype);
    y[i] = s;
  }
  return 0;
}

extern "C" int32_t onnxc_k_cast_from_string(onnxc_rt *, void *const *t, const i64 *params) {
  const auto p = params_of<StrCastParams>(params);
  const char *const *x = static_cast<const char *const *>(t[0]);
  for (i64 i = 0; i < p.n; ++i)
    parse_number(x[i], t[1], i, p.dtype);
  return 0;
}
