// The runtime services kernels call (templates/cpu/kernel_abi.h), implemented natively and
// single-threaded for the reference evaluator. Compiled models get the runtime stub instead.
#pragma once

#include "templates/cpu/kernel_abi.h"

#include <string>

namespace onnxc {

/// One evaluation's runtime: collects the kernel's error message.
class NativeRuntime {
public:
  onnxc_rt *handle() { return reinterpret_cast<onnxc_rt *>(this); }
  const std::string &error() const { return error_; }
  void set_error(const char *msg) { error_ = msg ? msg : "kernel failed"; }

private:
  std::string error_;
};

} // namespace onnxc
