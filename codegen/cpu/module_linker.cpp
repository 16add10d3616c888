#include "codegen/cpu/module_linker.h"

#include "codegen/cpu/abi_symbols.h"
#include "codegen/cpu/specialise_parallel.h"
#include "compiler/ir/error.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/GlobalAlias.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <algorithm>
#include <set>
#include <vector>

namespace onnxc {
namespace {

/// Collects LLVM diagnostics of a context while in scope: errors are thrown by the caller,
/// warnings are printed to stderr.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(llvm::LLVMContext &ctx) : ctx_(ctx) {
    ctx_.setDiagnosticHandlerCallBack(&handle, this);
  }
  ~DiagnosticCollector() { ctx_.setDiagnosticHandlerCallBack(nullptr, nullptr); }
  const std::string &errors() const { return errors_; }

private:
  static void handle(const llvm::DiagnosticInfo *info, void *self_ptr) {
    const llvm::DiagnosticInfo &di = *info;
    auto *self = static_cast<DiagnosticCollector *>(self_ptr);
    std::string msg;
    llvm::raw_string_ostream os(msg);
    llvm::DiagnosticPrinterRawOStream printer(os);
    di.print(printer);
    if (di.getSeverity() == llvm::DS_Error)
      self->errors_ += (self->errors_.empty() ? "" : "; ") + msg;
    else if (di.getSeverity() == llvm::DS_Warning)
      llvm::errs() << "onnxc: warning: " << msg << "\n";
  }
  llvm::LLVMContext &ctx_;
  std::string errors_;
};

std::unique_ptr<llvm::Module> load_lazily(std::string_view bitcode, const std::string &name,
                                          llvm::LLVMContext &ctx) {
  if (bitcode.empty())
    fail("embedded {} is empty (onnxc was built without it)", name);
  llvm::MemoryBufferRef buffer(llvm::StringRef(bitcode.data(), bitcode.size()), name);
  auto module = llvm::getLazyBitcodeModule(buffer, ctx);
  if (!module)
    fail("cannot read embedded {}: {}", name, llvm::toString(module.takeError()));
  return std::move(*module);
}

void link_in(llvm::Linker &linker, std::unique_ptr<llvm::Module> m, unsigned flags,
             const std::string &name, const DiagnosticCollector &diag) {
  if (linker.linkInModule(std::move(m), flags))
    fail("cannot link {} into the model: {}", name, diag.errors());
}

void check_all_defined(const llvm::Module &m, const std::string &triple) {
  std::string missing;
  for (const llvm::Function &f : m)
    if (f.isDeclaration() && f.getName().starts_with("onnxc_"))
      missing += (missing.empty() ? "" : ", ") + f.getName().str();
  for (std::string_view abi : kCpuAbiSymbols) {
    const llvm::Function *f = m.getFunction(llvm::StringRef(abi));
    if (!f || f->isDeclaration())
      missing += (missing.empty() ? "" : ", ") + std::string(abi);
  }
  if (!missing.empty())
    fail("the kernel/runtime bitcode for {} does not define {} (kernel not implemented for this "
         "target, or onnxc built from mismatched sources)",
         triple, missing);
}

void strip_target_attributes(llvm::Module &m) {
  for (llvm::Function &f : m) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    f.removeFnAttr("tune-cpu");
  }
}

/// The ARM EABI helpers of runtime_stub/arm_helpers.c: instruction selection emits calls to
/// them by name after the IR pipeline, so they stay external (hidden) and are not removed.
bool is_arm_runtime_helper(llvm::StringRef name) {
  return name.starts_with("__aeabi_") || name.starts_with("onnxc_arm_");
}

/// The runtime bitcode is already optimised (clang -O2) and is not specialised per model:
/// optnone keeps the IR pipeline and the aggressive instruction selector off it, which saves
/// ~0.2 s CPU per model. onnxc_parallel_for stays optimisable, so it inlines into kernels and
/// its serial path folds for small constant trip counts; the ARM helpers do too (optnone would
/// also select their machine code at -O0, and kernels call them in inner loops).
void keep_runtime_as_compiled(llvm::Module &m, const std::vector<std::string> &runtime_functions) {
  for (const std::string &name : runtime_functions) {
    llvm::Function *f = m.getFunction(name);
    if (!f || f->isDeclaration() || name == "onnxc_parallel_for" || is_arm_runtime_helper(name))
      continue;
    f->removeFnAttr(llvm::Attribute::AlwaysInline);
    f->removeFnAttr(llvm::Attribute::InlineHint);
    f->addFnAttr(llvm::Attribute::NoInline);
    f->addFnAttr(llvm::Attribute::OptimizeNone);
  }
}

bool is_abi_symbol(llvm::StringRef name) {
  return std::find(kCpuAbiSymbols.begin(), kCpuAbiSymbols.end(),
                   std::string_view(name.data(), name.size())) != kCpuAbiSymbols.end();
}

} // namespace

void link_runtime_and_kernels(llvm::Module &model, const EmbeddedBitcode &bitcode) {
  llvm::LLVMContext &ctx = model.getContext();
  DiagnosticCollector diag(ctx);
  std::string triple(bitcode.triple);
  std::string runtime_name = "runtime_" + triple + ".bc",
              kernels_name = "kernels_" + triple + ".bc";
  auto runtime = load_lazily(bitcode.runtime, runtime_name, ctx);
  auto kernels = load_lazily(bitcode.kernels, kernels_name, ctx);
  // The bitcode's triple spelling and layout are the reference; the model module uses both.
  std::string model_triple = model.getTargetTriple();
  model.setTargetTriple(runtime->getTargetTriple());
  std::set<const llvm::Function *> own; // the model's functions, before linking
  for (const llvm::Function &f : model)
    if (!f.isDeclaration())
      own.insert(&f);
  std::vector<std::string> runtime_functions;
  for (const llvm::Function &f : *runtime)
    if (!f.isDeclaration())
      runtime_functions.push_back(f.getName().str());
  llvm::Linker linker(model);
  link_in(linker, std::move(runtime), llvm::Linker::Flags::None, runtime_name, diag);
  link_in(linker, std::move(kernels), llvm::Linker::Flags::LinkOnlyNeeded, kernels_name, diag);
  model.setTargetTriple(model_triple);
  check_all_defined(model, triple);
  strip_target_attributes(model);
  keep_runtime_as_compiled(model, runtime_functions);
  for (llvm::Function &f : model)
    if (!f.isDeclaration() && !own.count(&f))
      f.addFnAttr(kTemplateCodeAttr);
}

void restrict_exports(llvm::Module &model, const std::string &model_name, bool generic_abi) {
  // onnxc_parallel_for_params stays external (hidden) through the IR pipeline, so that no
  // interprocedural pass rewrites its arguments before its call sites are specialised; the
  // pipeline internalises it at the end (codegen/cpu/specialise_parallel.h).
  llvm::internalizeModule(model, [](const llvm::GlobalValue &gv) {
    return is_abi_symbol(gv.getName()) || is_arm_runtime_helper(gv.getName()) ||
           gv.getName() == kParallelForParamsSymbol;
  });
  for (std::string_view abi : kCpuAbiSymbols) {
    llvm::Function *f = model.getFunction(llvm::StringRef(abi));
    f->setVisibility(llvm::GlobalValue::DefaultVisibility);
    std::string alias = model_name + "_" + std::string(abi.substr(kCpuAbiPrefix.size()));
    if (alias == abi)
      continue;
    if (model.getNamedValue(alias))
      fail("model name '{}' makes the alias '{}' clash with another symbol", model_name, alias);
    if (!generic_abi) { // static linking: only the model's own names, so models can coexist
      f->setName(alias);
      continue;
    }
    auto *a = llvm::GlobalAlias::create(f->getValueType(), 0, llvm::GlobalValue::ExternalLinkage,
                                        alias, f, &model);
    a->setVisibility(llvm::GlobalValue::DefaultVisibility);
  }
}

} // namespace onnxc
