#include "codegen/cpu/shared_library.h"

#include "codegen/cpu/optimize_emit.h"
#include "codegen/cpu/output_files.h"
#include "compiler/ir/error.h"

#include <fmt/format.h>

#include <lld/Common/Driver.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Regex.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <mutex>
#include <set>
#include <vector>

LLD_HAS_DRIVER(elf)

namespace onnxc {
namespace {

constexpr char kReservedWeightsSection[] = ".onnxc_weights";
constexpr uint64_t kReservedWeightsAlignment = 64;

/// Functions glibc exports from libm.so.6 (each also with f and l suffixes).
const std::set<std::string> &libm_functions() {
  static const std::set<std::string> names = [] {
    static const char *const base[] = {
        "acos",     "asin",      "atan",    "atan2",    "cos",   "sin",       "tan",
        "acosh",    "asinh",     "atanh",   "cosh",     "sinh",  "tanh",      "exp",
        "exp2",     "expm1",     "exp10",   "pow10",    "log",   "log10",     "log2",
        "log1p",    "logb",      "ilogb",   "ldexp",    "frexp", "modf",      "scalbn",
        "scalbln",  "cbrt",      "hypot",   "pow",      "sqrt",  "erf",       "erfc",
        "lgamma",   "lgamma_r",  "tgamma",  "gamma",    "ceil",  "floor",     "trunc",
        "round",    "lround",    "llround", "rint",     "lrint", "llrint",    "nearbyint",
        "fmod",     "remainder", "remquo",  "copysign", "nan",   "nextafter", "nexttoward",
        "fdim",     "fmax",      "fmin",    "fma",      "fabs",  "sincos",    "significand",
        "j0",       "j1",        "jn",      "y0",       "y1",    "yn",        "drem",
        "roundeven"};
    std::set<std::string> s;
    for (const char *b : base)
      for (const char *suffix : {"", "f", "l"})
        s.insert(std::string(b) + suffix);
    return s;
  }();
  return names;
}

/// Helpers that only compiler-rt/libgcc define (soft-float, fp16/bf16 conversion, 128-bit
/// integer arithmetic, AArch64 outline atomics, ARM EABI helpers other than the ones glibc
/// exports and those runtime_stub/arm_helpers.c defines): a library needing them cannot load
/// with libc and libm alone.
bool is_compiler_runtime_helper(llvm::StringRef name) {
  static const llvm::Regex glibc_aeabi(
      "^__aeabi_(mem(cpy|move|set|clr)[48]?|assert|atexit|errno_addr|localeconv|MB_CUR_MAX)$");
  if (name.starts_with("__aeabi_"))
    return !glibc_aeabi.match(name);
  static const llvm::Regex re(
      "^__(aarch64_.*|gnu_.*|clear_cache|(add|sub|mul|div|neg|pow|extend|trunc|fix|float|cmp|eq|"
      "ne|lt|le|gt|ge|unord|mod|umod|udiv|ashl|ashr|lshr|clz|ctz|popcount|parity|ffs|bswap|abs|"
      "mulo|addv|subv|mulv|negv|absv)[a-z0-9]*)$");
  return re.match(name);
}

std::string loader_soname(const llvm::Triple &t) {
  switch (t.getArch()) {
  case llvm::Triple::aarch64:
    return "ld-linux-aarch64.so.1";
  case llvm::Triple::arm:
    return "ld-linux-armhf.so.3";
  default:
    return "ld-linux-x86-64.so.2";
  }
}

/// Undefined, non-weak symbols of an ELF object.
std::vector<std::string> undefined_symbols(const std::string &object) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object), "model.o"));
  if (!file)
    fail("internal error: cannot read the emitted object: {}", llvm::toString(file.takeError()));
  std::vector<std::string> names;
  for (const llvm::object::SymbolRef &sym : (*file)->symbols()) {
    auto flags = sym.getFlags();
    auto name = sym.getName();
    if (!flags || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      continue;
    }
    bool undefined = *flags & llvm::object::SymbolRef::SF_Undefined;
    bool weak = *flags & llvm::object::SymbolRef::SF_Weak;
    if (undefined && !weak && !name->empty() && *name != "_GLOBAL_OFFSET_TABLE_")
      names.push_back(name->str());
  }
  return names;
}

/// soname -> the symbols a stub DSO with that soname must define.
std::map<std::string, std::vector<std::string>>
assign_to_libraries(const std::vector<std::string> &symbols, const llvm::Triple &triple) {
  std::map<std::string, std::vector<std::string>> libs;
  std::string helpers;
  for (const std::string &s : symbols) {
    if (is_compiler_runtime_helper(s))
      helpers += (helpers.empty() ? "" : ", ") + s;
    else if (libm_functions().count(s))
      libs["libm.so.6"].push_back(s);
    else if (s == "__tls_get_addr")
      libs[loader_soname(triple)].push_back(s);
    else
      libs["libc.so.6"].push_back(s);
  }
  if (!helpers.empty())
    fail("the generated code for {} calls compiler-runtime helpers that libc/libm do not provide: "
         "{} (a kernel or the runtime uses a type or operation the target lacks in hardware)",
         triple.str(), helpers);
  return libs;
}

void run_lld(const std::vector<std::string> &args) {
  static std::mutex lld_mutex;      // lld keeps global state: one link at a time
  static bool lld_unusable = false; // after a crash inside lld, it must not run again
  std::lock_guard<std::mutex> lock(lld_mutex);
  if (lld_unusable)
    fail("cannot link: lld failed fatally earlier in this process");
  std::vector<const char *> argv{"ld.lld"};
  for (const std::string &a : args)
    argv.push_back(a.c_str());
  std::string out, err;
  llvm::raw_string_ostream out_os(out), err_os(err);
  lld::Result r = lld::lldMain(argv, out_os, err_os, {{lld::Gnu, &lld::elf::link}});
  lld_unusable = !r.canRunAgain;
  if (r.retCode != 0)
    fail("linking the shared library with lld failed: {}", err);
  if (!err.empty())
    llvm::errs() << err;
}

/// An object defining `symbols` as empty functions, for a stub DSO.
std::string stub_object(const std::vector<std::string> &symbols, llvm::TargetMachine &tm) {
  llvm::LLVMContext ctx;
  llvm::Module m("stub", ctx);
  m.setTargetTriple(tm.getTargetTriple().str());
  m.setDataLayout(tm.createDataLayout());
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false);
  for (const std::string &s : symbols) {
    auto *f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, s, m);
    llvm::IRBuilder<>(llvm::BasicBlock::Create(ctx, "", f)).CreateRetVoid();
  }
  return emit_machine_code(m, tm, /*assembly=*/false);
}

/// The linker script (an INSERT into lld's default layout) that reserves the weight section.
std::string reserved_weights_script(const ReservedWeights &w) {
  return fmt::format("SECTIONS {{\n"
                     "  {} : ALIGN({}) {{ HIDDEN(\"{}\" = .); . += {}; }}\n"
                     "}} INSERT AFTER .rodata;\n",
                     kReservedWeightsSection, kReservedWeightsAlignment, w.symbol, w.bytes);
}

/// The file offset of the reserved weight section of the linked library at `path`, checked to
/// hold `bytes` of file contents.
uint64_t reserved_weights_offset(const std::string &path, uint64_t bytes) {
  auto file = llvm::object::ObjectFile::createObjectFile(path);
  if (!file)
    fail("internal error: cannot read the linked library back: {}",
         llvm::toString(file.takeError()));
  for (const llvm::object::SectionRef &s : file->getBinary()->sections()) {
    auto name = s.getName();
    if (!name || *name != kReservedWeightsSection)
      continue;
    llvm::object::ELFSectionRef elf(s);
    if (elf.getType() != llvm::ELF::SHT_PROGBITS || s.getSize() < bytes ||
        s.getAddress() % kReservedWeightsAlignment != 0)
      fail("internal error: the linker laid out the weight section {} unusably (type {}, {} "
           "bytes at address {:#x})",
           kReservedWeightsSection, elf.getType(), s.getSize(), s.getAddress());
    return elf.getOffset();
  }
  fail("internal error: the linked library has no weight section {}", kReservedWeightsSection);
}

} // namespace

void link_shared_library(const std::string &object, llvm::TargetMachine &tm,
                         const std::string &out_path, const TempDir &temp,
                         const ReservedWeights &weights) {
  std::string object_path = temp.file("model.o");
  write_file(object_path, object);
  std::vector<std::string> stubs;
  for (const auto &[soname, symbols] :
       assign_to_libraries(undefined_symbols(object), tm.getTargetTriple())) {
    std::string stub_o = temp.file("stub-" + soname + ".o"), stub_so = temp.file(soname);
    write_file(stub_o, stub_object(symbols, tm));
    run_lld({stub_o, "-shared", "-soname", soname, "-o", stub_so});
    stubs.push_back(stub_so);
  }
  PendingOutput out(out_path);
  std::vector<std::string> args = {object_path,
                                   "-shared",
                                   "-soname",
                                   std::string(llvm::sys::path::filename(out_path)),
                                   "-Bsymbolic",
                                   "--gc-sections",
                                   "-z",
                                   "now",
                                   "-z",
                                   "relro",
                                   "-z",
                                   "noexecstack",
                                   "-z",
                                   "defs",
                                   "--hash-style=gnu",
                                   "--eh-frame-hdr",
                                   "-o",
                                   out.temp_path(),
                                   "--as-needed"};
  args.insert(args.end(), stubs.begin(), stubs.end());
  if (weights.bytes > 0) {
    std::string script = temp.file("weights.lds");
    write_file(script, reserved_weights_script(weights));
    args.insert(args.end(), {"-T", script});
  }
  run_lld(args);
  if (weights.bytes > 0)
    weights.write(out.temp_path(), reserved_weights_offset(out.temp_path(), weights.bytes));
  out.commit();
}

} // namespace onnxc
