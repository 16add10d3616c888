// TfIdfVectorizer (ai.onnx, opset 9): int32, int64 or string tokens, [C] or [N, C]; output
// float [max(ngram_indexes) + 1] or [N, that]. The pool is turned at compile time into the
// sorted n-gram table the kernel binary-searches (templates/cpu/tfidf.cpp; layout in
// templates/cpu/string_params.h); string pools become ids through a sorted vocabulary.
#include "compiler/ops/op_util.h"
#include "compiler/ops/strings/string_util.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace onnxc {
namespace {

struct Pool {
  std::vector<int64_t> ids;       ///< pool items (string pools: vocabulary indices)
  std::vector<std::string> vocab; ///< sorted unique strings (string pools)
};

Pool read_pool(const Node &n) {
  Pool p;
  bool ints = has_attr(n, "pool_int64s"), strs = has_attr(n, "pool_strings");
  if (ints == strs)
    node_fail(n, "exactly one of pool_int64s and pool_strings must be given");
  if (ints) {
    p.ids = attr_ints(n, "pool_int64s", {});
    return p;
  }
  std::vector<std::string> s = attr_strings(n, "pool_strings");
  p.vocab = s;
  std::sort(p.vocab.begin(), p.vocab.end());
  p.vocab.erase(std::unique(p.vocab.begin(), p.vocab.end()), p.vocab.end());
  for (const std::string &x : s)
    p.ids.push_back(std::lower_bound(p.vocab.begin(), p.vocab.end(), x) - p.vocab.begin());
  return p;
}

int64_t mode_code(const Node &n) {
  std::string m = attr_string(n, "mode", "");
  if (m == "TF")
    return 0;
  if (m == "IDF")
    return 1;
  if (m == "TFIDF")
    return 2;
  node_fail(n, "mode must be TF, IDF or TFIDF, not \"{}\"", m);
}

int64_t out_columns(const Node &n) {
  std::vector<int64_t> idx = attr_ints(n, "ngram_indexes", {});
  int64_t m = -1;
  for (int64_t v : idx) {
    if (v < 0)
      node_fail(n, "ngram_indexes has a negative index {}", v);
    m = std::max(m, v);
  }
  return m + 1;
}

/// The n-gram table of templates/cpu/string_params.h (TfIdfParams).
std::vector<int64_t> gram_table(const Node &n, const Pool &pool, int64_t max_gram, int64_t cols) {
  std::vector<int64_t> counts = attr_ints(n, "ngram_counts", {}),
                       idx = attr_ints(n, "ngram_indexes", {});
  std::vector<float> w = has_attr(n, "weights") ? attr_floats(n, "weights") : std::vector<float>{};
  std::vector<int64_t> table(1 + 2 * static_cast<size_t>(max_gram), 0);
  std::vector<double> col_w(static_cast<size_t>(cols), 1.0);
  size_t gram = 0; // index of the pool's n-gram
  for (int64_t k = 1; k <= static_cast<int64_t>(counts.size()); ++k) {
    int64_t begin = counts[k - 1];
    int64_t end = k < static_cast<int64_t>(counts.size()) ? counts[k] : pool.ids.size();
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.ids.size()) ||
        (end - begin) % k != 0)
      node_fail(n, "ngram_counts [{}] does not split the pool of {} items into {}-grams",
                fmt::join(counts, ", "), pool.ids.size(), k);
    std::map<std::vector<int64_t>, int64_t> entries;
    for (int64_t at = begin; at < end; at += k, ++gram) {
      if (gram >= idx.size())
        node_fail(n, "ngram_indexes has {} entries, fewer than the pool's n-grams", idx.size());
      if (!w.empty() && gram < w.size())
        col_w[static_cast<size_t>(idx[gram])] = w[gram];
      entries.emplace(std::vector<int64_t>(pool.ids.begin() + at, pool.ids.begin() + at + k),
                      idx[gram]);
    }
    if (k > max_gram)
      continue;
    table[1 + 2 * (k - 1)] = static_cast<int64_t>(table.size());
    table[2 + 2 * (k - 1)] = static_cast<int64_t>(entries.size());
    for (const auto &[key, col] : entries) {
      table.insert(table.end(), key.begin(), key.end());
      table.push_back(col);
    }
  }
  table[0] = static_cast<int64_t>(table.size());
  for (double v : col_w)
    table.push_back(param_f64(v));
  return table;
}

onnxc_k::TfIdfParams tfidf_params(const Node &n) {
  std::vector<int64_t> dims = input_dims(n, 0);
  onnxc_k::TfIdfParams p{};
  p.rows = dims.size() == 2 ? dims[0] : 1;
  p.cols = dims.back();
  p.min_gram = attr_int(n, "min_gram_length", 0);
  p.max_gram = attr_int(n, "max_gram_length", 0);
  p.max_skip = attr_int(n, "max_skip_count", 0);
  p.mode = mode_code(n);
  p.out_cols = out_columns(n);
  DType t = input_dtype(n, 0);
  p.input = t == DType::Int32 ? 0 : t == DType::Int64 ? 1 : 2;
  return p;
}

} // namespace

const OpDef &op_TfIdfVectorizer() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "TfIdfVectorizer";
    d.min_opset = 9;
    d.attrs = {{"max_gram_length", Attribute::Kind::Int, true},
               {"max_skip_count", Attribute::Kind::Int, true},
               {"min_gram_length", Attribute::Kind::Int, true},
               {"mode", Attribute::Kind::String, true},
               {"ngram_counts", Attribute::Kind::Ints, true},
               {"ngram_indexes", Attribute::Kind::Ints, true},
               {"pool_int64s", Attribute::Kind::Ints},
               {"pool_strings", Attribute::Kind::Strings},
               {"weights", Attribute::Kind::Floats}};
    d.infer = [](Node &n) {
      require_dtype(n, input_dtype(n, 0), {DType::Int32, DType::Int64, DType::String});
      std::vector<int64_t> dims = input_dims(n, 0);
      if (dims.empty() || dims.size() > 2)
        node_fail(n, "input must have shape [C] or [N, C], not {}", dims_to_string(dims));
      onnxc_k::TfIdfParams p = tfidf_params(n);
      if (p.min_gram < 1 || p.max_gram < p.min_gram || p.max_skip < 0)
        node_fail(n, "needs 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
      Pool pool = read_pool(n);
      if ((p.input == 2) != !pool.vocab.empty() && !pool.ids.empty())
        node_fail(n, "the pool ({}) and the input ({}) must both be strings or both integers",
                  pool.vocab.empty() ? "pool_int64s" : "pool_strings",
                  dtype_name(input_dtype(n, 0)));
      gram_table(n, pool, p.max_gram, p.out_cols); // validates the pool
      std::vector<int64_t> out{p.out_cols};
      if (dims.size() == 2)
        out.insert(out.begin(), dims[0]);
      set_output(n, 0, DType::Float, out);
    };
    d.lower = [](const Node &n) {
      onnxc_k::TfIdfParams p = tfidf_params(n);
      Pool pool = read_pool(n);
      std::vector<int64_t> table = gram_table(n, pool, p.max_gram, p.out_cols);
      auto t = std::make_shared<Tensor>(DType::Int64,
                                        std::vector<int64_t>{static_cast<int64_t>(table.size())});
      std::memcpy(t->data(), table.data(), table.size() * sizeof(int64_t));
      KernelCall c{"onnxc_k_tfidf", {n.inputs[0], nullptr, nullptr, n.outputs[0]}, {}};
      set_params(c, p);
      c.scratch_bytes = std::max<int64_t>(8, 8 * p.cols);
      std::string base = n.outputs[0]->name;
      c.derived.push_back({1, t, base + ".ngrams"});
      if (p.input == 2)
        c.derived.push_back({2, pack_strings(pool.vocab), base + ".vocab"});
      return c;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
