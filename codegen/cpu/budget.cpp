#include "codegen/cpu/budget.h"

#include "compiler/ir/error.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/LEB128.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <map>
#include <vector>

namespace onnxc {
namespace {

std::unique_ptr<llvm::object::ObjectFile> open_elf(std::string_view image) {
  llvm::MemoryBufferRef ref(llvm::StringRef(image.data(), image.size()), "artifact");
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj)
    fail("cannot read the emitted code back: {}", llvm::toString(obj.takeError()));
  if (!llvm::isa<llvm::object::ELFObjectFileBase>(**obj))
    fail("cannot measure the emitted code: not an ELF object");
  return std::move(*obj);
}

/// Name of the function a .stack_sizes relocation points at: the symbol itself, or for a
/// section symbol the function defined at `addend` in that section.
std::string function_name(const llvm::object::ObjectFile &obj, llvm::object::SymbolRef sym,
                          int64_t addend) {
  auto type = sym.getType();
  if (type && *type != llvm::object::SymbolRef::ST_Debug) {
    auto name = sym.getName();
    return name ? name->str() : std::string();
  }
  auto section = sym.getSection();
  if (!section || *section == obj.section_end())
    return {};
  for (const llvm::object::SymbolRef &s : obj.symbols()) {
    auto t = s.getType();
    auto sec = s.getSection();
    auto value = s.getValue();
    if (t && *t == llvm::object::SymbolRef::ST_Function && sec && *sec == *section && value &&
        static_cast<int64_t>(*value) == addend) {
      auto name = s.getName();
      return name ? name->str() : std::string();
    }
  }
  return {};
}

/// Frame size of each function with a .stack_sizes entry, by name.
std::map<std::string, uint64_t> frame_sizes(const llvm::object::ObjectFile &obj) {
  std::map<std::string, uint64_t> frames;
  for (const llvm::object::SectionRef &rel_section : obj.sections()) {
    auto target = rel_section.getRelocatedSection();
    if (!target || *target == obj.section_end())
      continue;
    auto target_name = (*target)->getName();
    if (!target_name || *target_name != ".stack_sizes")
      continue;
    auto contents = (*target)->getContents();
    if (!contents)
      continue;
    const auto *data = reinterpret_cast<const uint8_t *>(contents->data());
    for (const llvm::object::RelocationRef &r : rel_section.relocations()) {
      uint64_t at = r.getOffset() + (obj.getBytesInAddress());
      if (at >= contents->size())
        continue;
      unsigned n = 0;
      uint64_t size = llvm::decodeULEB128(data + at, &n, data + contents->size());
      int64_t addend = 0;
      if (auto a = llvm::object::ELFRelocationRef(r).getAddend())
        addend = *a;
      std::string name = function_name(obj, *r.getSymbol(), addend);
      if (!name.empty())
        frames[name] = std::max(frames[name], size);
    }
  }
  return frames;
}

bool ends_with(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

uint64_t code_size(std::string_view image, uint64_t embedded_weights) {
  auto obj = open_elf(image);
  uint64_t total = 0;
  for (const llvm::object::SectionRef &s : obj->sections()) {
    llvm::object::ELFSectionRef elf(s);
    if ((elf.getFlags() & llvm::ELF::SHF_ALLOC) && elf.getType() != llvm::ELF::SHT_NOBITS)
      total += s.getSize();
  }
  return total > embedded_weights ? total - embedded_weights : 0;
}

uint64_t embedded_weights_bytes(std::string_view object) {
  auto obj = open_elf(object);
  for (const llvm::object::SectionRef &s : obj->sections()) {
    auto name = s.getName();
    if (name && *name == ".rodata.onnxc_weights")
      return s.getSize();
  }
  return 0;
}

uint64_t stack_estimate(std::string_view object) {
  auto obj = open_elf(object);
  std::map<std::string, uint64_t> frames = frame_sizes(*obj);
  if (frames.empty())
    return 0;
  uint64_t entry = 0, nodes = 0, kernels = 0, fixed = 0, worker = 0;
  std::vector<uint64_t> rest;
  for (const auto &[name, size] : frames) {
    // The exact names first: onnxc__model_run also ends in "_run".
    if (name == "run_model" || name == "onnxc__model_run")
      fixed += size;
    else if (ends_with(name, "_run") || ends_with(name, "_run_buffers"))
      entry = std::max(entry, size);
    else if (name.rfind("node.", 0) == 0)
      nodes = std::max(nodes, size);
    else if (name.rfind("kernel.", 0) == 0)
      kernels = std::max(kernels, size);
    else if (name == "worker_main" || name == "run_chunks")
      worker += size;
    else
      rest.push_back(size);
  }
  std::sort(rest.rbegin(), rest.rend());
  uint64_t below = (rest.size() > 0 ? rest[0] : 0) + (rest.size() > 1 ? rest[1] : 0);
  return std::max(entry + fixed + nodes + kernels + below, worker + below);
}

} // namespace onnxc
