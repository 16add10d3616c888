// `onnxc profile LIB.so [DATA_DIR]`: runs a library compiled with --profile and reports where the
// time goes: a Chrome trace-event JSON of one representative run (-o) and a table of the top
// kernel calls by median time.
#include "codegen/cpu/c_header.h"
#include "codegen/cpu/output_files.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/model_library.h"
#include "compiler/driver/run_buffers.h"
#include "compiler/driver/test_data.h"
#include "compiler/ir/error.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <numeric>

namespace onnxc {
namespace {

/// The buffers of the timed runs: DATA_DIR's inputs (checked by one validated run; their shapes
/// give the run-time dims) or synthetic ones at the --dim values.
std::unique_ptr<RunBuffers> prepare_inputs(const ModelLibrary &lib, ModelLibrary::Context &ctx,
                                           const ProfileOptions &o,
                                           std::vector<NamedTensor> &tensors) {
  if (o.data_dir.empty())
    return std::make_unique<RunBuffers>(lib, run_time_dim_values(lib, o.dims));
  if (!o.dims.empty())
    fail("--dim: the data set's input shapes give the run-time dims; pass either one");
  tensors = read_data_set(o.data_dir, "input");
  std::vector<const Tensor *> ordered = match_inputs(lib.inputs(), tensors, o.data_dir);
  ctx.run(ordered); // validates dtypes and shapes against the signature
  return std::make_unique<RunBuffers>(lib, ordered);
}

/// One timed run: the wall time around the run and every node's info afterwards.
struct RunSample {
  double run_ms = 0;
  std::vector<onnxc_profile_node_info> nodes;
  double node_sum_ms() const {
    double ns = 0;
    for (const onnxc_profile_node_info &n : nodes)
      ns += static_cast<double>(n.duration_ns);
    return ns / 1e6;
  }
};

std::vector<RunSample> sample_runs(ModelLibrary::Context &ctx, RunBuffers &buffers,
                                   int32_t num_nodes, const ProfileOptions &o) {
  for (int i = 0; i < o.warmup; ++i)
    buffers.run(ctx);
  std::vector<RunSample> runs(static_cast<size_t>(o.iters));
  for (RunSample &r : runs) {
    auto t0 = std::chrono::steady_clock::now();
    buffers.run(ctx);
    r.run_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (int32_t n = 0; n < num_nodes; ++n)
      r.nodes.push_back(ctx.profile_node(n));
  }
  return runs;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The run whose measured time is the median (the lower one for an even count).
size_t representative_run(const std::vector<RunSample> &runs) {
  std::vector<size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return runs[a].run_ms < runs[b].run_ms; });
  return order[(order.size() - 1) / 2];
}

std::string us(uint64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e3); }

/// Chrome trace-event JSON ("X" complete events, microseconds) of `run`.
std::string trace_json(const ModelLibrary &lib, const RunSample &run, size_t iteration,
                       const ProfileOptions &o) {
  std::string events;
  for (size_t i = 0; i < run.nodes.size(); ++i) {
    const onnxc_profile_node_info &n = run.nodes[i];
    events += fmt::format(
        "{}\n    {{\"name\":{},\"cat\":{},\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":1,\"tid\":1,"
        "\"args\":{{\"index\":{},\"op\":{},\"inputs\":{},\"outputs\":{},\"flops\":{}}}}}",
        i ? "," : "", json_string(n.name), json_string(n.op_type), us(n.start_ns),
        us(n.duration_ns), i, json_string(n.op_type), json_string(n.input_shapes),
        json_string(n.output_shapes), n.flops);
  }
  return fmt::format("{{\"traceEvents\":[{}\n  ],\n  \"displayTimeUnit\":\"ms\",\n  "
                     "\"otherData\":{{\"library\":{},\"model\":{},\"threads\":{},\"iteration\":{},"
                     "\"measured_run_us\":{:.3f},\"node_sum_us\":{:.3f}}}\n}}\n",
                     events, json_string(o.library), json_string(lib.model_name()), o.threads,
                     iteration, run.run_ms * 1e3, run.node_sum_ms() * 1e3);
}

/// Median time of each node over the runs, in ms.
std::vector<double> node_medians(const std::vector<RunSample> &runs, size_t num_nodes) {
  std::vector<double> med(num_nodes);
  for (size_t n = 0; n < num_nodes; ++n) {
    std::vector<double> t;
    for (const RunSample &r : runs)
      t.push_back(static_cast<double>(r.nodes[n].duration_ns) / 1e6);
    med[n] = median(t);
  }
  return med;
}

std::string shorten(const std::string &s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

void print_table(const std::vector<RunSample> &runs, size_t rep, const ProfileOptions &o) {
  const std::vector<onnxc_profile_node_info> &info = runs[rep].nodes;
  std::vector<double> med = node_medians(runs, info.size());
  std::vector<double> run_ms;
  for (const RunSample &r : runs)
    run_ms.push_back(r.run_ms);
  double run_med = median(run_ms), node_total = std::accumulate(med.begin(), med.end(), 0.0);
  std::vector<size_t> order(med.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return med[a] > med[b]; });
  std::cout << fmt::format("{}: {} kernel calls, {} iterations, {} thread(s)\n", o.library,
                           info.size(), o.iters, o.threads);
  std::cout << fmt::format("{:>4}  {:<32} {:<16} {:<20} {:>10} {:>7} {:>9}\n", "rank", "node", "op",
                           "output shape", "time ms", "share", "GFLOP/s");
  for (size_t k = 0; k < order.size() && k < static_cast<size_t>(o.top); ++k) {
    const onnxc_profile_node_info &n = info[order[k]];
    double ms = med[order[k]];
    std::string gflops = n.flops && ms > 0 ? fmt::format("{:.2f}", n.flops / (ms * 1e6)) : "-";
    std::cout << fmt::format("{:>4}  {:<32} {:<16} {:<20} {:>10.4f} {:>6.1f}% {:>9}\n", k + 1,
                             shorten(n.name, 32), shorten(n.op_type, 16),
                             shorten(n.output_shapes, 20), ms,
                             run_med > 0 ? 100 * ms / run_med : 0.0, gflops);
  }
  std::cout << fmt::format("sum of node medians: {:.4f} ms; measured run time (median): {:.4f} ms "
                           "({:.1f}% covered)\n",
                           node_total, run_med, run_med > 0 ? 100 * node_total / run_med : 0.0);
  std::cout << fmt::format("representative run (iteration {}): node sum {:.4f} ms, measured "
                           "{:.4f} ms\n",
                           rep, runs[rep].node_sum_ms(), runs[rep].run_ms);
}

} // namespace

int cmd_profile(const ProfileOptions &o) {
  if (o.iters < 1)
    fail("--iters must be at least 1");
  ModelLibrary lib(o.library);
  int32_t num_nodes = lib.profile_num_nodes();
  if (num_nodes < 0)
    fail("{} was not compiled with --profile; recompile it with `onnxc compile --profile`",
         o.library);
  ModelLibrary::Context ctx(lib);
  ctx.set_num_threads(o.threads);
  std::vector<NamedTensor> tensors; // the data set's inputs, which the buffers point into
  std::unique_ptr<RunBuffers> buffers = prepare_inputs(lib, ctx, o, tensors);
  std::vector<RunSample> runs = sample_runs(ctx, *buffers, num_nodes, o);
  size_t rep = representative_run(runs);
  if (!o.trace_path.empty())
    write_file_atomically(o.trace_path, trace_json(lib, runs[rep], rep, o));
  print_table(runs, rep, o);
  if (!lib.symbols().empty())
    std::cout << "note: the library has run-time dims and runs a batch in tiles or one sample at "
                 "a time: node times are those of its last tile or sample\n";
  if (!o.trace_path.empty())
    std::cout << fmt::format("wrote {}\n", o.trace_path);
  return 0;
}

} // namespace onnxc
