/* gemm_study.cpp — the GEMM loop orders and packed-B layouts of a 6 x 16 micro-tile (onnxc's
 * tile for targets with 16 vector registers of 32 bytes: AVX2), side by side on one thread.
 *
 * Not part of the build or the tests: a study program for deciding the AVX2 GEMM's blocking
 * (docs/performance.md, session 27). Build and run it on the machine in question:
 *
 *   c++ -O3 -march=native -std=c++17 bench/gemm_study.cpp -o /tmp/gemm_study
 *   /tmp/gemm_study 384 1024 1152 40        # M K N rounds
 *
 * Y (M x N) = A (M x K, row-major, read in place as onnxc reads a MatMul's activations) x B
 * (K x N, packed before the timing, as onnxc packs constant weights at compile time). Every
 * variant runs the same micro-kernel: a 6-row x 16-column tile (12 accumulator vectors of 8
 * floats), per k one B row of the tile's 16 columns and 6 broadcasts of A. Blocking: K blocks
 * of 256, work items of 96 rows x 192 columns. The variants differ in two choices:
 *
 *   B layout   48: panels of 48 columns (K rows of 48 contiguous floats: onnxc's layout for every
 *                  target), a tile reads one 16-column slice of it, 192 bytes apart from k to k
 *              16: panels of 16 columns, a tile's slice is K contiguous 64-byte rows
 *   loop order slices: per K block, each 16-column slice outermost, every 6-row tile of the
 *                  work item under it (the slice, 256 x 64 bytes, stays in L1; A's rows stream
 *                  from L2): onnxc's order since session 22
 *              rows: per K block, each 6-row tile outermost, every slice of the work item under
 *                  it (the tile's 6 x 256 floats of A stay in L1; B's 256 x 192 block streams
 *                  from L2)
 *
 * The rounds alternate the four variants, so that the machine's load hits them alike; the
 * report gives each one's median and minimum time and GFLOP/s, and checks that all four agree
 * with a double-precision reference within 1e-4 relative (else it exits 1).
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

typedef long i64;
typedef float V __attribute__((vector_size(64))); // 16 floats: two ymm with AVX2

constexpr i64 kTileRows = 6, kSlice = 16, kWide = 48, kKC = 256, kMC = 96, kNC = 192;

/// Y tile (6 x 16 at y, row stride ldy) += or = A rows (a, row stride lda) x B slice (b, rows
/// ldb floats apart), k in [0, kc).
template <i64 LDB>
__attribute__((noinline)) void micro(const float *a, i64 lda, const float *b, float *y, i64 ldy,
                                     i64 kc, bool first) {
  V acc[kTileRows];
  for (int i = 0; i < kTileRows; ++i)
    acc[i] = V{};
  for (i64 k = 0; k < kc; ++k) {
    V bv;
    std::memcpy(&bv, b + k * LDB, sizeof bv);
#pragma GCC unroll 6
    for (int i = 0; i < kTileRows; ++i)
      acc[i] += a[i * lda + k] * bv;
  }
  for (int i = 0; i < kTileRows; ++i) {
    V out = acc[i];
    if (!first) {
      V old;
      std::memcpy(&old, y + i * ldy, sizeof old);
      out += old;
    }
    std::memcpy(y + i * ldy, &out, sizeof out);
  }
}

struct Problem {
  i64 M, K, N;
  std::vector<float> a, b48, b16, y;
};

/// Address of B's 16-column slice starting at column j, row k, in the given layout.
template <i64 W> const float *slice(const Problem &p, i64 j, i64 k) {
  if constexpr (W == kWide)
    return p.b48.data() + (j / kWide) * p.K * kWide + k * kWide + j % kWide;
  else
    return p.b16.data() + (j / kSlice) * p.K * kSlice + k * kSlice;
}

template <i64 W, bool RowsOuter> void gemm(Problem &p) {
  for (i64 m0 = 0; m0 < p.M; m0 += kMC)
    for (i64 n0 = 0; n0 < p.N; n0 += kNC) {
      const i64 m1 = std::min(p.M, m0 + kMC), n1 = std::min(p.N, n0 + kNC);
      for (i64 k0 = 0; k0 < p.K; k0 += kKC) {
        const i64 kc = std::min(kKC, p.K - k0);
        auto tile = [&](i64 i, i64 j) {
          micro<W>(p.a.data() + i * p.K + k0, p.K, slice<W>(p, j, k0), p.y.data() + i * p.N + j,
                   p.N, kc, k0 == 0);
        };
        if (RowsOuter) {
          for (i64 i = m0; i < m1; i += kTileRows)
            for (i64 j = n0; j < n1; j += kSlice)
              tile(i, j);
        } else {
          for (i64 j = n0; j < n1; j += kSlice)
            for (i64 i = m0; i < m1; i += kTileRows)
              tile(i, j);
        }
      }
    }
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "gemm_study: error: usage: gemm_study M K N ROUNDS\n");
    return 2;
  }
  Problem p;
  p.M = std::atol(argv[1]);
  p.K = std::atol(argv[2]);
  p.N = std::atol(argv[3]);
  const int rounds = std::atoi(argv[4]);
  if (p.M <= 0 || p.K <= 0 || p.N <= 0 || rounds <= 0 || p.M % kTileRows || p.N % kWide) {
    std::fprintf(stderr, "gemm_study: error: M, K, N, ROUNDS must be positive, M a multiple "
                         "of 6 and N of 48\n");
    return 2;
  }
  std::vector<float> b(p.K * p.N);
  p.a.resize(p.M * p.K);
  p.y.resize(p.M * p.N);
  unsigned s = 12345;
  auto rnd = [&] { return (s = s * 1103515245u + 12345u) / 4294967296.0f - 0.5f; };
  for (float &x : p.a)
    x = rnd();
  for (float &x : b)
    x = rnd();
  p.b48.resize(p.K * p.N);
  p.b16.resize(p.K * p.N);
  for (i64 k = 0; k < p.K; ++k)
    for (i64 j = 0; j < p.N; ++j) {
      p.b48[(j / kWide) * p.K * kWide + k * kWide + j % kWide] = b[k * p.N + j];
      p.b16[(j / kSlice) * p.K * kSlice + k * kSlice + j % kSlice] = b[k * p.N + j];
    }
  std::vector<double> ref(p.M * p.N, 0.0);
  for (i64 i = 0; i < p.M; ++i)
    for (i64 k = 0; k < p.K; ++k)
      for (i64 j = 0; j < p.N; ++j)
        ref[i * p.N + j] += double(p.a[i * p.K + k]) * b[k * p.N + j];

  struct Variant {
    const char *name;
    void (*run)(Problem &);
    std::vector<double> ms;
  };
  Variant vs[] = {{"B 48-wide, slices outer (onnxc)", gemm<kWide, false>, {}},
                  {"B 48-wide, rows outer", gemm<kWide, true>, {}},
                  {"B 16-wide, slices outer", gemm<kSlice, false>, {}},
                  {"B 16-wide, rows outer", gemm<kSlice, true>, {}}};
  int status = 0;
  for (Variant &v : vs) { /* warm-up and check */
    v.run(p);
    double worst = 0;
    for (i64 e = 0; e < p.M * p.N; ++e)
      worst = std::max(worst, std::fabs(p.y[e] - ref[e]) / (1.0 + std::fabs(ref[e])));
    if (worst > 1e-4) {
      std::fprintf(stderr, "gemm_study: error: %s differs from the reference by %g\n", v.name,
                   worst);
      status = 1;
    }
  }
  for (int r = 0; r < rounds; ++r)
    for (Variant &v : vs) {
      const auto t0 = std::chrono::steady_clock::now();
      v.run(p);
      v.ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  const double gflop = 2.0 * p.M * p.K * p.N / 1e9;
  std::printf("M %ld K %ld N %ld, %d alternating rounds, 1 thread\n", p.M, p.K, p.N, rounds);
  for (Variant &v : vs) {
    std::sort(v.ms.begin(), v.ms.end());
    const double med = v.ms[v.ms.size() / 2];
    std::printf("%-34s median %8.3f ms (%6.1f GFLOP/s)  min %8.3f ms (%6.1f GFLOP/s)\n", v.name,
                med, gflop / med * 1e3, v.ms[0], gflop / v.ms[0] * 1e3);
  }
  return status;
}
