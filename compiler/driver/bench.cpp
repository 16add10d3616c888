// `onnxc bench LIB.so`: latency with synthetic inputs (median, min, p90).
#include "compiler/driver/commands.h"
#include "compiler/driver/model_library.h"
#include "compiler/driver/run_buffers.h"
#include "compiler/ir/error.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace onnxc {
namespace {

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t k = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(k, v.size() - 1)];
}

} // namespace

int cmd_bench(const BenchOptions &o) {
  if (o.iters < 1)
    fail("--iters must be at least 1");
  ModelLibrary lib(o.library);
  ModelLibrary::Context ctx(lib);
  ctx.set_num_threads(o.threads);
  // Run-time dims: --dim NAME=N, else the symbol's smallest value.
  RunBuffers buffers(lib, run_time_dim_values(lib, o.dims));
  auto run = [&] { buffers.run(ctx); };
  for (int i = 0; i < o.warmup; ++i)
    run();
  std::vector<double> ms;
  for (int i = 0; i < o.iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                     .count());
  }
  double med = percentile(ms, 0.5), mn = *std::min_element(ms.begin(), ms.end()),
         p90 = percentile(ms, 0.9);
  if (o.json)
    std::cout << fmt::format("{{\"library\":\"{}\",\"threads\":{},\"iters\":{},\"median_ms\":{:.6f},"
                             "\"min_ms\":{:.6f},\"p90_ms\":{:.6f}}}\n",
                             o.library, o.threads, o.iters, med, mn, p90);
  else
    std::cout << fmt::format("{}: {} iterations, {} thread(s)\n  median {:.4f} ms\n  min    "
                             "{:.4f} ms\n  p90    {:.4f} ms\n",
                             o.library, o.iters, o.threads, med, mn, p90);
  return 0;
}

} // namespace onnxc
