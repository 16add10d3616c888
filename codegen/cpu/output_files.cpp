#include "codegen/cpu/output_files.h"

#include "compiler/ir/error.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/raw_ostream.h>

namespace onnxc {

TempDir::TempDir() {
  llvm::SmallString<128> path;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("onnxc-codegen", path))
    fail("cannot create a temporary directory: {}", ec.message());
  path_ = std::string(path);
}

TempDir::~TempDir() { llvm::sys::fs::remove_directories(path_, /*IgnoreErrors=*/true); }

std::string TempDir::file(const std::string &name) const {
  llvm::SmallString<128> p(path_);
  llvm::sys::path::append(p, name);
  return std::string(p);
}

PendingOutput::PendingOutput(const std::string &final_path) : final_path_(final_path) {
  llvm::SmallString<128> model(final_path);
  llvm::sys::path::remove_filename(model);
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(final_path) + ".tmp-%%%%%%%%");
  int fd = -1;
  llvm::SmallString<128> temp;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    fail("cannot create '{}': {}", final_path, ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  temp_path_ = std::string(temp);
}

PendingOutput::~PendingOutput() {
  if (!committed_)
    llvm::sys::fs::remove(temp_path_);
}

void PendingOutput::commit() {
  if (std::error_code ec = llvm::sys::fs::rename(temp_path_, final_path_))
    fail("cannot write '{}': {}", final_path_, ec.message());
  committed_ = true;
}

void write_file(const std::string &path, std::string_view data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os.write(data.data(), data.size());
    os.close();
    if (os.has_error()) {
      ec = os.error();
      os.clear_error();
    }
  }
  if (ec)
    fail("cannot write '{}': {}", path, ec.message());
}

void write_file_atomically(const std::string &path, std::string_view data) {
  PendingOutput out(path);
  write_file(out.temp_path(), data);
  out.commit();
}

} // namespace onnxc
