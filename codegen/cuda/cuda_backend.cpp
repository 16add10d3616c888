// compile_cuda(): NVRTC in-process, then the CPU backend's host path.
#include "codegen/cuda/cuda_backend.h"

#include "codegen/cpu/output_files.h"
#include "compiler/ir/error.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <iostream>
#include <set>

#ifdef ONNXC_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace onnxc {

bool cuda_backend_available() {
#ifdef ONNXC_HAVE_NVRTC
  return true;
#else
  return false;
#endif
}

std::vector<int> parse_cuda_archs(const std::string &list) {
  std::vector<int> archs;
  size_t at = 0;
  while (at <= list.size()) {
    size_t end = list.find(',', at);
    if (end == std::string::npos)
      end = list.size();
    std::string a = list.substr(at, end - at);
    if (a.rfind("sm_", 0) == 0)
      a = a.substr(3);
    int v = 0;
    bool ok = !a.empty() && a.size() <= 3 &&
              std::all_of(a.begin(), a.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok)
      v = std::stoi(a);
    if (!ok || v < 75)
      fail("--cuda-arch: '{}' is not an architecture onnxc supports (sm_75 or newer, e.g. "
           "sm_80,sm_90)",
           list.substr(at, end - at));
    archs.push_back(v);
    at = end + 1;
  }
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

#ifdef ONNXC_HAVE_NVRTC
namespace {

/// One NVRTC compile of `source` for `arch` ("sm_90" for a cubin, "compute_90" for PTX).
DeviceImage nvrtc_compile(const std::string &source, int sm, bool ptx) {
  nvrtcProgram prog;
  auto check = [](nvrtcResult r, const char *what) {
    if (r != NVRTC_SUCCESS)
      fail("NVRTC: {}: {}", what, nvrtcGetErrorString(r));
  };
  check(nvrtcCreateProgram(&prog, source.c_str(), "onnxc_model.cu", 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  const std::string arch =
      std::string("--gpu-architecture=") + (ptx ? "compute_" : "sm_") + std::to_string(sm);
  const char *options[] = {arch.c_str(), "-std=c++17", "-default-device"};
  nvrtcResult r = nvrtcCompileProgram(prog, 3, options);
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(prog, log.data());
    nvrtcDestroyProgram(&prog);
    if (log.size() > 4000)
      log = log.substr(0, 4000) + "\n...";
    fail("internal error: NVRTC could not compile the generated CUDA code for {}: {}", arch, log);
  }
  DeviceImage im;
  im.sm = sm;
  im.ptx = ptx;
  size_t n = 0;
  if (ptx) {
    check(nvrtcGetPTXSize(prog, &n), "nvrtcGetPTXSize");
    im.data.resize(n);
    check(nvrtcGetPTX(prog, im.data.data()), "nvrtcGetPTX");
    if (!im.data.empty() && im.data.back() == '\0')
      im.data.pop_back();
  } else {
    check(nvrtcGetCUBINSize(prog, &n), "nvrtcGetCUBINSize");
    im.data.resize(n);
    check(nvrtcGetCUBIN(prog, im.data.data()), "nvrtcGetCUBIN");
  }
  nvrtcDestroyProgram(&prog);
  return im;
}

} // namespace
#endif

std::vector<DeviceImage> compile_cuda_source(const std::string &source,
                                             const CudaCodegenOptions &opts) {
#ifdef ONNXC_HAVE_NVRTC
  if (opts.archs.empty())
    fail("--cuda-arch: no architecture given");
  std::vector<std::future<DeviceImage>> jobs;
  for (int sm : opts.archs)
    jobs.push_back(std::async(std::launch::async, nvrtc_compile, std::cref(source), sm, false));
  jobs.push_back(
      std::async(std::launch::async, nvrtc_compile, std::cref(source), opts.archs.back(), true));
  std::vector<DeviceImage> images;
  for (auto &j : jobs)
    images.push_back(j.get());
  return images;
#else
  (void)source;
  (void)opts;
  fail("this onnxc was built without the CUDA Toolkit (NVRTC), so it has no CUDA backend; "
       "install the CUDA Toolkit and rebuild onnxc, or compile for the CPU (--target cpu)");
#endif
}

CpuArtifactInfo compile_cuda(ExecutionPlan &plan, const CudaKernels &kernels,
                             const CpuCodegenOptions &host, const CudaCodegenOptions &opts,
                             const std::string &out_path) {
  if (host.emit != EmitKind::SharedLibrary)
    fail("--target cuda builds a shared library (--emit so)");
  if (!host.weights_file.empty())
    fail("--weights-file is not supported with --target cuda yet (the weights are embedded)");
  if (host.profile)
    fail("--profile is not supported with --target cuda yet");
  if (plan.batch || plan.extent)
    fail("run-time dims are not supported with --target cuda yet; bind every dim with --dim "
         "NAME=N or --shape");
  for (const PlannedCall &pc : plan.calls)
    if (!pc.run_time_data.empty()) // a Loop's scan outputs with a run-time trip count...
      fail("{}: values whose size the run decides (run-scoped data) are not supported with "
           "--target cuda yet; compile for the CPU (--target cpu), or give the trip count or "
           "size as a constant",
           pc.node_desc);
  kernels.drop_noop_copies(plan);
  const std::string source = kernels.source();
  if (!opts.source_path.empty())
    write_file_atomically(opts.source_path, source);
  auto start = std::chrono::steady_clock::now();
  DeviceCode device;
  device.images = compile_cuda_source(source, opts);
  device.kernels = kernels.names();
  device.launch_kernel = kCudaLaunchKernel;
  if (opts.time_passes)
    std::cerr << "onnxc: codegen nvrtc            "
              << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count()
              << " ms (" << device.kernels.size() << " kernels, " << device.images.size()
              << " images)\n";
  CpuCodegenOptions h = host;
  h.device = &device;
  return compile_cpu(plan, h, out_path);
}

} // namespace onnxc
