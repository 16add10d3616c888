// Progress on stderr for compiles that take over a second: silent for fast compiles, and
// always silent when stderr is not a terminal (pipes, files, tests, CI). Once a second has
// passed, the current stage is announced ("optimising the graph: 120 nodes"), and every later
// stage as it starts. ONNXC_PROGRESS_DELAY_MS overrides the one second (tests use 0).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace onnxc {

class Progress {
public:
  /// Reports on stderr if it is a terminal (isatty); otherwise does nothing at all.
  explicit Progress(std::string what);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;
  /// Enters a new stage, e.g. "generating machine code: 176 kernel calls".
  void stage(const std::string &name);
  /// Prints the total time if anything was announced.
  void done();

private:
  void announce_locked();
  void watch();

  bool enabled_;
  std::string what_;
  std::string stage_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds delay_; ///< before the first announcement (0: every stage at once)
  bool announced_ = false;
  bool finished_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread watcher_;
};

} // namespace onnxc
