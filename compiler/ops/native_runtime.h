// The runtime services kernels call (templates/cpu/kernel_abi.h), implemented natively and
// single-threaded for the reference evaluator. Compiled models get the runtime stub instead.
#pragma once

#include "templates/cpu/kernel_abi.h"

#include <memory>
#include <string>
#include <vector>

namespace onnxc {

/// One evaluation's runtime: collects the kernel's error message.
class NativeRuntime {
public:
  onnxc_rt *handle() { return reinterpret_cast<onnxc_rt *>(this); }
  const std::string &error() const { return error_; }
  void set_error(const char *msg) { error_ = msg ? msg : "kernel failed"; }
  /// onnxc_rt_dyn_alloc: a zeroed block that lives as long as this runtime.
  void *dyn_alloc(uint64_t bytes) {
    blocks_.push_back(std::make_unique<uint64_t[]>((bytes + 15) / 8 + 2));
    return blocks_.back().get();
  }

private:
  std::string error_;
  std::vector<std::unique_ptr<uint64_t[]>> blocks_;
};

} // namespace onnxc
