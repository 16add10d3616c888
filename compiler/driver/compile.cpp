#include "codegen/cpu/c_header.h"
#include "codegen/cpu/target_machine.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/progress.h"
#include "compiler/frontend/onnx_loader.h"
#include "compiler/ir/error.h"
#include "compiler/ir/memory_usage.h"
#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/check_supported.h"
#include "compiler/passes/desugar_sequences.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/sample_wise.h"
#include "runtime_stub/onnxc_runtime.h"
#include "templates/cpu/gemm_params.h"

#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

namespace fs = std::filesystem;

namespace onnxc {
namespace {

/// "out/libmnist-8.so" → "mnist_8".
std::string default_model_name(const std::string &out_path) {
  std::string stem = fs::path(out_path).stem().string();
  if (stem.rfind("lib", 0) == 0 && stem.size() > 3)
    stem = stem.substr(3);
  return sanitize_c_identifier(stem);
}

void write_file_atomically(const fs::path &path, const std::string &text) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) {
      std::error_code ec;
      fs::remove(tmp, ec);
      fail("cannot write {}", tmp.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail("cannot write {}: {}", path.string(), ec.message());
  }
}

/// What plan_run_time_dims found: the batch symbol and which graph inputs / outputs (by
/// name) carry it.
struct RunTimeBatchFacts {
  std::string symbol;
  SymRange range;
  std::set<std::string> inputs, outputs;
  std::vector<std::string> notes; ///< what the user may want to know (speed)
  bool thin_products = false;     ///< SampleWise::thin_products is not empty
};

/// Samples per tile when per-sample runs make matrix products thin: one GEMM micro-tile of rows.
constexpr int64_t kDefaultBatchTile = 8;
/// Samples per chunk when the batch can be the model's run-time extent instead (no other).
constexpr int64_t kDefaultBatchChunk = 64;
/// An arena above this, planned for a run-time extent's maximum, gets a note on --dim ranges.
constexpr int64_t kLargeExtentArena = int64_t{64} << 20;

/// How a model's run-time dims run: a per-sample batch, and/or one run-time extent.
struct RunTimeDims {
  std::optional<RunTimeBatchFacts> batch;
  std::string extent; ///< the symbol lower-extent compiles for its whole range; empty: none
};

/// How the model's unbound dims run, found on a second, symbolic load of the model:
///  - a batch: one symbol only ever at dim 0 of the inputs, when the nodes keep the samples
///    apart (passes/sample_wise.h): the code is compiled for one sample and run per sample;
///  - an extent: the one other symbol (or a batch that cannot run per sample), which
///    lower-extent compiles for every value of its range.
/// Nothing when the inputs are static (or bound by flags). Throws Error when the dims cannot
/// stay run-time dims, saying why and which flag binds them.
RunTimeDims plan_run_time_dims(const std::string &path, const ShapeBindings &flags) {
  auto model = load_model(path);
  Graph &g = *model->graph;
  if (!find_unsupported_ops(g).empty())
    return {}; // the pipeline reports them
  ShapeBindings b = flags;
  b.keep_symbolic = true;
  desugar_sequences(g, b);
  bind_input_shapes(g, b);
  std::set<std::string> symbols = input_symbols(g);
  const std::string batch = find_batch_symbol(g).value_or("");
  if (symbols.empty())
    return {};
  const std::string names = fmt::format("'{}'", fmt::join(symbols, "', '"));
  try {
    infer_shapes(g);
  } catch (const Error &e) {
    if (symbols.size() == 1 && !batch.empty())
      fail("the batch dim '{}' cannot stay a run-time dim: {}{}", batch, e.what(),
           std::string(e.what()).find("--dim") == std::string::npos
               ? fmt::format("; bind it with --dim {}=N", batch)
               : "");
    fail("the run-time dim{} {} cannot stay run-time: {}", symbols.size() > 1 ? "s" : "", names,
         e.what());
  }
  RunTimeDims r;
  std::string batch_reason;
  if (!batch.empty()) {
    SampleWise s = check_sample_wise(g, batch);
    batch_reason = s.reason;
    if (s.reason.empty()) {
      // A convolution network's classifier is a thin product too, but its convolutions are
      // most of the work and gain nothing from several samples at once: it runs one sample at
      // a time (the one-sample arena; the classifier's weights stay in cache between samples).
      const bool convolutions = std::any_of(g.nodes.begin(), g.nodes.end(), [](const auto &n) {
        return n->domain.empty() && (n->op_type == "Conv" || n->op_type == "ConvTranspose" ||
                                     n->op_type == "ConvInteger" || n->op_type == "QLinearConv");
      });
      RunTimeBatchFacts f{batch,
                          g.symbols.at(batch),
                          {},
                          {},
                          {},
                          !s.thin_products.empty() && !convolutions};
      if (f.thin_products)
        f.notes.push_back(fmt::format(
            "run-time batch: one sample at a time makes {} matrix product{} ({}{}) nearly "
            "matrix-vector products; tiles of samples (--batch-tile) or --dim {}=N compile "
            "several samples as one product",
            s.thin_products.size(), s.thin_products.size() > 1 ? "s" : "",
            s.thin_products[0]->describe(), s.thin_products.size() > 1 ? ", ..." : "", batch));
      for (size_t i = 0; i < g.inputs.size(); ++i)
        if (s.batched_inputs[i])
          f.inputs.insert(g.inputs[i]->name);
      for (size_t i = 0; i < g.outputs.size(); ++i)
        if (s.batched_outputs[i])
          f.outputs.insert(g.outputs[i]->name);
      r.batch = std::move(f);
      symbols.erase(batch);
    }
  }
  if (symbols.size() > 1) {
    if (!batch_reason.empty())
      fail("the batch dim '{}' cannot run per sample ({}), and onnxc runs one other run-time "
           "dim besides it (the model has {}); bind all but one with --dim NAME=N",
           batch, batch_reason, names);
    fail("the model has the run-time dims {}: onnxc runs one run-time dim besides a per-sample "
         "batch; bind the others with --dim NAME=N",
         fmt::format("'{}'", fmt::join(symbols, "', '")));
  }
  if (!symbols.empty())
    r.extent = *symbols.begin();
  return r;
}

/// The plan's RunTimeBatch from the facts: per signature index, checked against the one-sample
/// plan (dim 0 is 1, or the batch as the plan's extent when chunked; the rank fits an
/// onnxc_tensor).
ExecutionPlan::RunTimeBatch run_time_batch(const RunTimeBatchFacts &f, const ExecutionPlan &plan,
                                           bool chunked) {
  ExecutionPlan::RunTimeBatch rb{f.symbol, f.range, {}, {}};
  auto mark = [&](const std::vector<Value *> &values, const std::set<std::string> &names,
                  std::vector<bool> &out, const char *what) {
    for (size_t i = 0; i < values.size(); ++i) {
      const Value *v = values[i];
      const bool batched = names.count(v->name) > 0;
      bool dim0_ok = v->type.rank() >= 1 && (*v->type.shape)[0].value == 1;
      if (chunked && plan.extent) {
        const auto &flags = what[0] == 'i' ? plan.extent->inputs : plan.extent->outputs;
        dim0_ok = i < flags.size() && !flags[i].empty() && flags[i][0];
      }
      if (batched && (v->type.rank() < 1 || v->type.rank() > ONNXC_MAX_RANK || !dim0_ok))
        fail("{} '{}' ({}): a run-time batch needs dim 0 = 1 in the one-sample plan and a rank "
             "of at most {}; bind the batch with --dim {}=N",
             what, v->name, shape_to_string(v->type), ONNXC_MAX_RANK, f.symbol);
      out.push_back(batched);
    }
  };
  mark(plan.inputs, f.inputs, rb.inputs, "input");
  mark(plan.outputs, f.outputs, rb.outputs, "output");
  return rb;
}

} // namespace

static CompileSummary compile_model_unchecked(const CompileOptions &o);

CompileSummary compile_model(const CompileOptions &o) {
  // Every message names the model file.
  try {
    return compile_model_unchecked(o);
  } catch (const Error &e) {
    std::string msg = e.what();
    if (msg.find(o.model_path) == std::string::npos)
      msg = o.model_path + ": " + msg;
    throw Error(msg);
  }
}

static CompileSummary compile_model_unchecked(const CompileOptions &o) {
  auto start = std::chrono::steady_clock::now();
  Progress progress(o.model_path);
  progress.stage("loading");

  PipelineOptions popts = o.pipeline;
  popts.model_name =
      o.name.empty() ? default_model_name(o.out_path) : sanitize_c_identifier(o.name);
  if (popts.gemm_tile_rows == 0) { // the GEMM tile that fits the target's vector registers
    const VectorRegisters vr = vector_registers(resolve_cpu_target(o.codegen.target));
    popts.gemm_tile_rows = onnxc_k::gemm::gemm_tile_rows(vr.count, vr.bytes);
  }
  // The run-time dims come from a symbolic load of the model, done (and freed) before the
  // model is loaded for the pipeline, so the weights are not held twice.
  std::vector<PassTiming> timings;
  auto step_start = std::chrono::steady_clock::now();
  auto time_step = [&](const char *name) {
    if (!o.pipeline.time_passes)
      return;
    auto now = std::chrono::steady_clock::now();
    timings.push_back({name, std::chrono::duration<double>(now - step_start).count(),
                       current_rss_bytes(), peak_rss_bytes()});
    step_start = now;
  };
  RunTimeDims rt_dims = plan_run_time_dims(o.model_path, popts.bindings);
  time_step("run-time-dims");
  if (o.cuda && (rt_dims.batch || !rt_dims.extent.empty()))
    fail("--target cuda does not support run-time dims yet: bind '{}' with --dim {}=N",
         rt_dims.batch ? rt_dims.batch->symbol : rt_dims.extent,
         rt_dims.batch ? rt_dims.batch->symbol : rt_dims.extent);
  CudaKernels cuda_kernels(true, o.cuda_opts.precision);
  if (o.cuda)
    popts.lower = [&cuda_kernels](const Region &r) { return cuda_kernels.lower(r); };
  auto model = load_model(o.model_path);
  time_step("load-model");
  std::optional<RunTimeBatchFacts> &batch = rt_dims.batch;
  if (batch) { // compile one sample; onnxc_run loops over the batch
    popts.bindings.dims[batch->symbol] = 1;
    popts.bindings.ranges.erase(batch->symbol);
  }
  // Chunks: when one sample at a time makes matrix products thin and the model has no other
  // run-time extent, the batch itself is the extent of a plan for 1..chunk samples, run on the
  // batch `chunk` samples at a time (one product over each chunk, the arena of one chunk).
  const int64_t chunk =
      batch && rt_dims.extent.empty() && batch->thin_products &&
              (o.batch_tile < 0 || o.batch_tile > 1)
          ? std::min(o.batch_tile > 1 ? o.batch_tile : kDefaultBatchChunk, batch->range.hi)
          : 0;
  if (chunk > 1) {
    batch->notes.clear(); // the products are not thin any more
    popts.bindings.dims.erase(batch->symbol);
    popts.bindings.ranges[batch->symbol] = SymRange{1, chunk};
    rt_dims.extent = batch->symbol;
  }
  if (!rt_dims.extent.empty()) { // compiled for every value of its range (lower_extent.h)
    popts.bindings.keep_symbolic = true;
    popts.extent_symbol = rt_dims.extent;
  }
  progress.stage(fmt::format("optimising the graph: {} nodes", model->graph->nodes.size()));
  ExecutionPlan plan = run_pipeline(*model, popts, &timings);
  std::unique_ptr<Model> tile_model; // the tile plan's graph: alive until codegen is done
  ExecutionPlan tile_plan;
  if (batch && plan.extent && plan.extent->count)
    fail("the model has the run-time batch '{}' and the run-time count '{}', which onnxc does "
         "not combine yet; bind the batch with --dim {}=N",
         batch->symbol, plan.extent->symbol, batch->symbol);
  if (batch)
    for (const Value *v : plan.outputs)
      if (!v->run_time_shape_from.empty())
        fail("output '{}' is shaped at run time by the values of '{}', which onnxc does not "
             "combine with the run-time batch '{}' yet; bind the batch with --dim {}=N",
             v->name, v->run_time_shape_from, batch->symbol, batch->symbol);
  if (batch) {
    plan.batch = run_time_batch(*batch, plan, chunk > 1);
    plan.batch->chunk = chunk > 1 ? chunk : 0;
    if (plan.extent)
      plan.extent->index = chunk > 1 ? 0 : 1; // a chunked batch is symbol 0 and the extent
    const int64_t tile = chunk > 1              ? 0
                         : o.batch_tile >= 0    ? o.batch_tile
                         : batch->thin_products ? kDefaultBatchTile
                                                : 0;
    // Tiles: the model compiled again for `tile` samples (not with a weights file or
    // profiling, whose descriptors describe one plan).
    if (tile > 1 && tile <= batch->range.hi && o.codegen.weights_file.empty() &&
        !o.codegen.profile) {
      progress.stage(fmt::format("optimising the graph for tiles of {} samples", tile));
      tile_model = load_model(o.model_path);
      PipelineOptions tp = popts;
      tp.bindings.dims[batch->symbol] = tile;
      tile_plan = run_pipeline(*tile_model, tp, nullptr);
      if (tile_plan.extent)
        tile_plan.extent->index = 1;
      plan.batch->tile = tile;
      plan.batch->tile_plan = &tile_plan;
      plan.arena_size = std::max(plan.arena_size, tile_plan.arena_size);
    }
  }

  progress.stage(fmt::format("generating machine code: {} kernel calls{}", plan.calls.size(),
                             o.codegen.profile ? " (profiled)" : ""));
  auto cg_start = std::chrono::steady_clock::now();
  CpuArtifactInfo budget;
  std::vector<std::string> cuda_notes;
  if (o.cuda) {
    std::unique_ptr<Model> cpu_model; // --target cpu,cuda: the CPU plan's graph
    ExecutionPlan cpu_plan;
    CpuCodegenOptions host = o.codegen;
    if (o.cuda_cpu_fallback) {
      progress.stage("optimising the graph for the CPU fallback");
      cpu_model = load_model(o.model_path);
      PipelineOptions cp = popts;
      cp.lower = nullptr;
      cpu_plan = run_pipeline(*cpu_model, cp, nullptr);
      host.cpu_fallback = &cpu_plan;
      plan.arena_size = std::max(plan.arena_size, cpu_plan.arena_size);
    }
    budget = compile_cuda(plan, cuda_kernels, host, o.cuda_opts, o.out_path);
    if (!cuda_kernels.host_ops().empty()) {
      size_t host = 0;
      for (const PlannedCall &pc : plan.calls)
        host += pc.control == ControlMark::None && pc.call.kernel != kCudaLaunchKernel;
      cuda_notes.push_back(fmt::format(
          "{} of {} kernel calls run on the host (CPU kernels between copies to and from the "
          "GPU): the CUDA target has no kernel yet for {}",
          host, plan.calls.size(), fmt::join(cuda_kernels.host_ops(), ", ")));
    }
  } else {
    budget = compile_cpu(plan, o.codegen, o.out_path);
  }
  timings.push_back(
      {o.cuda ? "codegen-cuda" : "codegen-cpu",
       std::chrono::duration<double>(std::chrono::steady_clock::now() - cg_start).count(),
       popts.time_passes ? current_rss_bytes() : -1, popts.time_passes ? peak_rss_bytes() : -1});

  CompileSummary s;
  s.budget = budget;
  if (budget.measured) {
    fs::path header = fs::path(o.out_path).parent_path() / (plan.model_name + ".h");
    HeaderFacts facts{budget.code_bytes, budget.stack_bytes, !o.codegen.weights_file.empty()};
    try {
      write_file_atomically(header, write_c_header(plan, facts));
    } catch (...) {
      std::error_code ec; // a failed compile leaves no output behind
      fs::remove(o.out_path, ec);
      if (!o.codegen.weights_file.empty())
        fs::remove(o.codegen.weights_file, ec);
      throw;
    }
    s.header_path = header.string();
  }
  s.arena_size = plan.arena_size;
  s.intermediates_size = plan.intermediates_size;
  s.inplace_values = plan.inplace_values;
  s.concats_in_place = plan.concats_in_place;
  s.weights_size = plan.weights_size;
  s.kernel_calls = plan.calls.size();
  if (batch)
    s.notes = batch->notes;
  s.notes.insert(s.notes.end(), cuda_notes.begin(), cuda_notes.end());
  if (plan.extent && !plan.extent->count && !plan.batch_is_extent() &&
      plan.arena_size > kLargeExtentArena)
    s.notes.push_back(fmt::format(
        "the arena ({} MiB) is planned for the run-time dim '{}' at its maximum, {}; declare the "
        "values the application needs with --dim {}=LO..HI to make it smaller",
        plan.arena_size >> 20, plan.extent->symbol, plan.extent->range.hi, plan.extent->symbol));
  for (const PlannedCall &pc : plan.calls)
    if (pc.call.kernel.rfind("onnxc_k_random", 0) == 0) {
      s.notes.push_back(fmt::format(kRandomNote, pc.node_desc));
      break;
    }
  if (plan.batch) {
    s.run_time_batch =
        fmt::format("'{}' {}..{}", plan.batch->symbol, plan.batch->range.lo, plan.batch->range.hi);
    s.batch_chunk = plan.batch->chunk;
    if (plan.batch->tile_plan) {
      s.batch_tile = plan.batch->tile;
      s.weights_size += tile_plan.weights_size;
    }
  }
  for (const Value *v : plan.outputs)
    if (!v->run_time_shape_from.empty())
      s.run_time_shaped.push_back(fmt::format("'{}' (by '{}')", v->name, v->run_time_shape_from));
  if (plan.extent && plan.extent->count)
    s.run_time_count = fmt::format("'{}' 0..{}", plan.extent->symbol, plan.extent->range.hi - 1);
  else if (plan.extent && !plan.batch_is_extent()) {
    s.run_time_extent = fmt::format("'{}' {}..{}", plan.extent->symbol, plan.extent->range.lo,
                                    plan.extent->range.hi);
    for (const PlannedCall &pc : plan.calls)
      s.extent_variants += pc.guard ? 1 : 0;
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.done();
  if (popts.time_passes) {
    std::ostream &log = popts.log ? *popts.log : std::cerr;
    log << "=== onnxc pass timings ===\n";
    log << "         ms  RSS MiB after  peak MiB  step\n";
    auto mib = [](int64_t b) { return b < 0 ? std::string("-") : std::to_string(b >> 20); };
    for (const PassTiming &t : timings)
      log << fmt::format("  {:>9.3f}  {:>13}  {:>8}  {}\n", t.seconds * 1e3, mib(t.rss),
                         mib(t.peak_rss), t.pass);
    log << fmt::format("  {:>9.3f} ms  total\n", s.seconds * 1e3);
  }
  return s;
}

int cmd_compile(const CompileOptions &o) {
  CompileSummary s = compile_model(o);
  if (!o.quiet) {
    std::cout << fmt::format(
        "wrote {}{}{}\n", o.out_path, s.header_path.empty() ? "" : " and " + s.header_path,
        o.codegen.weights_file.empty() ? "" : " and " + o.codegen.weights_file);
    if (!s.run_time_batch.empty())
      std::cout << fmt::format(
          "run-time batch: {} ({})\n", s.run_time_batch,
          s.batch_chunk > 1
              ? fmt::format("code for 1 to {0} samples, run on the batch {0} samples at a time",
                            s.batch_chunk)
          : s.batch_tile > 1
              ? fmt::format("code for tiles of {} samples, then one sample at a time", s.batch_tile)
              : "one-sample code, run once per sample");
    if (!s.run_time_extent.empty())
      std::cout << fmt::format("run-time dim: {} (kernel parameters computed from it at run "
                               "time; {} kernel calls specialised for part of the range)\n",
                               s.run_time_extent, s.extent_variants);
    if (!s.run_time_count.empty())
      std::cout << fmt::format("run-time count: {} (computed by the run; the outputs with it "
                               "are planned for its maximum)\n",
                               s.run_time_count);
    if (!s.run_time_shaped.empty())
      std::cout << fmt::format("outputs shaped by the run: {} (planned for their largest shape)\n",
                               fmt::join(s.run_time_shaped, ", "));
    for (const std::string &note : s.notes)
      std::cout << "note: " << note << "\n";
    std::cout << fmt::format("arena size: {} bytes\n", s.arena_size);
    std::cout << fmt::format("intermediates: {} bytes if no buffer shared memory ({} computed "
                             "in place)\n",
                             s.intermediates_size, s.inplace_values);
    if (s.concats_in_place > 0)
      std::cout << fmt::format("concats in place: {} (their inputs computed in their output's "
                               "buffer, no copy)\n",
                               s.concats_in_place);
    std::cout << fmt::format("weights: {} bytes\n", s.weights_size);
    if (s.budget.measured)
      std::cout << fmt::format("code size: {} bytes (beyond the weights)\n"
                               "stack size: {} bytes (estimate, per thread)\n",
                               s.budget.code_bytes, s.budget.stack_bytes);
    std::cout << fmt::format("kernel calls: {}\ncompile time: {:.3f} s\n", s.kernel_calls,
                             s.seconds);
  }
  return 0;
}

} // namespace onnxc
