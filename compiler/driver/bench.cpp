// `onnxc bench LIB.so`: latency with synthetic inputs (median, min, p90).
#include "compiler/driver/commands.h"
#include "compiler/driver/model_library.h"
#include "compiler/driver/test_data.h"
#include "compiler/ir/error.h"
#include "compiler/passes/bind_shapes.h"

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
  ShapeBindings flags;
  for (const std::string &f : o.dims)
    parse_dim_flag(f, flags);
  if (!flags.ranges.empty())
    fail("--dim {}: bench takes one value per run-time dim (NAME=N)", flags.ranges.begin()->first);
  std::vector<int64_t> values;
  for (const SymbolSignature &s : lib.symbols()) {
    auto it = flags.dims.find(s.name);
    values.push_back(it == flags.dims.end() ? s.min : it->second);
  }
  for (const auto &[name, v] : flags.dims)
    if (std::none_of(lib.symbols().begin(), lib.symbols().end(),
                     [&](const SymbolSignature &s) { return s.name == name; }))
      fail("--dim {}: the library has no run-time dim '{}'", name, name);
  auto at_values = [&](TensorSignature s) {
    for (size_t k = 0; k < s.dim_symbols.size(); ++k)
      if (s.dim_symbols[k] >= 0) {
        s.shape[k] = values.at(static_cast<size_t>(s.dim_symbols[k]));
        s.size_bytes *= static_cast<uint64_t>(s.shape[k]);
      }
    return s;
  };
  std::vector<std::vector<uint8_t>> in_bufs, out_bufs;
  std::vector<const void *> ins;
  std::vector<void *> outs;
  std::vector<std::vector<int64_t>> in_shapes;
  std::vector<uint64_t> out_bytes;
  for (const TensorSignature &s : lib.inputs()) {
    TensorSignature at = at_values(s);
    ins.push_back(in_bufs.emplace_back(synthetic_input(at)).data());
    in_shapes.push_back(at.shape);
  }
  for (const TensorSignature &s : lib.outputs()) {
    out_bytes.push_back(std::max<uint64_t>(at_values(s).size_bytes, 1));
    outs.push_back(out_bufs.emplace_back(out_bytes.back()).data());
  }
  auto run = [&] {
    if (lib.symbols().empty())
      ctx.run_buffers(ins, outs);
    else
      ctx.run_shaped(ins, in_shapes, outs, out_bytes);
  };
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
