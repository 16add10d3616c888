// The onnxc subcommands. main.cpp parses the command line (CLI11) into these option structs;
// each command returns the process exit status and reports failures by throwing onnxc::Error.
#pragma once

#include "codegen/cpu/cpu_backend.h"
#include "codegen/cuda/cuda_backend.h"
#include "compiler/passes/pipeline.h"

#include <string>
#include <vector>

namespace onnxc {

struct CompileOptions {
  std::string model_path;
  std::string out_path;
  std::string name; ///< C identifier; default from the output file name
  CpuCodegenOptions codegen;
  PipelineOptions pipeline;
  /// --target cuda (or cpu,cuda): device code for NVIDIA GPUs (codegen/cuda), the host code
  /// for codegen.target.
  bool cuda = false;
  bool cuda_cpu_fallback = false; ///< --target cpu,cuda: CPU code too, run without a GPU
  CudaCodegenOptions cuda_opts;
  bool quiet = false; ///< no summary on stdout
  /// Run-time batch: samples per tile run by code specialised for the tile (--batch-tile);
  /// -1: 8 when per-sample runs make matrix products thin, else none; 0: none.
  int batch_tile = -1;
};

/// The note of a model that draws random values (the random ops, Dropout in training mode),
/// with the first such node: `onnxc verify` prints it, and the conformance scripts read it.
#define ONNXC_RANDOM_NOTE_START "the model draws random values"
inline constexpr char kRandomNoteStart[] = ONNXC_RANDOM_NOTE_START;
inline constexpr char kRandomNote[] =
    ONNXC_RANDOM_NOTE_START " ({}): its outputs differ from any other generator's (and from run "
                            "to run without a seed)";
#undef ONNXC_RANDOM_NOTE_START

struct CompileSummary {
  int64_t arena_size = 0;
  int64_t intermediates_size = 0; ///< all arena tensors, unshared
  int64_t inplace_values = 0;     ///< outputs computed in their input's buffer
  int64_t concats_in_place = 0;   ///< Concats whose inputs were computed in its output
  int64_t weights_size = 0;
  size_t kernel_calls = 0;
  CpuArtifactInfo budget;  ///< code and stack size (measured for so/obj/static)
  std::string header_path; ///< empty unless a shared library, object or archive was written
  double seconds = 0;
  std::string run_time_batch;  ///< "'batch' 1..4096" for a run-time batch, else empty
  std::string run_time_extent; ///< "'seq' 1..4096" for a run-time extent, else empty
  std::string run_time_count;  ///< "'y_count' 0..N" for a run-time count, else empty
  /// "'y' (by 'axes')" per graph output whose shape the run decides (Value::run_time_shape_from)
  std::vector<std::string> run_time_shaped;
  int64_t extent_variants = 0;    ///< kernel calls that run for part of the extent's range only
  std::vector<std::string> notes; ///< printed as "note: ..." after the summary
  int64_t batch_tile = 0;         ///< samples per tile of the run-time batch (0: none)
  int64_t batch_chunk = 0; ///< most samples per run of the chunked batch's code (0: not chunked)
};

/// Loads, runs the pipeline and the backend; writes the artifact (and NAME.h beside a .so, .o
/// or .a, and the weights file with --weights-file).
CompileSummary compile_model(const CompileOptions &o);
int cmd_compile(const CompileOptions &o);

struct InspectOptions {
  std::string model_path;
  bool dot = false;
  bool ir = false;
  ShapeBindings bindings;
};
int cmd_inspect(const InspectOptions &o);

struct RunOptions {
  std::string library;
  std::string data_dir;
  std::string out_dir;
  int threads = 1;
};
int cmd_run(const RunOptions &o);

struct VerifyOptions {
  std::string model_path;
  std::vector<std::string> data_dirs;
  double rtol = 1e-3;
  double atol = 1e-7;
  CompileOptions compile; ///< model_path/out_path are filled in by verify
  int threads = 1;
  /// Non-empty: compile as verify does, but instead of running write each data set to
  /// EXPORT/<n>/ (the library, inputs and expected outputs as .npy, manifest.json) for
  /// tests/cuda/run_exported.py to run elsewhere (a GPU machine without onnxc).
  std::string export_dir;
};
int cmd_verify(const VerifyOptions &o);

struct BenchOptions {
  std::string library;
  int threads = 1;
  int iters = 100;
  int warmup = 10;
  bool json = false;
  std::vector<std::string> dims; ///< --dim NAME=N: values of the library's run-time dims
};
int cmd_bench(const BenchOptions &o);

struct ProfileOptions {
  std::string library;
  std::string data_dir;   ///< empty: synthetic inputs (as bench)
  std::string trace_path; ///< Chrome trace JSON of the representative run; empty: none
  int threads = 1;
  int iters = 20;
  int warmup = 3;
  int top = 20;                  ///< rows of the table
  std::vector<std::string> dims; ///< --dim NAME=N: run-time dims of synthetic inputs
};
/// Runs a library compiled with --profile; prints the top nodes and writes the trace.
int cmd_profile(const ProfileOptions &o);

} // namespace onnxc
