// Progress on stderr for compiles that take over a second: silent for fast compiles.
#pragma once

#include <chrono>
#include <string>

namespace onnxc {

class Progress {
public:
  explicit Progress(std::string what);
  /// Enters a new stage; announced once the compile has run for over a second.
  void stage(const std::string &name);
  /// Prints the total time if anything was announced.
  void done();

private:
  std::string what_;
  std::chrono::steady_clock::time_point start_;
  bool announced_ = false;
};

} // namespace onnxc
