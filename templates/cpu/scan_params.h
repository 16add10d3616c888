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

} // namespace onnxc_k

#endif
