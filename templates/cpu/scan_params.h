/* Scan slices: the parameters shared by the control-flow lowering
 * (compiler/passes/lower_control_flow.cpp) and templates/cpu/scan_slice.cpp. */
#ifndef ONNXC_SCAN_PARAMS_H
#define ONNXC_SCAN_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// One iteration's slice of a tensor viewed as [outer, len, inner_bytes]: slice position
/// `iteration` (from the end when reverse) along the middle axis. scatter: slice -> full (a
/// scan output); else full -> slice (a scan input).
struct ScanSliceParams {
  int64_t outer, len, inner_bytes;
  int64_t reverse, scatter;
};

/// A Loop's scan output whose length the run decides (a trip count computed at run time, or a
/// condition that may end the loop early): tensors {slice, full, iteration}; the full tensor's
/// buffer grows as iterations append their slices of `slice_bytes` (onnxc_k_scan_append).
struct ScanAppendParams {
  int64_t slice_bytes;
};

/// After such a loop: tensors {iteration, full}; records full's shape [iterations, dims...].
struct ScanFinishParams {
  int64_t rank; ///< of one slice
  int64_t dims[7];
};

} // namespace onnxc_k

#endif
