#include "codegen/cpu/static_library.h"

#include "compiler/ir/error.h"

#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/MemoryBuffer.h>

namespace onnxc {

std::string static_archive(std::string_view object, const std::string &member_name) {
  llvm::NewArchiveMember member(
      llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), member_name));
  member.MemberName = member_name;
  std::vector<llvm::NewArchiveMember> members;
  members.push_back(std::move(member));
  auto archive = llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NormalSymtab,
                                            llvm::object::Archive::K_GNU,
                                            /*Deterministic=*/true, /*Thin=*/false);
  if (!archive)
    fail("cannot write the static archive: {}", llvm::toString(archive.takeError()));
  return std::string((*archive)->getBuffer());
}

} // namespace onnxc
