// Static archives (`onnxc compile --emit static`): the model's object file in a GNU `ar` archive
// with a symbol table, written in-process with LLVM's archive writer (no external `ar`).
#pragma once

#include <string>
#include <string_view>

namespace onnxc {

/// The bytes of a deterministic GNU archive (zero timestamps and ids) holding `object` as the
/// member `member_name` (e.g. "mnist.o"), with a symbol table so that linkers find its symbols.
/// Throws Error if LLVM cannot write it.
std::string static_archive(std::string_view object, const std::string &member_name);

} // namespace onnxc
