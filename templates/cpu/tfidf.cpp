/* TfIdfVectorizer (ai.onnx): n-gram counts per row, with skips, weighted by mode. Semantics as
 * ONNX Runtime: for each skip s in 0..max_skip (items s+1 apart), each start position and each
 * length k in min_gram..max_gram that fits, the k-gram counts if it is in the pool; unigrams
 * only at s = 0. Table layout: templates/cpu/string_params.h. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/params.h"
#include "templates/cpu/string_params.h"

namespace onnxc_k {
namespace {

/// Compares the k ids at `key` with the k-gram starting at ids[at] with stride `step`.
inline int compare_gram(const i64 *key, const i64 *ids, i64 at, i64 step, i64 k) {
  for (i64 j = 0; j < k; ++j) {
    i64 v = ids[at + j * step];
    if (key[j] != v)
      return key[j] < v ? -1 : 1;
  }
  return 0;
}

/// The output column of the k-gram at ids[at] (stride step), or -1 if it is not in the pool.
inline i64 find_gram(const i64 *table, i64 k, const i64 *ids, i64 at, i64 step) {
  const i64 *entries = table + table[1 + 2 * (k - 1)];
  i64 lo = 0, hi = table[2 + 2 * (k - 1)];
  while (lo < hi) {
    i64 mid = lo + (hi - lo) / 2;
    int c = compare_gram(entries + mid * (k + 1), ids, at, step, k);
    if (c == 0)
      return entries[mid * (k + 1) + k];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/// Index of `s` in the sorted vocabulary, or -1.
inline i64 vocab_id(const void *vocab, const char *s) {
  i64 lo = 0, hi = table_count(vocab);
  while (lo < hi) {
    i64 mid = lo + (hi - lo) / 2;
    int c = __builtin_strcmp(table_string(vocab, mid), s);
    if (c == 0)
      return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/// The token ids of row r.
inline void row_ids(const TfIdfParams &p, const void *x, const void *vocab, i64 r, i64 *ids) {
  for (i64 j = 0; j < p.cols; ++j) {
    i64 e = r * p.cols + j;
    if (p.input == 0)
      ids[j] = static_cast<const int32_t *>(x)[e];
    else if (p.input == 1)
      ids[j] = static_cast<const int64_t *>(x)[e];
    else
      ids[j] = vocab_id(vocab, static_cast<const char *const *>(x)[e]);
  }
}

/// Counts row r's n-grams into y (out_cols floats, zeroed first).
inline void count_row(const TfIdfParams &p, const i64 *table, const i64 *ids, float *y) {
  for (i64 c = 0; c < p.out_cols; ++c)
    y[c] = 0.0f;
  i64 first = p.min_gram;
  for (i64 skip = 0; skip <= p.max_skip; ++skip) {
    const i64 step = skip + 1;
    for (i64 start = 0; start < p.cols; ++start)
      for (i64 k = first; k <= p.max_gram && start + (k - 1) * step < p.cols; ++k) {
        i64 col = find_gram(table, k, ids, start, step);
        if (col >= 0)
          y[col] += 1.0f;
      }
    if (first == 1 && ++first > p.max_gram) // unigrams do not depend on the skip
      break;
  }
}

} // namespace
} // namespace onnxc_k

using namespace onnxc_k;

/// tensors {x, table (int64), vocab (packed strings; string input only), y (float), scratch}.
extern "C" int32_t onnxc_k_tfidf(onnxc_rt *, void *const *t, const i64 *params) {
  const auto p = params_of<TfIdfParams>(params);
  const i64 *table = static_cast<const i64 *>(t[1]);
  float *y = static_cast<float *>(t[3]);
  i64 *ids = static_cast<i64 *>(t[4]);
  const i64 *wbits = table + table[0];
  for (i64 r = 0; r < p.rows; ++r) {
    float *yr = y + r * p.out_cols;
    row_ids(p, t[0], t[2], r, ids);
    count_row(p, table, ids, yr);
    for (i64 c = 0; c < p.out_cols && p.mode != 0; ++c) {
      double w = param_f64(wbits, static_cast<int>(c));
      yr[c] = p.mode == 1 ? (yr[c] > 0.0f ? static_cast<float>(w) : 0.0f)
                          : static_cast<float>(yr[c] * w);
    }
  }
  return 0;
}
