/* String kernels' parameters and the packed string table (templates/cpu/strings.cpp,
 * regex_match.cpp, tfidf.cpp; lowerings in compiler/ops/strings/).
 *
 * A string tensor is an array of `const char *` (NUL-terminated UTF-8), one 8-byte slot per
 * element, in the arena as in the caller's buffers. Strings a kernel creates live in the run's
 * dynamic memory (onnxc_rt_dyn_alloc). Constant strings (attributes, constant tensors) reach a
 * kernel as a packed string table, a uint8 weight:
 *   uint64 count; uint64 offset[count]; then the strings, each NUL-terminated,
 * offsets counted from the start of the table (the weight blob is 64-byte aligned). */
#ifndef ONNXC_STRING_PARAMS_H
#define ONNXC_STRING_PARAMS_H

#include <stdint.h>

namespace onnxc_k {

/// Largest rank of a broadcasting string op (Equal, StringConcat).
constexpr int64_t kStrMaxRank = 8;

/// A broadcasting binary string op: output dims and each input's strides (0 broadcasts).
struct StrBinaryParams {
  int64_t rank; ///< 0: both inputs have the output's shape, `n` elements
  int64_t n;    ///< output elements
  int64_t dims[kStrMaxRank];
  int64_t a_strides[kStrMaxRank];
  int64_t b_strides[kStrMaxRank];
};

/// StringNormalizer's case change.
enum StrCase : int64_t { kCaseNone = 0, kCaseLower = 1, kCaseUpper = 2 };

/// An element-wise string op over `n` elements (StringNormalizer, RegexFullMatch, unpack).
struct StrUnaryParams {
  int64_t n;
  int64_t case_change; ///< StrCase (StringNormalizer)
};

/// StringNormalizer with stopwords on strings given at run time: tensors {stopwords (packed,
/// lower-cased unless case-sensitive), x, y}; y keeps the strings of x that are no stopword
/// (case changed), or one empty string when none is left; the kernel reports y's shape, [kept]
/// or [1, kept] (rank).
struct StrStopParams {
  int64_t n, case_change, case_sensitive, stopwords, rank;
};

/// StringSplit on strings given at run time: tensors {delimiter (packed table of one string; ""
/// splits on runs of ASCII whitespace), x, y (string), z (int64)}. z[i] counts the parts of
/// x[i] (at most maxsplit + 1 when maxsplit >= 0); y, [dims..., widest], holds them padded
/// with "" and has no bound: it goes where onnxc_rt_output_buffer says, shape reported.
struct StrSplitParams {
  int64_t n, maxsplit, rank, dims[8];
};

/// Cast between strings and numbers (onnxc_k_cast_to_string / onnxc_k_cast_from_string).
struct StrCastParams {
  int64_t n;
  int64_t dtype; ///< the numeric side's ONNX dtype
};

/// TfIdfVectorizer over `rows` rows of `cols` tokens. The n-gram table (an int64 weight) holds
/// word 0: the offset of the per-column weights (out_cols doubles, as bits); words 1 + 2(k-1)
/// and 2 + 2(k-1) for each length k in 1..max_gram: {offset, count} of that length's entries,
/// each k token ids then the output column, sorted by the ids (offsets in int64 words from the
/// table's start). String inputs are first mapped to ids: their index in the sorted vocabulary
/// (a packed string table), -1 if absent; the scratch holds one row's ids.
struct TfIdfParams {
  int64_t rows, cols;
  int64_t min_gram, max_gram, max_skip;
  int64_t mode;     ///< 0 TF, 1 IDF, 2 TFIDF
  int64_t out_cols; ///< output columns per row
  int64_t input;    ///< 0 int32, 1 int64, 2 string
};

/// ai.onnx.ml LabelEncoder with string keys: tensors {keys (packed, sorted), values (int64 raw
/// per key: integers, or double bits for float/double; or a packed table for string values),
/// default (packed table of one string; string values only), x, y}.
struct LabelStrParams {
  int64_t n;           ///< elements
  int64_t keys;        ///< number of keys
  int64_t out_code;    ///< -1 string; else 0 float, 1 double, 2 int64, 3 int32, 4 int16
  int64_t default_raw; ///< default of a numeric output (as values)
};

/// Integer keys to string values (LabelEncoder, CategoryMapper): tensors {keys (int64,
/// ascending), values (packed strings, in key order), default (packed table of one string),
/// x, y (string)}.
struct IntToStrParams {
  int64_t n;        ///< elements
  int64_t keys;     ///< number of keys
  int64_t in_bytes; ///< width of x's integers: 8, 4 or 2
};

#ifdef __cplusplus
/// Number of strings in a packed string table.
inline int64_t table_count(const void *table) {
  return static_cast<int64_t>(*static_cast<const uint64_t *>(table));
}
/// String i of a packed string table.
inline const char *table_string(const void *table, int64_t i) {
  const uint64_t *h = static_cast<const uint64_t *>(table);
  return static_cast<const char *>(table) + h[1 + i];
}
#endif

} // namespace onnxc_k

#endif
