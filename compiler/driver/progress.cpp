#include "compiler/driver/progress.h"

#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace onnxc {

static double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

Progress::Progress(std::string what)
    : enabled_(isatty(STDERR_FILENO) == 1), what_(std::move(what)),
      start_(std::chrono::steady_clock::now()) {
  if (enabled_)
    watcher_ = std::thread([this] { watch(); });
}

Progress::~Progress() {
  if (!enabled_)
    return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
  }
  cv_.notify_all();
  watcher_.join();
}

void Progress::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return finished_; }))
    announce_locked();
}

void Progress::announce_locked() {
  announced_ = true;
  std::cerr << fmt::format("onnxc: [{:.1f} s] {}: {}...\n", seconds_since(start_), what_, stage_);
}

void Progress::stage(const std::string &name) {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> lock(mu_);
  stage_ = name;
  if (announced_)
    announce_locked();
}

void Progress::done() {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  if (announced_)
    std::cerr << fmt::format("onnxc: [{:.1f} s] {}: done\n", seconds_since(start_), what_);
  cv_.notify_all();
}

} // namespace onnxc
