#include "codegen/cpu/c_header.h"
#include "codegen/cpu/target_machine.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/progress.h"
#include "compiler/frontend/onnx_loader.h"
#include "compiler/ir/error.h"
#include "compiler/passes/bind_shapes.h"
#include "compiler/passes/check_supported.h"
#include "compiler/passes/desugar_sequences.h"
#include "compiler/passes/infer_shapes.h"
#include "compiler/passes/sample_wise.h"
#include "runtime_stub/onnxc_runtime.h"
#include "templates/cpu/gemm_params.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <iostream>

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

/// What plan_run_time_batch found: the batch symbol and which graph inputs / outputs (by
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

/// The run-time batch of a model whose only unbound dims are one leading batch symbol and
/// whose nodes keep the samples apart (passes/sample_wise.h), found on a second, symbolic
/// load of the model. nullopt when the inputs are static (or bound by flags), or use symbols
/// otherwise: the pipeline then says which --dim to pass. Throws Error when the batch cannot
/// stay a run-time dim, saying why and which flag binds it.
std::optional<RunTimeBatchFacts> plan_run_time_batch(const std::string &path,
                                                     const ShapeBindings &flags) {
  auto model = load_model(path);
  Graph &g = *model->graph;
  if (!find_unsupported_ops(g).empty())
    return std::nullopt; // the pipeline reports them
  ShapeBindings b = flags;
  b.keep_symbolic = true;
  desugar_sequences(g, b);
  bind_input_shapes(g, b);
  std::optional<std::string> batch = find_batch_symbol(g);
  if (!batch)
    return std::nullopt;
  auto refuse = [&](const std::string &why) {
    if (why.find("--dim") != std::string::npos)
      fail("the batch dim '{}' cannot stay a run-time dim: {}", *batch, why);
    fail("the batch dim '{}' cannot stay a run-time dim: {}; bind it with --dim {}=N", *batch,
         why, *batch);
  };
  try {
    infer_shapes(g);
  } catch (const Error &e) {
    refuse(e.what());
  }
  SampleWise s = check_sample_wise(g, *batch);
  if (!s.reason.empty())
    refuse(s.reason);
  RunTimeBatchFacts f{*batch, g.symbols.at(*batch), {}, {}, {}, !s.thin_products.empty()};
  if (f.thin_products)
    f.notes.push_back(fmt::format(
        "run-time batch: one sample at a time makes {} matrix product{} ({}{}) nearly "
        "matrix-vector products; tiles of samples (--batch-tile) or --dim {}=N compile several "
        "samples as one product",
        s.thin_products.size(), s.thin_products.size() > 1 ? "s" : "",
        s.thin_products[0]->describe(), s.thin_products.size() > 1 ? ", ..." : "", *batch));
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (s.batched_inputs[i])
      f.inputs.insert(g.inputs[i]->name);
  for (size_t i = 0; i < g.outputs.size(); ++i)
    if (s.batched_outputs[i])
      f.outputs.insert(g.outputs[i]->name);
  return f;
}

/// The plan's RunTimeBatch from the facts: per signature index, checked against the one-sample
/// plan (dim 0 is 1, the rank fits an onnxc_tensor).
ExecutionPlan::RunTimeBatch run_time_batch(const RunTimeBatchFacts &f, const ExecutionPlan &plan) {
  ExecutionPlan::RunTimeBatch rb{f.symbol, f.range, {}, {}};
  auto mark = [&](const std::vector<Value *> &values, const std::set<std::string> &names,
                  std::vector<bool> &out, const char *what) {
    for (const Value *v : values) {
      const bool batched = names.count(v->name) > 0;
      if (batched && (v->type.rank() < 1 || v->type.rank() > ONNXC_MAX_RANK ||
                      (*v->type.shape)[0].value != 1))
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
  auto model = load_model(o.model_path);

  PipelineOptions popts = o.pipeline;
  popts.model_name = o.name.empty() ? default_model_name(o.out_path) : sanitize_c_identifier(o.name);
  if (popts.gemm_tile_rows == 0) { // the GEMM tile that fits the target's vector registers
    const VectorRegisters vr = vector_registers(resolve_cpu_target(o.codegen.target));
    popts.gemm_tile_rows = onnxc_k::gemm::gemm_tile_rows(vr.count, vr.bytes);
  }
  std::vector<PassTiming> timings;
  std::optional<RunTimeBatchFacts> batch = plan_run_time_batch(o.model_path, popts.bindings);
  if (batch) { // compile one sample; onnxc_run loops over the batch
    popts.bindings.dims[batch->symbol] = 1;
    popts.bindings.ranges.erase(batch->symbol);
  }
  progress.stage(fmt::format("optimising the graph: {} nodes", model->graph->nodes.size()));
  ExecutionPlan plan = run_pipeline(*model, popts, &timings);
  std::unique_ptr<Model> tile_model; // the tile plan's graph: alive until codegen is done
  ExecutionPlan tile_plan;
  if (batch) {
    plan.batch = run_time_batch(*batch, plan);
    const int64_t tile = o.batch_tile >= 0 ? o.batch_tile
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
      plan.batch->tile = tile;
      plan.batch->tile_plan = &tile_plan;
      plan.arena_size = std::max(plan.arena_size, tile_plan.arena_size);
    }
  }

  progress.stage(fmt::format("generating machine code: {} kernel calls{}", plan.calls.size(),
                             o.codegen.profile ? " (profiled)" : ""));
  auto cg_start = std::chrono::steady_clock::now();
  CpuArtifactInfo budget = compile_cpu(plan, o.codegen, o.out_path);
  timings.push_back({"codegen-cpu", std::chrono::duration<double>(
                                        std::chrono::steady_clock::now() - cg_start)
                                        .count()});

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
  s.weights_size = plan.weights_size;
  s.kernel_calls = plan.calls.size();
  if (batch)
    s.notes = batch->notes;
  for (const PlannedCall &pc : plan.calls)
    if (pc.call.kernel.rfind("onnxc_k_random", 0) == 0) {
      s.notes.push_back(fmt::format(kRandomNote, pc.node_desc));
      break;
    }
  if (plan.batch) {
    s.run_time_batch =
        fmt::format("'{}' {}..{}", plan.batch->symbol, plan.batch->range.lo, plan.batch->range.hi);
    if (plan.batch->tile_plan) {
      s.batch_tile = plan.batch->tile;
      s.weights_size += tile_plan.weights_size;
    }
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.done();
  if (popts.time_passes) {
    std::ostream &log = popts.log ? *popts.log : std::cerr;
    log << "=== onnxc pass timings ===\n";
    for (const PassTiming &t : timings)
      log << fmt::format("  {:>9.3f} ms  {}\n", t.seconds * 1e3, t.pass);
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
          s.batch_tile > 1 ? fmt::format("code for tiles of {} samples, then one sample at a time",
                                         s.batch_tile)
                           : "one-sample code, run once per sample");
    for (const std::string &note : s.notes)
      std::cout << "note: " << note << "\n";
    std::cout << fmt::format("arena size: {} bytes\n", s.arena_size);
    std::cout << fmt::format("intermediates: {} bytes if no buffer shared memory ({} computed "
                             "in place)\n",
                             s.intermediates_size, s.inplace_values);
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
