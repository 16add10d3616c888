#include "compiler/driver/progress.h"

#include <cstdlib>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace onnxc {

static double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// How long a compile runs before progress shows: 1 s, or ONNXC_PROGRESS_DELAY_MS (for tests).
static std::chrono::milliseconds announce_delay() {
  const char *env = std::getenv("ONNXC_PROGRESS_DELAY_MS");
  if (!env || !*env)
    return std::chrono::milliseconds(1000);
  char *end = nullptr;
  long ms = std::strtol(env, &end, 10);
  return std::chrono::milliseconds(*end == '\0' && ms >= 0 ? ms : 1000);
}

Progress::Progress(std::string what)
    : enabled_(isatty(STDERR_FILENO) == 1), what_(std::move(what)),
      start_(std::chrono::steady_clock::now()), delay_(announce_delay()) {}

Progress::~Progress() {
  if (!watcher_.joinable())
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
  if (!cv_.wait_for(lock, delay_, [this] { return finished_; }) && !announced_)
    announce_locked();
}

void Progress::announce_locked() {
  announced_ = true;
  std::cerr << fmt::format("onnxc: [{:.1f} s] {}: {}...\n", seconds_since(start_), what_, stage_);
}

void Progress::stage(const std::string &name) {
  if (!enabled_)
    return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stage_ = name;
    if (announced_ || delay_.count() == 0)
      announce_locked();
  }
  if (!watcher_.joinable()) // started with the first stage, so there is one to announce
    watcher_ = std::thread([this] { watch(); });
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
