// compile_cpu(): the CPU backend pipeline, step by step.
#include "codegen/cpu/cpu_backend.h"

#include "codegen/cpu/abi_symbols.h"
#include "codegen/cpu/budget.h"
#include "codegen/cpu/c_header.h"
#include "codegen/cpu/embedded_bitcode.h"
#include "codegen/cpu/model_module.h"
#include "codegen/cpu/module_linker.h"
#include "codegen/cpu/optimize_emit.h"
#include "codegen/cpu/output_files.h"
#include "codegen/cpu/shared_library.h"
#include "codegen/cpu/static_library.h"
#include "codegen/cpu/target_machine.h"
#include "compiler/ir/error.h"
#include "compiler/ir/memory_usage.h"
#include "runtime_stub/weights_format.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace onnxc {
namespace {

/// Prints "onnxc: codegen <phase>: <ms> ms, RSS <now>, peak <peak>" to stderr after each phase
/// when enabled.
class PhaseTimer {
public:
  explicit PhaseTimer(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  void done(const char *phase) {
    if (!enabled_)
      return;
    auto now = Clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - start_).count();
    llvm::errs() << llvm::format("onnxc: codegen %-16s %8.1f ms  RSS %lld MiB, peak %lld MiB\n",
                                 phase, ms, static_cast<long long>(current_rss_bytes() >> 20),
                                 static_cast<long long>(peak_rss_bytes() >> 20));
    start_ = now;
  }

private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point start_;
};

/// The weights file (runtime_stub/weights_format.h): the 64-byte header, then the blob.
std::string weights_image(const std::string &model_name, const std::vector<uint8_t> &blob) {
  std::string image(ONNXC_WEIGHTS_HEADER_SIZE, '\0');
  auto put = [&image](size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      image[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  std::copy_n(ONNXC_WEIGHTS_MAGIC, 8, image.begin()); // with its NUL
  put(8, ONNXC_WEIGHTS_VERSION, 4);
  put(12, ONNXC_WEIGHTS_HEADER_SIZE, 4);
  put(16, blob.size(), 8);
  put(24, onnxc_weights_checksum(blob.data(), blob.size()), 8);
  std::string name = model_name.substr(0, ONNXC_WEIGHTS_NAME_BYTES - 1); // NUL-padded
  std::copy(name.begin(), name.end(), image.begin() + 32);
  image.append(blob.begin(), blob.end());
  return image;
}

/// Writes the machine-code artifact (.o, .a or .so) for `object` to out_path; returns the ELF
/// file to measure without copying it: a view of the object itself for .o and .a, the linked
/// library (mapped) for .so.
std::unique_ptr<llvm::MemoryBuffer> write_binary(const std::string &object, llvm::TargetMachine &tm,
                                                 EmitKind emit, const std::string &model_name,
                                                 const std::string &out_path,
                                                 const ReservedWeights &weights) {
  switch (emit) {
  case EmitKind::Object:
    write_file_atomically(out_path, object);
    return llvm::MemoryBuffer::getMemBuffer(object, "", false);
  case EmitKind::StaticLibrary:
    write_file_atomically(out_path, static_archive(object, model_name + ".o"));
    return llvm::MemoryBuffer::getMemBuffer(object, "", false);
  default: {
    TempDir temp;
    link_shared_library(object, tm, out_path, temp, weights);
    auto buffer = llvm::MemoryBuffer::getFile(out_path);
    if (!buffer) {
      std::error_code ec;
      std::filesystem::remove(out_path, ec);
      fail("cannot read back '{}': {}", out_path, buffer.getError().message());
    }
    return std::move(*buffer);
  }
  }
}

/// Links the module of a run-time batch's tile plan into `module`: its run function becomes
/// onnxc__model_run_tile (which the main descriptor points to), its descriptor is dropped; its
/// private weights, params and node functions stay its own.
void link_tile_module(llvm::Module &module, const ExecutionPlan &tile_plan,
                      const std::string &triple, const llvm::DataLayout &layout) {
  std::unique_ptr<llvm::Module> tile =
      build_model_module(tile_plan, module.getContext(), triple, layout);
  llvm::GlobalVariable *desc = tile->getGlobalVariable(std::string(kModelDescSymbol));
  llvm::Function *run = tile->getFunction(std::string(kModelRunSymbol));
  if (!desc || !run)
    fail("internal error: the tile module lacks its descriptor or run function");
  desc->eraseFromParent();
  run->setName(std::string(kModelRunTileSymbol));
  if (llvm::Linker::linkModules(module, std::move(tile)))
    fail("internal error: cannot link the run-time batch's tile code");
}

/// Links the module of a `--target cpu,cuda` library's CPU plan into `module`: its run function
/// becomes `symbol` (which the device descriptor points to), its descriptor is dropped; its
/// weights stay in the module (the device module's are the device plan's).
void link_cpu_fallback_module(llvm::Module &module, const ExecutionPlan &cpu_plan,
                              const std::string &triple, const llvm::DataLayout &layout,
                              const std::string &symbol) {
  std::unique_ptr<llvm::Module> cpu = build_model_module(cpu_plan, module.getContext(), triple,
                                                         layout, WeightsPlacement::InModule);
  llvm::GlobalVariable *desc = cpu->getGlobalVariable(std::string(kModelDescSymbol));
  llvm::Function *run = cpu->getFunction(std::string(kModelRunSymbol));
  if (!desc || !run)
    fail("internal error: the CPU fallback module lacks its descriptor or run function");
  desc->eraseFromParent();
  run->setName(symbol);
  if (llvm::Linker::linkModules(module, std::move(cpu)))
    fail("internal error: cannot link the CPU fallback code");
}

/// String tensors are arrays of 8-byte `const char *` slots (dtype_slot_bits): refuses them on
/// targets whose pointers are narrower, and string constants that reached the weights.
void check_string_slots(const ExecutionPlan &plan, const llvm::DataLayout &dl,
                        const std::string &triple) {
  for (const Value *w : plan.weights) // materialize-strings covers the top-level graph only
    if (w->type.dtype == DType::String)
      fail("string constant '{}' inside an If/Loop/Scan body is not supported yet; compute it "
           "outside the body",
           w->name);
  if (dl.getPointerSize() == 8)
    return;
  auto refuse = [&](const Value *v) {
    if (v && v->type.dtype == DType::String)
      fail("tensor '{}' has element type string, which onnxc supports only on 64-bit targets "
           "(not {})",
           v->name, triple);
  };
  for (const Value *v : plan.inputs)
    refuse(v);
  for (const Value *v : plan.outputs)
    refuse(v);
  for (const PlannedCall &pc : plan.calls)
    for (const Value *v : pc.call.args)
      refuse(v);
}

} // namespace

CpuArtifactInfo compile_cpu(const ExecutionPlan &plan, const CpuCodegenOptions &opts,
                            const std::string &out_path) {
  PhaseTimer timer(opts.time_passes);
  bool text = opts.emit == EmitKind::LlvmIr || opts.emit == EmitKind::Assembly;
  bool external = !opts.weights_file.empty();
  if (external && text)
    fail("--weights-file needs --emit so, obj or static");
  ResolvedCpuTarget target = resolve_cpu_target(opts.target);
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(target, opts.opt_level);
  check_string_slots(plan, tm->createDataLayout(), target.triple);
  llvm::LLVMContext ctx;
  std::vector<uint8_t> blob;
  // A shared library's weights are laid in by onnxc after lld links the code around a reserved
  // section: they never pass through LLVM or the linker (compile time and memory).
  const WeightsPlacement placement = external ? WeightsPlacement::External
                                     : opts.emit == EmitKind::SharedLibrary
                                         ? WeightsPlacement::Linked
                                         : WeightsPlacement::InModule;
  ReservedWeights reserved;
  if (placement == WeightsPlacement::Linked) {
    reserved.bytes = weights_blob_size(plan);
    reserved.symbol = kLinkedWeightsSymbol;
    reserved.write = [&plan](const std::string &path, uint64_t offset) {
      write_linked_weights(plan, path, offset);
    };
  }
  DeviceCode device;
  if (opts.device) {
    device = *opts.device;
    if (opts.cpu_fallback)
      device.cpu_run_symbol = "onnxc__model_run_cpu";
  }
  std::unique_ptr<llvm::Module> module =
      build_model_module(plan, ctx, target.triple, tm->createDataLayout(), placement, &blob,
                         opts.profile, opts.device ? &device : nullptr);
  if (opts.device && opts.cpu_fallback)
    link_cpu_fallback_module(*module, *opts.cpu_fallback, target.triple, tm->createDataLayout(),
                             device.cpu_run_symbol);
  if (plan.batch && plan.batch->tile_plan)
    link_tile_module(*module, *plan.batch->tile_plan, target.triple, tm->createDataLayout());
  timer.done("build IR");
  std::string name = sanitize_c_identifier(plan.model_name);
  link_runtime_and_kernels(*module, find_embedded_bitcode(target.triple));
  restrict_exports(*module, name,
                   opts.emit != EmitKind::Object && opts.emit != EmitKind::StaticLibrary);
  timer.done("link bitcode");
  optimize_module(*module, *tm, opts);
  timer.done("optimise");
  if (text) {
    write_file_atomically(out_path, opts.emit == EmitKind::LlvmIr
                                        ? print_llvm_ir(*module)
                                        : emit_machine_code(*module, *tm, /*assembly=*/true));
    timer.done("emit");
    return {};
  }
  std::string object = emit_machine_code(*module, *tm, /*assembly=*/false, opts.time_passes);
  timer.done("emit object");
  std::unique_ptr<PendingOutput> weights_out;
  if (external) {
    weights_out = std::make_unique<PendingOutput>(opts.weights_file);
    write_file(weights_out->temp_path(), weights_image(plan.model_name, blob));
  }
  std::unique_ptr<llvm::MemoryBuffer> artifact =
      write_binary(object, *tm, opts.emit, name, out_path, reserved);
  timer.done(opts.emit == EmitKind::SharedLibrary ? "link (lld)" : "write");
  CpuArtifactInfo info;
  info.measured = true;
  try {
    info.code_bytes = code_size(artifact->getBuffer(),
                                reserved.bytes ? reserved.bytes : embedded_weights_bytes(object));
    info.stack_bytes = stack_estimate(object);
    if (weights_out)
      weights_out->commit();
  } catch (...) {
    std::error_code ec; // a failed compile leaves no output behind
    std::filesystem::remove(out_path, ec);
    throw;
  }
  return info;
}

std::vector<std::string> supported_cpu_triples() {
  std::vector<std::string> triples;
  for (const EmbeddedBitcode &bc : embedded_bitcode())
    triples.emplace_back(bc.triple);
  return triples;
}

} // namespace onnxc
