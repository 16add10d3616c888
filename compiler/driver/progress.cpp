#include "compiler/driver/progress.h"

#include <fmt/format.h>
#include <iostream>

namespace onnxc {

Progress::Progress(std::string what)
    : what_(std::move(what)), start_(std::chrono::steady_clock::now()) {}

static double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void Progress::stage(const std::string &name) {
  double s = seconds_since(start_);
  if (s < 1.0)
    return;
  announced_ = true;
  std::cerr << fmt::format("onnxc: [{:.1f} s] {}: {}...\n", s, what_, name);
}

void Progress::done() {
  if (announced_)
    std::cerr << fmt::format("onnxc: [{:.1f} s] {}: done\n", seconds_since(start_), what_);
}

} // namespace onnxc
