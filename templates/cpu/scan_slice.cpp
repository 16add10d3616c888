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

/// Before a loop with a scan output shaped by the run: t[0] names it; what an earlier value in
/// its slot left in the run's table is forgotten, so its first append starts a new buffer.
extern "C" int32_t onnxc_k_scan_begin(onnxc_rt *rt, void *const *t, const int64_t *) {
  onnxc_rt_forget(rt, t[0]);
  return 0;
}

/// Appends iteration i's slice to a scan output shaped by the run: its buffer (named by t[1],
/// the output's arena slot or graph output buffer) grows to hold i + 1 slices.
extern "C" int32_t onnxc_k_scan_append(onnxc_rt *rt, void *const *t, const int64_t *params) {
  auto p = onnxc_k::params_of<onnxc_k::ScanAppendParams>(params);
  const int64_t i = *static_cast<const int64_t *>(t[2]);
  uint64_t used, needed;
  if (i < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(i), static_cast<uint64_t>(p.slice_bytes),
                             &used) ||
      __builtin_add_overflow(used, static_cast<uint64_t>(p.slice_bytes), &needed))
    return onnxc_rt_fail(rt, ONNXC_STATUS_OUT_OF_MEMORY, "the scan output would be too large");
  auto *full = static_cast<char *>(onnxc_rt_grow_buffer(rt, t[1], used, needed));
  if (!full)
    return ONNXC_STATUS_OUT_OF_MEMORY;
  __builtin_memcpy(full + used, t[0], static_cast<size_t>(p.slice_bytes));
  return 0;
}

/// Records a run-shaped scan output's shape once its loop has ended: [iterations, dims...].
extern "C" int32_t onnxc_k_scan_finish(onnxc_rt *rt, void *const *t, const int64_t *params) {
  auto p = onnxc_k::params_of<onnxc_k::ScanFinishParams>(params);
  int64_t shape[8];
  shape[0] = *static_cast<const int64_t *>(t[0]);
  for (int64_t d = 0; d < p.rank && d < 7; ++d)
    shape[1 + d] = p.dims[d];
  onnxc_rt_set_shape(rt, t[1], static_cast<int32_t>(p.rank + 1), shape);
  return 0;
}
