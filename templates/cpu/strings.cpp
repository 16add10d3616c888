/* String tensor kernels: constants unpacked into pointer slots, Equal on strings, StringConcat,
 * StringNormalizer's case change. Layouts: templates/cpu/string_params.h. Serial: new strings
 * come from the run's dynamic memory (onnxc_rt_dyn_alloc), which is not for pool threads. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"
#include "templates/cpu/string_params.h"

namespace onnxc_k {
namespace {

using Str = const char *;

/// Offsets of output element o in inputs a and b of a broadcasting binary op.
inline void binary_offsets(const StrBinaryParams &p, i64 o, i64 &oa, i64 &ob) {
  if (p.rank == 0) {
    oa = ob = o;
    return;
  }
  oa = ob = 0;
  for (i64 d = p.rank - 1; d >= 0; --d) {
    i64 c = o % p.dims[d];
    o /= p.dims[d];
    oa += c * p.a_strides[d];
    ob += c * p.b_strides[d];
  }
}

inline bool same(Str a, Str b) { return __builtin_strcmp(a, b) == 0; }

inline char change_case(char c, i64 mode) {
  if (mode == kCaseLower && c >= 'A' && c <= 'Z')
    return static_cast<char>(c - 'A' + 'a');
  if (mode == kCaseUpper && c >= 'a' && c <= 'z')
    return static_cast<char>(c - 'a' + 'A');
  return c;
}

} // namespace
} // namespace onnxc_k

using namespace onnxc_k;

/// tensors {table (packed strings), out (string)}: out[i] points at string i of the table.
extern "C" int32_t onnxc_k_string_unpack(onnxc_rt *, void *const *t, const i64 *params) {
  const auto p = params_of<StrUnaryParams>(params);
  Str *out = static_cast<Str *>(t[1]);
  for (i64 i = 0; i < p.n; ++i)
    out[i] = table_string(t[0], i);
  return 0;
}

/// Equal on strings: tensors {a, b, y (bool)}; byte-wise comparison.
extern "C" int32_t onnxc_k_equal_str(onnxc_rt *, void *const *t, const i64 *params) {
  const auto p = params_of<StrBinaryParams>(params);
  const Str *a = static_cast<const Str *>(t[0]), *b = static_cast<const Str *>(t[1]);
  uint8_t *y = static_cast<uint8_t *>(t[2]);
  for (i64 o = 0; o < p.n; ++o) {
    i64 oa, ob;
    binary_offsets(p, o, oa, ob);
    y[o] = same(a[oa], b[ob]) ? 1 : 0;
  }
  return 0;
}

/// StringConcat: tensors {a, b, y}; y[o] = a[oa] + b[ob] in one block of dynamic memory.
extern "C" int32_t onnxc_k_string_concat(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrBinaryParams>(params);
  const Str *a = static_cast<const Str *>(t[0]), *b = static_cast<const Str *>(t[1]);
  Str *y = static_cast<Str *>(t[2]);
  uint64_t total = 0;
  for (i64 o = 0; o < p.n; ++o) {
    i64 oa, ob;
    binary_offsets(p, o, oa, ob);
    total += __builtin_strlen(a[oa]) + __builtin_strlen(b[ob]) + 1;
  }
  char *buf = static_cast<char *>(onnxc_rt_dyn_alloc(rt, total));
  if (!buf)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  for (i64 o = 0; o < p.n; ++o) {
    i64 oa, ob;
    binary_offsets(p, o, oa, ob);
    uint64_t la = __builtin_strlen(a[oa]), lb = __builtin_strlen(b[ob]);
    __builtin_memcpy(buf, a[oa], la);
    __builtin_memcpy(buf + la, b[ob], lb + 1);
    y[o] = buf;
    buf += la + lb + 1;
  }
  return 0;
}

/// StringNormalizer without stopwords: tensors {x, y}; ASCII letters change case, every other
/// byte (UTF-8 sequences included) is copied. Without a case change y points at x's strings.
extern "C" int32_t onnxc_k_string_normalize(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrUnaryParams>(params);
  const Str *x = static_cast<const Str *>(t[0]);
  Str *y = static_cast<Str *>(t[1]);
  if (p.case_change == kCaseNone) {
    for (i64 i = 0; i < p.n; ++i)
      y[i] = x[i];
    return 0;
  }
  uint64_t total = 0;
  for (i64 i = 0; i < p.n; ++i)
    total += __builtin_strlen(x[i]) + 1;
  char *buf = static_cast<char *>(onnxc_rt_dyn_alloc(rt, total));
  if (!buf)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  for (i64 i = 0; i < p.n; ++i) {
    y[i] = buf;
    for (Str s = x[i]; *s; ++s)
      *buf++ = change_case(*s, p.case_change);
    *buf++ = '\0';
  }
  return 0;
}

/// StringNormalizer with stopwords (StrStopParams). Every kept string is copied into the run's
/// dynamic memory, so y never points at the caller's input.
extern "C" int32_t onnxc_k_string_normalize_stop(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrStopParams>(params);
  const Str *x = static_cast<const Str *>(t[1]);
  Str *y = static_cast<Str *>(t[2]);
  auto is_stopword = [&](Str s) {
    for (i64 k = 0; k < p.stopwords; ++k) {
      Str w = table_string(t[0], k), c = s;
      while (*c && *w && (p.case_sensitive ? *c : change_case(*c, kCaseLower)) == *w)
        ++c, ++w;
      if (!*c && !*w)
        return true;
    }
    return false;
  };
  uint64_t total = 1; // the empty string when nothing is left
  for (i64 i = 0; i < p.n; ++i)
    total += __builtin_strlen(x[i]) + 1;
  char *buf = static_cast<char *>(onnxc_rt_dyn_alloc(rt, total));
  if (!buf)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  i64 kept = 0;
  for (i64 i = 0; i < p.n; ++i) {
    if (is_stopword(x[i]))
      continue;
    y[kept++] = buf;
    for (Str s = x[i]; *s; ++s)
      *buf++ = change_case(*s, p.case_change);
    *buf++ = '\0';
  }
  if (kept == 0) { // ONNX Runtime's convention: one empty string
    *buf = '\0';
    y[kept++] = buf;
  }
  const i64 shape[2] = {p.rank == 2 ? 1 : kept, kept};
  onnxc_rt_set_shape(rt, y, static_cast<int32_t>(p.rank), shape);
  return 0;
}

namespace {
inline bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// Python's str.split(sep, maxsplit) of s (sep "" : runs of whitespace, ends stripped; at most
/// maxsplit splits when it is >= 0): emit(start, length) per part, in order; the part count.
template <typename Emit> i64 split_parts(Str s, Str sep, i64 maxsplit, Emit emit) {
  const uint64_t len = __builtin_strlen(s), seplen = __builtin_strlen(sep);
  i64 parts = 0;
  uint64_t i = 0;
  if (seplen == 0) {
    for (;;) {
      while (i < len && is_space(s[i]))
        ++i;
      if (i == len)
        return parts;
      if (maxsplit >= 0 && parts == maxsplit) { // the rest, trailing whitespace included
        emit(s + i, len - i);
        return parts + 1;
      }
      uint64_t j = i;
      while (j < len && !is_space(s[j]))
        ++j;
      emit(s + i, j - i);
      ++parts;
      i = j;
    }
  }
  uint64_t start = 0;
  for (uint64_t at = 0; (maxsplit < 0 || parts < maxsplit) && at + seplen <= len;) {
    if (__builtin_memcmp(s + at, sep, seplen) != 0) {
      ++at;
      continue;
    }
    emit(s + start, at - start);
    ++parts;
    start = at = at + seplen;
  }
  emit(s + start, len - start);
  return parts + 1;
}
} // namespace

extern "C" int32_t onnxc_k_string_split(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrSplitParams>(params);
  const Str sep = table_string(t[0], 0);
  const Str *x = static_cast<const Str *>(t[1]);
  int64_t *z = static_cast<int64_t *>(t[3]);
  i64 widest = 0;
  uint64_t chars = 1; // the shared empty string
  for (i64 i = 0; i < p.n; ++i) {
    z[i] = split_parts(x[i], sep, p.maxsplit, [&](Str, uint64_t l) { chars += l + 1; });
    widest = z[i] > widest ? z[i] : widest;
  }
  Str *y = static_cast<Str *>(onnxc_rt_output_buffer(rt, t[2], uint64_t(p.n * widest) * 8));
  char *buf = static_cast<char *>(onnxc_rt_dyn_alloc(rt, chars));
  if (!y || !buf)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  Str empty = buf;
  *buf++ = '\0';
  for (i64 i = 0; i < p.n; ++i) {
    Str *row = y + i * widest;
    i64 k = 0;
    split_parts(x[i], sep, p.maxsplit, [&](Str s, uint64_t l) {
      __builtin_memcpy(buf, s, l);
      buf[l] = '\0';
      row[k++] = buf;
      buf += l + 1;
    });
    for (; k < widest; ++k)
      row[k] = empty;
  }
  i64 shape[9];
  for (i64 d = 0; d < p.rank; ++d)
    shape[d] = p.dims[d];
  shape[p.rank] = widest;
  onnxc_rt_set_shape(rt, t[2], static_cast<int32_t>(p.rank + 1), shape);
  return 0;
}

/// ai.onnx.ml LabelEncoder with string keys (LabelStrParams): binary search in the sorted keys.
extern "C" int32_t onnxc_k_label_encoder_str(onnxc_rt *, void *const *t, const i64 *params) {
  const auto p = params_of<LabelStrParams>(params);
  const Str *x = static_cast<const Str *>(t[3]);
  const i64 *raw = static_cast<const i64 *>(t[1]);
  for (i64 i = 0; i < p.n; ++i) {
    i64 lo = 0, hi = p.keys, k = -1;
    while (lo < hi) {
      i64 mid = lo + (hi - lo) / 2;
      int c = __builtin_strcmp(table_string(t[0], mid), x[i]);
      if (c == 0) {
        k = mid;
        break;
      }
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (p.out_code < 0) {
      static_cast<Str *>(t[4])[i] = k >= 0 ? table_string(t[1], k) : table_string(t[2], 0);
      continue;
    }
    i64 v = k >= 0 ? raw[k] : p.default_raw;
    void *y = t[4];
    switch (p.out_code) {
    case 0:
      static_cast<float *>(y)[i] = static_cast<float>(param_f64(&v, 0));
      break;
    case 1:
      static_cast<double *>(y)[i] = param_f64(&v, 0);
      break;
    case 2:
      static_cast<int64_t *>(y)[i] = v;
      break;
    case 3:
      static_cast<int32_t *>(y)[i] = static_cast<int32_t>(v);
      break;
    default:
      static_cast<int16_t *>(y)[i] = static_cast<int16_t>(v);
      break;
    }
  }
  return 0;
}

/// Integer keys to string values (IntToStrParams): binary search in the ascending keys.
extern "C" int32_t onnxc_k_int_to_string(onnxc_rt *, void *const *t, const i64 *params) {
  const auto p = params_of<IntToStrParams>(params);
  const i64 *keys = static_cast<const i64 *>(t[0]);
  Str *y = static_cast<Str *>(t[4]);
  for (i64 i = 0; i < p.n; ++i) {
    i64 v = p.in_bytes == 8   ? static_cast<const int64_t *>(t[3])[i]
            : p.in_bytes == 4 ? static_cast<const int32_t *>(t[3])[i]
                              : static_cast<const int16_t *>(t[3])[i];
    i64 lo = 0, hi = p.keys;
    while (lo < hi) {
      i64 mid = lo + (hi - lo) / 2;
      if (keys[mid] < v)
        lo = mid + 1;
      else
        hi = mid;
    }
    y[i] = lo < p.keys && keys[lo] == v ? table_string(t[1], lo) : table_string(t[2], 0);
  }
  return 0;
}

/// Copies string tensor x into the run's dynamic memory: tensors {x, y}. A string graph output
/// that passes strings through (Identity, Gather, ...) gets one, so what the caller reads is
/// owned by the context (runtime-api.md).
static int32_t copy_strings(onnxc_rt *rt, const Str *x, Str *y, i64 n) {
  uint64_t total = 0;
  for (i64 i = 0; i < n; ++i)
    total += __builtin_strlen(x[i]) + 1;
  char *buf = static_cast<char *>(onnxc_rt_dyn_alloc(rt, total));
  if (!buf)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  for (i64 i = 0; i < n; ++i) {
    uint64_t len = __builtin_strlen(x[i]) + 1;
    __builtin_memcpy(buf, x[i], len);
    y[i] = buf;
    buf += len;
  }
  return 0;
}

extern "C" int32_t onnxc_k_string_copy(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrUnaryParams>(params);
  return copy_strings(rt, static_cast<const Str *>(t[0]), static_cast<Str *>(t[1]), p.n);
}

/// The copy of a string tensor shaped at run time (Value::run_time_shape_from): only the
/// elements of the shape the run recorded for it (the rest of its buffer is not written).
extern "C" int32_t onnxc_k_string_copy_shaped(onnxc_rt *rt, void *const *t, const i64 *params) {
  const auto p = params_of<StrUnaryParams>(params);
  const i64 n = onnxc_rt_shape_numel(rt, t[0]);
  if (n < 0 || n > p.n)
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR,
                         "internal error: no shape was recorded for a string tensor shaped at "
                         "run time");
  return copy_strings(rt, static_cast<const Str *>(t[0]), static_cast<Str *>(t[1]), n);
}
