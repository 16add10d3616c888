// onnxc: the command line. Parses arguments with CLI11 and dispatches to the commands in
// compiler/driver/; every failure prints "onnxc: error: ..." and exits 1.
#include "compiler/driver/commands.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/ir/error.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <filesystem>
#include <iostream>

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

struct BindingFlags {
  std::vector<std::string> shapes, dims, values, seq_lengths, absent;
};

void add_shape_flags(CLI::App *cmd, BindingFlags &f) {
  cmd->add_option("--shape", f.shapes, "Bind an input's shape: NAME=1x3x224x224 (repeatable)");
  cmd->add_option("--dim", f.dims, "Bind a symbolic dimension: PARAM=N (repeatable)");
  cmd->add_option("--const-input", f.values,
                  "Compile an input in as a constant: NAME=FILE.pb (a TensorProto; repeatable)");
  cmd->add_option("--seq-length", f.seq_lengths,
                  "Length of a sequence input: NAME=N; it is passed as the tensors NAME.0 ... "
                  "NAME.<N-1> (repeatable)");
  cmd->add_option("--absent", f.absent,
                  "Compile an optional input as absent (it is then not an input; repeatable)");
}

/// Parses "NAME=N" for --seq-length.
void parse_seq_length_flag(const std::string &flag, ShapeBindings &b) {
  auto eq = flag.find('=');
  int64_t n = -1;
  const char *end = flag.data() + flag.size();
  if (eq != std::string::npos && eq > 0 && eq + 1 < flag.size()) {
    auto r = std::from_chars(flag.data() + eq + 1, end, n);
    if (r.ec != std::errc() || r.ptr != end)
      n = -1;
  }
  if (n < 0)
    fail("invalid --seq-length '{}': expected NAME=N with N >= 0", flag);
  b.sequence_lengths[flag.substr(0, eq)] = n;
}

ShapeBindings parse_bindings(const BindingFlags &f) {
  ShapeBindings b;
  for (const auto &s : f.shapes)
    parse_shape_flag(s, b);
  for (const auto &d : f.dims)
    parse_dim_flag(d, b);
  for (const auto &l : f.seq_lengths)
    parse_seq_length_flag(l, b);
  b.absent_optionals.insert(f.absent.begin(), f.absent.end());
  for (const auto &v : f.values) {
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      fail("invalid --const-input '{}': expected NAME=FILE.pb", v);
    b.input_values[v.substr(0, eq)] =
        std::make_shared<Tensor>(read_tensor_file(v.substr(eq + 1)).tensor);
  }
  return b;
}

struct CompileFlags : BindingFlags {
  std::string emit = "so";
  int opt = 3;
  std::string sanitize; ///< "", "thread" or "address"
  std::string cuda_archs;
  std::string cuda_precision;
};

void add_codegen_flags(CLI::App *cmd, CompileOptions &o, CompileFlags &f) {
  cmd->add_option("--name", o.name, "C identifier of the model (header, symbol prefix)");
  cmd->add_option("--target", o.codegen.target.triple,
                  "cpu (default: the host), a target triple, cuda (NVIDIA GPUs) or cpu,cuda "
                  "(the GPU when one is usable, else the CPU)");
  cmd->add_option("--cuda-arch", f.cuda_archs,
                  "--target cuda: GPU architectures to build code for (default sm_80,sm_90; PTX "
                  "for the newest is added for later GPUs)");
  cmd->add_option("--precision", f.cuda_precision,
                  "--target cuda: how float32 Conv/Gemm/MatMul multiply: fp32 (default, exact, "
                  "CUDA cores), or on tensor cores (sm_80+) with operands rounded to tf32, fp16 "
                  "or bf16 and float32 accumulation");
  cmd->add_option("--emit-cuda", o.cuda_opts.source_path,
                  "--target cuda: also write the generated CUDA C++ to this file");
  cmd->add_option("--cpu", o.codegen.target.cpu, "Target CPU (default: the host CPU)");
  cmd->add_option("--features", o.codegen.target.features, "Target features, e.g. +avx2,-fma");
  cmd->add_option("-O", f.opt, "Optimisation level: -O0 .. -O3 (default -O3)")
      ->check(CLI::Range(0, 3));
  cmd->add_flag("--time-passes", o.pipeline.time_passes, "Print the time each pass takes");
  cmd->add_option("--print-after", o.pipeline.print_after,
                  "Dump the IR after a pass (or 'all') to stderr");
  cmd->add_option("--disable-pass", o.pipeline.disabled_passes,
                  "Do not run an optional pass: fuse-half-casts, fuse-qdq, fold-batchnorm, "
                  "fuse-gelu, fuse-scale, fuse-causal-mask, fuse-transpose, fuse-bias, "
                  "fuse-residual, fuse-activation, fuse-channel-scale, all-fusion (those "
                  "eleven), pack-weights, "
                  "conv-paths, "
                  "winograd, winograd-4x4, dw-channels, few-channels, chan-vec, inplace, "
                  "concat-in-place, specialise-parallel or specialise-first (repeatable)");
  cmd->add_option("--gemm-tile-rows", o.pipeline.gemm_tile_rows,
                  "GEMM micro-tile rows for Conv/Gemm/MatMul/LSTM/GRU/RNN: 1, 2, 4, 6 or 8 "
                  "(default: chosen for the target's vector registers)")
      ->check(CLI::IsMember({0, 1, 2, 4, 6, 8}));
  cmd->add_flag("--verify-each", o.pipeline.verify_each, "Run the IR verifier after every pass");
  cmd->add_option("--batch-tile", o.batch_tile,
                  "Run-time batch: also compile a tile of N samples and run the batch in tiles "
                  "(0: one sample at a time; default: 8 where that makes matrix products thin)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--max-arena-bytes", o.pipeline.plan.max_arena_bytes,
                  "Refuse models whose arena exceeds this many bytes (default 1 TiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-weight-bytes", o.pipeline.plan.max_weight_bytes,
                  "Refuse models whose weights exceed this many bytes (default 1 TiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sanitize", f.sanitize,
                  "Instrument the generated code: thread or address (for testing; the library "
                  "then loads only into a program built with the same -fsanitize=)");
  cmd->add_flag("--profile", o.codegen.profile,
                "Time every kernel call in the library (read with onnxc profile / "
                "onnxc_profile_node); without it nothing is recorded");
  add_shape_flags(cmd, f);
}

void finish_codegen_flags(CompileOptions &o, const CompileFlags &f) {
  o.pipeline.bindings = parse_bindings(f);
  std::string &target = o.codegen.target.triple;
  if (target == "cpu")
    target.clear();
  else if (target == "cuda" || target == "cpu,cuda" || target == "cuda,cpu") {
    o.cuda = true;
    o.cuda_cpu_fallback = target != "cuda";
    target.clear();
    if (!cuda_backend_available())
      fail("--target {}: this onnxc was built without the CUDA Toolkit (NVRTC), so it has no "
           "CUDA backend; install the CUDA Toolkit and rebuild onnxc, or use --target cpu",
           o.cuda_cpu_fallback ? "cpu,cuda" : "cuda");
  }
  if (!f.cuda_archs.empty()) {
    if (!o.cuda)
      fail("--cuda-arch needs --target cuda");
    o.cuda_opts.archs = parse_cuda_archs(f.cuda_archs);
  }
  if (!f.cuda_precision.empty()) {
    if (!o.cuda)
      fail("--precision needs --target cuda (the CPU target computes in the model's types)");
    o.cuda_opts.precision = parse_cuda_precision(f.cuda_precision);
    if (o.cuda_opts.precision != CudaPrecision::kFp32)
      for (int sm : o.cuda_opts.archs)
        if (sm < 80)
          fail("--precision {} needs tensor cores of sm_80 or newer, but --cuda-arch has sm_{}",
               f.cuda_precision, sm);
  }
  if (!o.cuda_opts.source_path.empty() && !o.cuda)
    fail("--emit-cuda needs --target cuda");
  o.cuda_opts.time_passes = o.pipeline.time_passes;
  o.codegen.opt_level = f.opt;
  o.codegen.time_passes = o.pipeline.time_passes;
  o.codegen.specialise_parallel = pass_enabled(o.pipeline, kSpecialiseParallelPass);
  o.codegen.specialise_first = pass_enabled(o.pipeline, kSpecialiseFirstPass);
  if (f.emit == "so")
    o.codegen.emit = EmitKind::SharedLibrary;
  else if (f.emit == "obj")
    o.codegen.emit = EmitKind::Object;
  else if (f.emit == "static")
    o.codegen.emit = EmitKind::StaticLibrary;
  else if (f.emit == "llvm")
    o.codegen.emit = EmitKind::LlvmIr;
  else if (f.emit == "asm")
    o.codegen.emit = EmitKind::Assembly;
  else
    fail("--emit {}: expected so, obj, static, llvm or asm", f.emit);
  if (f.sanitize == "thread")
    o.codegen.sanitize = Sanitizer::Thread;
  else if (f.sanitize == "address")
    o.codegen.sanitize = Sanitizer::Address;
  else if (!f.sanitize.empty())
    fail("--sanitize={}: expected thread or address", f.sanitize);
}

/// --weights-file works with machine code only and must not overwrite the artifact.
void check_weights_file(const CompileOptions &o) {
  const std::string &w = o.codegen.weights_file;
  if (w.empty())
    return;
  if (o.codegen.emit == EmitKind::LlvmIr || o.codegen.emit == EmitKind::Assembly)
    fail("--weights-file needs --emit so, obj or static (LLVM IR and assembly embed the weights)");
  std::error_code ec;
  if (fs::path(w).lexically_normal() == fs::path(o.out_path).lexically_normal() ||
      fs::equivalent(w, o.out_path, ec))
    fail("--weights-file {} is the output file itself; name another file", w);
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"onnxc: ahead-of-time compiler from ONNX models to self-contained shared "
               "libraries"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "onnxc 0.1.0");

  CompileOptions co;
  CompileFlags cf;
  auto *compile = app.add_subcommand("compile", "Compile MODEL.onnx into LIB.so and NAME.h");
  compile->add_option("model", co.model_path, "ONNX model")->required();
  compile->add_option("-o,--output", co.out_path, "Output file")->required();
  compile->add_option("--emit", cf.emit, "Artifact: so (default), obj, static, llvm or asm");
  compile->add_option("--weights-file", co.codegen.weights_file,
                      "Write the weights to this file instead of embedding them (so/obj/static)");
  add_codegen_flags(compile, co, cf);

  InspectOptions io;
  BindingFlags ibind;
  auto *inspect = app.add_subcommand("inspect", "Describe a model and what onnxc supports of it");
  inspect->add_option("model", io.model_path, "ONNX model")->required();
  inspect->add_flag("--dot", io.dot, "Print the graph in Graphviz dot format");
  inspect->add_flag("--ir", io.ir, "Print the IR (with shapes, when they can be inferred)");
  add_shape_flags(inspect, ibind);

  RunOptions ro;
  auto *run = app.add_subcommand("run", "Run LIB.so on DATA_DIR/input_N.pb, write output_N.pb");
  run->add_option("library", ro.library, "Compiled model")->required();
  run->add_option("data_dir", ro.data_dir, "Directory with input_0.pb, ...")->required();
  run->add_option("-o,--output", ro.out_dir, "Directory for output_N.pb")->required();
  run->add_option("--threads", ro.threads, "Threads")->check(CLI::Range(1, 1024));

  VerifyOptions vo;
  CompileFlags vf;
  auto *verify = app.add_subcommand("verify", "Compile, run each DATA_DIR and compare outputs");
  verify->add_option("model", vo.model_path, "ONNX model")->required();
  verify->add_option("data_dirs", vo.data_dirs, "test_data_set directories")->required();
  verify->add_option("--rtol", vo.rtol, "Relative tolerance (default 1e-3)");
  verify->add_option("--atol", vo.atol, "Absolute tolerance (default 1e-7)");
  verify->add_option("--threads", vo.threads, "Threads")->check(CLI::Range(1, 1024));
  verify->add_option("--export", vo.export_dir,
                     "Do not run: write each data set's library, inputs and expected outputs "
                     "to EXPORT/<n>/ (see tests/cuda/run_exported.py)");
  add_codegen_flags(verify, vo.compile, vf);

  BenchOptions bo;
  auto *bench = app.add_subcommand("bench", "Measure latency with synthetic inputs");
  bench->add_option("library", bo.library, "Compiled model")->required();
  bench->add_option("--threads", bo.threads, "Threads")->check(CLI::Range(1, 1024));
  bench->add_option("--iters", bo.iters, "Timed iterations")->check(CLI::Range(1, 100000000));
  bench->add_option("--warmup", bo.warmup, "Untimed iterations first")
      ->check(CLI::Range(0, 1000000));
  bench->add_flag("--json", bo.json, "Print one JSON object");
  bench->add_option("--dim", bo.dims,
                    "NAME=N: value of a run-time dim of the library (default: its minimum)");

  ProfileOptions po;
  auto *profile = app.add_subcommand("profile", "Time each kernel call of a --profile library");
  profile->add_option("library", po.library, "Model compiled with --profile")->required();
  profile->add_option("data_dir", po.data_dir,
                      "Directory with input_0.pb, ... (default: synthetic inputs)");
  profile->add_option("-o,--output", po.trace_path, "Write a Chrome trace JSON of the median run");
  profile->add_option("--threads", po.threads, "Threads")->check(CLI::Range(1, 1024));
  profile->add_option("--iters", po.iters, "Timed iterations")->check(CLI::Range(1, 1000000));
  profile->add_option("--warmup", po.warmup, "Untimed iterations first")
      ->check(CLI::Range(0, 1000000));
  profile->add_option("--top", po.top, "Rows in the table (default 20)")
      ->check(CLI::Range(1, 1000000));
  profile->add_option(
      "--dim", po.dims,
      "NAME=N: value of a run-time dim for synthetic inputs (default: its minimum)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    if (*compile) {
      finish_codegen_flags(co, cf);
      check_weights_file(co);
      return cmd_compile(co);
    }
    if (*inspect) {
      io.bindings = parse_bindings(ibind);
      return cmd_inspect(io);
    }
    if (*run)
      return cmd_run(ro);
    if (*verify) {
      finish_codegen_flags(vo.compile, vf);
      return cmd_verify(vo);
    }
    if (*bench)
      return cmd_bench(bo);
    if (*profile)
      return cmd_profile(po);
  } catch (const Error &e) {
    std::cerr << "onnxc: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "onnxc: error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
