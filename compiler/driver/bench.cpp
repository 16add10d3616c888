// `onnxc bench LIB.so`: latency with synthetic inputs (median, min, p90).
#include "compiler/driver/commands.h"
#include "compiler/driver/model_library.h"
#include "compiler/driver/test_data.h"
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
  std::vector<std::vector<uint8_t>> in_bufs, out_bufs;
  std::vector<const void *> ins;
  std::vector<void *> outs;
  for (const TensorSignature &s : lib.inputs())
    ins.push_back(in_bufs.emplace_back(synthetic_input(s)).data());
  for (const TensorSignature &s : lib.outputs())
    outs.push_back(out_bufs.emplace_back(std::max<uint64_t>(s.size_bytes, 1)).data());
  for (int i = 0; i < o.warmup; ++i)
    ctx.run_buffers(ins, outs);
  std::vector<double> ms;
  for (int i = 0; i < o.iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    ctx.run_buffers(ins, outs);
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
