/* Copies one iteration's slice between a scan tensor and the loop body's per-iteration buffer
 * (Scan inputs and outputs, Loop scan outputs). params ScanSliceParams (scan_params.h); tensors
 * {slice, full, iteration (int64 scalar)}. */
#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scan_params.h"

extern "C" int32_t onnxc_k_scan_slice(onnxc_rt *rt, void *const *t, const int64_t *params) {
  auto p = onnxc_k::params_of<onnxc_k::ScanSliceParams>(params);
  int64_t i = *static_cast<const int64_t *>(t[2]);
  if (i < 0 || i >= p.len)
    return onnxc_rt_fail(rt, ONNXC_STATUS_INDEX_OUT_OF_RANGE, "scan iteration out of range");
  int64_t pos = p.reverse ? p.len - 1 - i : i;
  auto *slice = static_cast<char *>(t[0]);
  auto *full = static_cast<char *>(t[1]);
  size_t n = static_cast<size_t>(p.inner_bytes);
  for (int64_t o = 0; o < p.outer; ++o) {
    char *f = full + (o * p.len + pos) * p.inner_bytes;
    char *s = slice + o * p.inner_bytes;
    if (p.scatter)
      __builtin_memcpy(f, s, n);
    else
      __builtin_memcpy(s, f, n);
  }
  return 0;
}
