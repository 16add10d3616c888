// nn and matmul ops (MatMul, Gemm, Conv, pools, normalisations, Softmax): each test builds one
// node by hand, runs its shape rule and the reference evaluator (the natively compiled kernel),
// and compares with a naive implementation written here. Sizes probe the GEMM tile boundaries
// (MR = 6, NR = 16 floats, KC = 256, MC = 72, NC = 128): 1, below, equal, above, primes.
#include "compiler/ir/ir.h"
#include "compiler/ops/evaluate.h"
#include "compiler/ops/registry.h"
#include "tests/unit/node_attrs.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace onnxc;

namespace {

TensorPtr random_tensor(const std::vector<int64_t> &dims, uint32_t seed, float lo = -1,
                        float hi = 1) {
  auto t = std::make_shared<Tensor>(DType::Float, dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t->numel(); ++i)
    t->data_as<float>()[i] = dist(rng);
  return t;
}

struct OneNode : test::AttrSetters<OneNode> {
  Graph g;
  Node *node = nullptr;

  OneNode(const char *op, std::vector<TensorPtr> ins, size_t outs = 1, int64_t opset = 13) {
    std::vector<Value *> vals;
    for (size_t i = 0; i < ins.size(); ++i)
      vals.push_back(ins[i] ? g.add_constant("in" + std::to_string(i), ins[i]) : nullptr);
    node = g.add_node(op, vals, outs);
    node->def = find_op("", op);
    node->opset = opset;
    REQUIRE(node->def);
  }
  std::vector<Tensor> run() {
    node->def->infer(*node);
    std::vector<const Tensor *> in;
    for (Value *v : node->inputs)
      in.push_back(v ? v->constant.get() : nullptr);
    return evaluate_node(*node, in);
  }
};

void require_close(const Tensor &got, const std::vector<int64_t> &dims,
                   const std::vector<double> &want, double tol = 1e-4) {
  REQUIRE(got.shape() == dims);
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got.data_as<float>()[i];
    if (std::abs(g - want[i]) > tol * (1 + std::abs(want[i]))) {
      INFO("element " << i << ": got " << g << ", want " << want[i]);
      REQUIRE(false);
    }
  }
}

const float *fp(const TensorPtr &t) { return t->data_as<float>(); }

} // namespace

// ---------------------------------------------------------------------------------------------
// MatMul and Gemm

namespace {

/// Naive batched matmul on row-major [batch..., M, K] x [batch..., K, N] with broadcasting.
std::vector<double> ref_matmul(const TensorPtr &a, const TensorPtr &b,
                               std::vector<int64_t> &out_dims) {
  std::vector<int64_t> ad = a->shape(), bd = b->shape();
  bool a1 = ad.size() == 1, b1 = bd.size() == 1;
  if (a1)
    ad.insert(ad.begin(), 1);
  if (b1)
    bd.push_back(1);
  int64_t M = ad[ad.size() - 2], K = ad.back(), N = bd.back();
  size_t r = std::max(ad.size(), bd.size()) - 2;
  std::vector<int64_t> batch(r), as(r), bs(r);
  for (size_t d = 0; d < r; ++d) {
    auto dim = [&](const std::vector<int64_t> &v) {
      size_t off = r - (v.size() - 2);
      return d >= off ? v[d - off] : 1;
    };
    batch[d] = std::max(dim(ad), dim(bd));
  }
  int64_t nb = 1;
  for (int64_t x : batch)
    nb *= x;
  std::vector<double> y(nb * M * N);
  for (int64_t bt = 0; bt < nb; ++bt) {
    int64_t rem = bt, ai = 0, bi = 0, am = 1, bm = 1;
    for (size_t d = r; d-- > 0;) {
      int64_t c = rem % batch[d];
      rem /= batch[d];
      size_t offa = r - (ad.size() - 2), offb = r - (bd.size() - 2);
      if (d >= offa) {
        int64_t n = ad[d - offa];
        ai += (n == 1 ? 0 : c) * am;
        am *= n;
      }
      if (d >= offb) {
        int64_t n = bd[d - offb];
        bi += (n == 1 ? 0 : c) * bm;
        bm *= n;
      }
    }
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += double(fp(a)[ai * M * K + i * K + k]) * fp(b)[bi * K * N + k * N + j];
        y[(bt * M + i) * N + j] = acc;
      }
  }
  out_dims = batch;
  if (!a1)
    out_dims.push_back(M);
  if (!b1)
    out_dims.push_back(N);
  return y;
}

void check_matmul(std::vector<int64_t> ad, std::vector<int64_t> bd) {
  INFO("A " << dims_to_string(ad) << " B " << dims_to_string(bd));
  auto a = random_tensor(ad, 1), b = random_tensor(bd, 2);
  std::vector<int64_t> out;
  std::vector<double> want = ref_matmul(a, b, out);
  OneNode t("MatMul", {a, b});
  require_close(t.run()[0], out, want);
}

} // namespace

TEST_CASE("MatMul 2-D across tile boundaries", "[nn][matmul]") {
  for (int64_t m : {1, 2, 4, 5, 6, 7, 13, 72, 73})
    for (int64_t n : {1, 15, 16, 17, 33, 129})
      for (int64_t k : {1, 3, 16, 257})
        check_matmul({m, k}, {k, n});
}

TEST_CASE("MatMul 1-D promotion and batch broadcasting", "[nn][matmul]") {
  check_matmul({7}, {7});
  check_matmul({7}, {7, 5});
  check_matmul({3, 7}, {7});
  check_matmul({2, 3, 7}, {7});
  check_matmul({7}, {2, 7, 19});
  check_matmul({2, 3, 4, 5}, {2, 3, 5, 6});
  check_matmul({2, 1, 4, 5}, {3, 5, 17});
  check_matmul({5, 9}, {4, 9, 20});
  check_matmul({4, 30, 9}, {9, 3}); // narrow: runs transposed
  check_matmul({1, 30, 9}, {3, 9, 2});
}

TEST_CASE("MatMul rejects mismatched K", "[nn][matmul]") {
  OneNode t("MatMul", {random_tensor({3, 4}, 1), random_tensor({5, 6}, 2)});
  REQUIRE_THROWS_WITH(t.run(), Catch::Contains("inner dimensions differ"));
}

TEST_CASE("Gemm trans flags, alpha, beta and C broadcast", "[nn][gemm]") {
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{7, 19, 5}, {1, 37, 20}, {3, 5, 40}})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (auto c_dims : std::vector<std::vector<int64_t>>{{}, {1}, {N}, {M, 1}, {M, N}, {0}}) {
          INFO("transA " << ta << " transB " << tb << " C " << dims_to_string(c_dims));
          auto a = random_tensor(ta ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K}, 3);
          auto b = random_tensor(tb ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N}, 4);
          bool has_c = c_dims != std::vector<int64_t>{0};
          auto c = has_c ? random_tensor(c_dims, 5) : nullptr;
          OneNode t("Gemm", {a, b, c});
          t.i("transA", ta).i("transB", tb).f("alpha", 0.5f).f("beta", 2.0f);
          std::vector<double> want(M * N);
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
              double acc = 0;
              for (int64_t k = 0; k < K; ++k)
                acc +=
                    double(fp(a)[ta ? k * M + i : i * K + k]) * fp(b)[tb ? j * K + k : k * N + j];
              double cv = 0;
              if (has_c) {
                int64_t ci = 0;
                if (c_dims.size() == 2)
                  ci = (c_dims[0] == 1 ? 0 : i) * c_dims[1] + (c_dims[1] == 1 ? 0 : j);
                else if (c_dims.size() == 1)
                  ci = c_dims[0] == 1 ? 0 : j;
                cv = fp(c)[ci];
              }
              want[i * N + j] = 0.5 * acc + 2.0 * cv;
            }
          require_close(t.run()[0], {M, N}, want);
        }
}

TEST_CASE("Gemm narrow output and errors", "[nn][gemm]") {
  auto a = random_tensor({40, 300}, 6), b = random_tensor({3, 300}, 7), c = random_tensor({3}, 8);
  OneNode t("Gemm", {a, b, c});
  t.i("transB", 1);
  std::vector<double> want(40 * 3);
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      double acc = fp(c)[j];
      for (int64_t k = 0; k < 300; ++k)
        acc += double(fp(a)[i * 300 + k]) * fp(b)[j * 300 + k];
      want[i * 3 + j] = acc;
    }
  require_close(t.run()[0], {40, 3}, want);

  OneNode bad("Gemm", {random_tensor({4, 5}, 1), random_tensor({6, 7}, 2)});
  REQUIRE_THROWS_WITH(bad.run(), Catch::Contains("inner dimensions differ"));
  OneNode badc("Gemm",
               {random_tensor({4, 5}, 1), random_tensor({5, 7}, 2), random_tensor({4, 3}, 3)});
  REQUIRE_THROWS_WITH(badc.run(), Catch::Contains("does not broadcast"));
}

// ---------------------------------------------------------------------------------------------
// Conv

namespace {

struct ConvCfg {
  int64_t N = 1, C = 3, M = 4, group = 1;
  std::vector<int64_t> in{7, 8}, k{3, 3}, s{1, 1}, d{1, 1}, pads{0, 0, 0, 0};
  bool bias = true;
};

/// Naive conv with explicit pads; returns output dims in `od`.
std::vector<double> ref_conv(const ConvCfg &c, const TensorPtr &x, const TensorPtr &w,
                             const TensorPtr &b, std::vector<int64_t> &od) {
  size_t r = c.in.size();
  std::vector<int64_t> in(3, 1), k(3, 1), s(3, 1), d(3, 1), pb(3, 0), pe(3, 0), out(3, 1);
  for (size_t i = 0; i < r; ++i) {
    size_t j = 3 - r + i;
    in[j] = c.in[i], k[j] = c.k[i], s[j] = c.s[i], d[j] = c.d[i], pb[j] = c.pads[i],
    pe[j] = c.pads[i + r];
    out[j] = (in[j] + pb[j] + pe[j] - (k[j] - 1) * d[j] - 1) / s[j] + 1;
  }
  od = {c.N, c.M};
  for (size_t i = 0; i < r; ++i)
    od.push_back(out[3 - r + i]);
  int64_t Cg = c.C / c.group, Mg = c.M / c.group;
  int64_t osz = out[0] * out[1] * out[2], isz = in[0] * in[1] * in[2], ksz = k[0] * k[1] * k[2];
  std::vector<double> y(c.N * c.M * osz);
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t o = 0; o < osz; ++o) {
        int64_t o2 = o % out[2], o1 = (o / out[2]) % out[1], o0 = o / (out[2] * out[1]);
        double acc = b ? fp(b)[m] : 0;
        for (int64_t ci = 0; ci < Cg; ++ci)
          for (int64_t kk = 0; kk < ksz; ++kk) {
            int64_t k2 = kk % k[2], k1 = (kk / k[2]) % k[1], k0 = kk / (k[2] * k[1]);
            int64_t i0 = o0 * s[0] - pb[0] + k0 * d[0], i1 = o1 * s[1] - pb[1] + k1 * d[1],
                    i2 = o2 * s[2] - pb[2] + k2 * d[2];
            if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2])
              continue;
            int64_t cin = (m / Mg) * Cg + ci;
            acc += double(fp(x)[(n * c.C + cin) * isz + (i0 * in[1] + i1) * in[2] + i2]) *
                   fp(w)[(m * Cg + ci) * ksz + kk];
          }
        y[(n * c.M + m) * osz + o] = acc;
      }
  return y;
}

void check_conv(const ConvCfg &c) {
  std::vector<int64_t> xd{c.N, c.C}, wd{c.M, c.C / c.group};
  xd.insert(xd.end(), c.in.begin(), c.in.end());
  wd.insert(wd.end(), c.k.begin(), c.k.end());
  INFO("X " << dims_to_string(xd) << " W " << dims_to_string(wd) << " group " << c.group);
  auto x = random_tensor(xd, 11), w = random_tensor(wd, 12);
  auto b = c.bias ? random_tensor({c.M}, 13) : nullptr;
  OneNode t("Conv", {x, w, b});
  t.ints("strides", c.s).ints("dilations", c.d).ints("pads", c.pads).i("group", c.group);
  std::vector<int64_t> od;
  std::vector<double> want = ref_conv(c, x, w, b, od);
  require_close(t.run()[0], od, want);
}

} // namespace

TEST_CASE("Conv 2-D im2col: strides, pads, dilations, bias", "[nn][conv]") {
  ConvCfg c;
  check_conv(c);
  c.bias = false;
  check_conv(c);
  c.s = {2, 2};
  c.pads = {1, 1, 1, 1};
  check_conv(c);
  c.pads = {0, 1, 2, 0};
  c.d = {2, 1};
  check_conv(c);
  c.N = 2, c.C = 5, c.M = 17, c.in = {11, 13}, c.k = {3, 2}, c.s = {1, 2}, c.d = {1, 1};
  check_conv(c);
  c.C = 20, c.M = 73, c.in = {9, 9}, c.k = {3, 3}, c.pads = {1, 1, 1, 1}, c.s = {1, 1};
  check_conv(c); // K = 180, M above MC
}

TEST_CASE("Conv groups, depthwise and pointwise", "[nn][conv]") {
  ConvCfg c;
  c.C = 6, c.M = 4, c.group = 2, c.pads = {1, 1, 1, 1};
  check_conv(c);
  c.C = 8, c.M = 8, c.group = 8;
  check_conv(c); // depthwise
  c.M = 16, c.s = {2, 2};
  check_conv(c); // depthwise, multiplier 2
  c.d = {2, 2}, c.pads = {2, 0, 1, 3};
  check_conv(c);
  ConvCfg p;
  p.N = 2, p.C = 7, p.M = 13, p.in = {5, 9}, p.k = {1, 1}, p.pads = {0, 0, 0, 0};
  check_conv(p); // pointwise GEMM
  p.group = 1, p.s = {2, 2};
  check_conv(p); // 1x1 strided: im2col
}

TEST_CASE("Conv 1-D and 3-D", "[nn][conv]") {
  ConvCfg c;
  c.in = {20}, c.k = {5}, c.s = {3}, c.d = {2}, c.pads = {2, 1};
  check_conv(c);
  c.group = 1, c.C = 4, c.M = 4, c.group = 4;
  check_conv(c);
  ConvCfg v;
  v.in = {4, 5, 6}, v.k = {2, 3, 2}, v.s = {1, 2, 1}, v.d = {1, 1, 2}, v.pads = {1, 0, 1, 0, 1, 1};
  check_conv(v);
}

TEST_CASE("Conv auto_pad", "[nn][conv]") {
  auto x = random_tensor({1, 2, 7, 6}, 1), w = random_tensor({3, 2, 3, 4}, 2);
  for (const char *mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    INFO(mode);
    OneNode t("Conv", {x, w});
    t.s("auto_pad", mode).ints("strides", {2, 1});
    Tensor y = t.run()[0];
    ConvCfg c;
    c.C = 2, c.M = 3, c.in = {7, 6}, c.k = {3, 4}, c.s = {2, 1}, c.bias = false;
    if (std::string(mode) == "VALID")
      c.pads = {0, 0, 0, 0};
    else if (std::string(mode) == "SAME_UPPER")
      c.pads = {1, 1, 1, 2}; // out 4x6: total pad H = 3*2+3-7 = 2, W = 5+4-6 = 3
    else
      c.pads = {1, 2, 1, 1};
    std::vector<int64_t> od;
    std::vector<double> want = ref_conv(c, x, w, nullptr, od);
    require_close(y, od, want);
  }
}

TEST_CASE("Conv rejects bad shapes", "[nn][conv]") {
  OneNode ch("Conv", {random_tensor({1, 3, 5, 5}, 1), random_tensor({2, 4, 3, 3}, 2)});
  REQUIRE_THROWS_WITH(ch.run(), Catch::Contains("channel mismatch"));
  OneNode gr("Conv", {random_tensor({1, 3, 5, 5}, 1), random_tensor({2, 1, 3, 3}, 2)});
  gr.i("group", 2);
  REQUIRE_THROWS_WITH(gr.run(), Catch::Contains("must divide"));
  OneNode bi("Conv", {random_tensor({1, 3, 5, 5}, 1), random_tensor({2, 3, 3, 3}, 2),
                      random_tensor({3}, 3)});
  REQUIRE_THROWS_WITH(bi.run(), Catch::Contains("bias"));
}

// ---------------------------------------------------------------------------------------------
// Pools, normalisations, softmax

TEST_CASE("MaxPool and AveragePool 2-D with pads, strides, ceil_mode", "[nn][pool]") {
  auto x = random_tensor({2, 3, 5, 7}, 21);
  for (int ceil = 0; ceil < 2; ++ceil)
    for (int include_pad = 0; include_pad < 2; ++include_pad)
      for (const char *op : {"MaxPool", "AveragePool"}) {
        INFO(op << " ceil " << ceil << " count_include_pad " << include_pad);
        OneNode t(op, {x}, std::string(op) == "MaxPool" ? 2 : 1);
        t.ints("kernel_shape", {3, 2}).ints("strides", {2, 2}).ints("pads", {1, 0, 1, 0});
        t.i("ceil_mode", ceil).i("count_include_pad", include_pad);
        int64_t oh = ceil ? 3 : 3, ow = ceil ? 4 : 3; // H: (5+2-3)/2+1, W: (7-2)/2+1 (+1 ceil)
        std::vector<double> want;
        std::vector<int64_t> idx;
        for (int64_t p = 0; p < 6; ++p)
          for (int64_t i = 0; i < oh; ++i)
            for (int64_t j = 0; j < ow; ++j) {
              double mx = -1e30, sum = 0;
              int64_t cnt = 0, padded = 0, at = 0;
              for (int64_t a = 0; a < 3; ++a)
                for (int64_t b = 0; b < 2; ++b) {
                  int64_t h = i * 2 - 1 + a, w = j * 2 + b;
                  padded += h < 6 && w < 7;
                  if (h < 0 || h >= 5 || w >= 7)
                    continue;
                  double v = fp(x)[p * 35 + h * 7 + w];
                  if (v > mx)
                    mx = v, at = p * 35 + h * 7 + w;
                  sum += v, ++cnt;
                }
              want.push_back(std::string(op) == "MaxPool" ? mx
                                                          : sum / (include_pad ? padded : cnt));
              idx.push_back(at);
            }
        std::vector<Tensor> y = t.run();
        require_close(y[0], {2, 3, oh, ow}, want);
        if (y.size() > 1)
          for (size_t k = 0; k < idx.size(); ++k)
            REQUIRE(y[1].data_as<int64_t>()[k] == idx[k]);
      }
}

TEST_CASE("MaxPool without indices (row-wise path) equals the path with indices", "[nn][pool]") {
  // The row-wise path (templates/cpu/pool.cpp max_rows: vector passes per tap, stride 1 and 2,
  // each column started from its first valid tap) against the per-element loop that MaxPool
  // with Indices runs: bit for bit, with NaNs (in a column's first tap and later) and signed
  // zeros, whose results depend on the tap order.
  struct Case {
    std::vector<int64_t> dims, kernel, strides, pads, dilations;
  };
  const Case cases[] = {
      {{1, 2, 9, 70}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      {{1, 2, 6, 53}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {{1, 1, 7, 40}, {2, 5}, {1, 2}, {0, 2, 1, 2}, {1, 1}},
      {{1, 2, 8, 37}, {3, 3}, {2, 2}, {2, 2, 2, 2}, {2, 2}},
      {{2, 1, 5, 150}, {1, 3}, {1, 3}, {0, 1, 0, 1}, {1, 1}},
      {{1, 1, 4, 5, 33}, {2, 3, 3}, {1, 2, 2}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}},
      // rows narrower than a vector and partial last vectors, run as whole vectors when the
      // lanes past the row are never stored and X holds what they read (right pads: not then)
      {{1, 3, 9, 13}, {3, 3}, {2, 2}, {0, 0, 1, 1}, {1, 1}},
      {{2, 2, 6, 7}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {{1, 4, 12, 27}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
      {{1, 2, 40, 55}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
      {{1, 2, 5, 21}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
  };
  for (const Case &c : cases) {
    auto x = random_tensor(c.dims, 5);
    float *xv = const_cast<float *>(fp(x));
    const int64_t n = x->numel();
    for (int64_t i = 0; i < n; i += 17)
      xv[i] = i % 2 ? 0.0f : -0.0f;
    for (int64_t i = 0; i < n; i += 29)
      xv[i] = std::numeric_limits<float>::quiet_NaN();
    xv[0] = std::numeric_limits<float>::quiet_NaN();
    std::vector<Tensor> y[2];
    for (int outs = 1; outs <= 2; ++outs) {
      OneNode t("MaxPool", {x}, outs);
      t.ints("kernel_shape", c.kernel).ints("strides", c.strides).ints("pads", c.pads);
      t.ints("dilations", c.dilations);
      y[outs - 1] = t.run();
    }
    INFO("input " << c.dims.size() << "-D, W " << c.dims.back());
    REQUIRE(y[0][0].shape() == y[1][0].shape());
    REQUIRE(std::memcmp(y[0][0].data(), y[1][0].data(), y[0][0].numel() * sizeof(float)) == 0);
  }
}

TEST_CASE("Global pools", "[nn][pool]") {
  auto x = random_tensor({2, 3, 4, 5}, 22);
  OneNode avg("GlobalAveragePool", {x}), mx("GlobalMaxPool", {x});
  std::vector<double> wa, wm;
  for (int64_t p = 0; p < 6; ++p) {
    double s = 0, m = -1e30;
    for (int64_t i = 0; i < 20; ++i)
      s += fp(x)[p * 20 + i], m = std::max<double>(m, fp(x)[p * 20 + i]);
    wa.push_back(s / 20), wm.push_back(m);
  }
  require_close(avg.run()[0], {2, 3, 1, 1}, wa);
  require_close(mx.run()[0], {2, 3, 1, 1}, wm);
}

TEST_CASE("BatchNormalization and InstanceNormalization", "[nn][norm]") {
  auto x = random_tensor({2, 3, 4}, 23), scale = random_tensor({3}, 24), b = random_tensor({3}, 25),
       mean = random_tensor({3}, 26), var = random_tensor({3}, 27, 0.1f, 2.0f);
  OneNode bn("BatchNormalization", {x, scale, b, mean, var}, 1, 15);
  bn.f("epsilon", 1e-3f);
  std::vector<double> want;
  for (int64_t i = 0; i < 24; ++i) {
    int64_t c = (i / 4) % 3;
    want.push_back((fp(x)[i] - fp(mean)[c]) / std::sqrt(fp(var)[c] + 1e-3) * fp(scale)[c] +
                   fp(b)[c]);
  }
  require_close(bn.run()[0], {2, 3, 4}, want);

  OneNode in("InstanceNormalization", {x, scale, b});
  want.clear();
  for (int64_t p = 0; p < 6; ++p) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < 4; ++i)
      m += fp(x)[p * 4 + i] / 4.0;
    for (int64_t i = 0; i < 4; ++i)
      v += (fp(x)[p * 4 + i] - m) * (fp(x)[p * 4 + i] - m) / 4.0;
    for (int64_t i = 0; i < 4; ++i)
      want.push_back((fp(x)[p * 4 + i] - m) / std::sqrt(v + 1e-5) * fp(scale)[p % 3] +
                     fp(b)[p % 3]);
  }
  require_close(in.run()[0], {2, 3, 4}, want);

  OneNode bad("BatchNormalization", {x, random_tensor({4}, 1), b, mean, var}, 1, 15);
  REQUIRE_THROWS_WITH(bad.run(), Catch::Contains("one value per channel"));
  OneNode train("BatchNormalization", {x, scale, b, mean, var}, 1, 15);
  train.i("training_mode", 1);
  REQUIRE_THROWS_WITH(train.run(), Catch::Contains("training_mode"));
}

TEST_CASE("LayerNormalization with axis, optional B and statistics outputs", "[nn][norm]") {
  auto x = random_tensor({2, 3, 5}, 28);
  for (int64_t axis : {-1, 1}) {
    int64_t inner = axis == -1 ? 5 : 15, outer = 30 / inner;
    auto scale =
        random_tensor(axis == -1 ? std::vector<int64_t>{5} : std::vector<int64_t>{3, 5}, 29);
    for (bool with_b : {false, true}) {
      auto b = with_b ? random_tensor(scale->shape(), 30) : nullptr;
      OneNode t("LayerNormalization", {x, scale, b}, 3, 17);
      t.i("axis", axis).f("epsilon", 1e-4f);
      std::vector<double> want, means, invs;
      for (int64_t r = 0; r < outer; ++r) {
        double m = 0, v = 0;
        for (int64_t j = 0; j < inner; ++j)
          m += fp(x)[r * inner + j] / inner;
        for (int64_t j = 0; j < inner; ++j)
          v += std::pow(fp(x)[r * inner + j] - m, 2) / inner;
        double inv = 1 / std::sqrt(v + 1e-4);
        for (int64_t j = 0; j < inner; ++j)
          want.push_back((fp(x)[r * inner + j] - m) * inv * fp(scale)[j] + (b ? fp(b)[j] : 0));
        means.push_back(m), invs.push_back(inv);
      }
      std::vector<Tensor> y = t.run();
      require_close(y[0], {2, 3, 5}, want);
      std::vector<int64_t> sd =
          axis == -1 ? std::vector<int64_t>{2, 3, 1} : std::vector<int64_t>{2, 1, 1};
      require_close(y[1], sd, means);
      require_close(y[2], sd, invs);
    }
  }
}

TEST_CASE("Softmax and LogSoftmax: opset 13 axis and legacy 2-D coercion", "[nn][softmax]") {
  auto x = random_tensor({2, 3, 70}, 31, -5, 5); // inner 70 > the kernel's 64-column chunk
  for (bool log : {false, true})
    for (int64_t opset : {11, 13})
      for (int64_t axis : {0, 1, -1}) {
        INFO("log " << log << " opset " << opset << " axis " << axis);
        OneNode t(log ? "LogSoftmax" : "Softmax", {x}, 1, opset);
        t.i("axis", axis);
        int64_t a = axis < 0 ? axis + 3 : axis;
        std::vector<int64_t> d{2, 3, 70};
        int64_t outer = 1, len = 1, inner = 1;
        for (int64_t i = 0; i < 3; ++i)
          (i < a ? outer : (i == a || opset < 13) ? len : inner) *= d[i];
        std::vector<double> want(420);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            double mx = -1e30, s = 0;
            for (int64_t l = 0; l < len; ++l)
              mx = std::max<double>(mx, fp(x)[(o * len + l) * inner + i]);
            for (int64_t l = 0; l < len; ++l)
              s += std::exp(fp(x)[(o * len + l) * inner + i] - mx);
            for (int64_t l = 0; l < len; ++l) {
              double v = fp(x)[(o * len + l) * inner + i] - mx;
              want[(o * len + l) * inner + i] = log ? v - std::log(s) : std::exp(v) / s;
            }
          }
        require_close(t.run()[0], d, want);
      }
}

TEST_CASE("MaxPool Indices in column-major storage order", "[nn][pool]") {
  auto x = std::make_shared<Tensor>(DType::Float, std::vector<int64_t>{1, 1, 5, 5});
  for (int64_t i = 0; i < 25; ++i)
    x->data_as<float>()[i] = float(i + 1);
  OneNode t("MaxPool", {x}, 2);
  t.ints("kernel_shape", {2, 2}).ints("strides", {2, 2}).i("storage_order", 1);
  std::vector<Tensor> y = t.run(); // ONNX's test_maxpool_with_argmax_2d_precomputed_strides
  require_close(y[0], {1, 1, 2, 2}, {7, 9, 17, 19});
  const int64_t *idx = y[1].data_as<int64_t>();
  REQUIRE(std::vector<int64_t>(idx, idx + 4) == std::vector<int64_t>{6, 16, 8, 18});
}
