// Compile-time errors. Every failure inside the compiler throws onnxc::Error with a message that
// names what failed (file, node, op) and what the user can do; the CLI prints it and exits 1.
#pragma once

#include <fmt/format.h>
#include <stdexcept>
#include <string>

namespace onnxc {

/// The one exception type of the compiler. `what()` is a complete, user-facing message.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &msg) : std::runtime_error(msg) {}
};

/// Throws Error with a fmt-formatted message.
template <typename... Args> [[noreturn]] void fail(fmt::format_string<Args...> f, Args &&...args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

} // namespace onnxc
