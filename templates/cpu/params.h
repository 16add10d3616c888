/* Typed kernel parameters: the one definition shared by a lowering and its kernel.
 *
 * Each kernel family declares its parameter struct once, in a header under templates/cpu/ that
 * both sides include: the lowering (compiler/ops) fills it and stores it in the KernelCall with
 * onnxc::set_params(), the kernel reads it back with onnxc_k::params_of<P>(). The CPU backend
 * emits the struct as the call's constant global, so after inlining every field read folds to a
 * constant and LLVM specialises the kernel for the node. Tuning constants that decide a scratch
 * size or a code path (panel widths, small-M thresholds) live beside the struct, so the
 * compiler and the kernel cannot disagree.
 *
 * Layout rule (checked by params_of): fields are int64_t, double, or arrays / nested structs of
 * them, so a struct is a whole number of 8-byte words with no padding. No pointers, no bool. */
#ifndef ONNXC_PARAMS_H
#define ONNXC_PARAMS_H

#include <stdint.h>

namespace onnxc_k {

/// True for a type that may be a kernel parameter struct (see the layout rule above).
template <typename P> constexpr bool is_param_struct() {
  return __is_trivially_copyable(P) && sizeof(P) % 8 == 0 && alignof(P) == 8;
}

/// The parameter struct P stored at params (a copy: LLVM folds it when params is constant).
template <typename P> inline P params_of(const int64_t *params) {
  static_assert(is_param_struct<P>(), "kernel params: 8-byte fields only (int64_t, double)");
  P p;
  __builtin_memcpy(&p, params, sizeof p);
  return p;
}

/// Element k of an index tensor of int32 (idx_bytes 4) or int64 elements (Gather's indices,
/// Slice's starts, a scalar axis or step given at run time).
inline int64_t index_at(const void *idx, int64_t idx_bytes, int64_t k) {
  return idx_bytes == 4 ? static_cast<const int32_t *>(idx)[k]
                        : static_cast<const int64_t *>(idx)[k];
}

/// A fused activation epilogue (templates/cpu/activation.h): kind and its two arguments.
struct ActParams {
  int64_t kind;
  double a, b;
};

/// A sliding window over up to 3 spatial dims (leading dims padded: size 1, pad 0): Conv, the
/// pools. Filled by onnxc::window_geom() (compiler/ops/nn/nn_util.h).
struct WindowGeom {
  int64_t in[3], out[3], k[3], s[3], p[3], d[3], p_end[3]; ///< s: strides, p: pads, d: dilations
  constexpr int64_t in_size() const { return in[0] * in[1] * in[2]; }
  constexpr int64_t out_size() const { return out[0] * out[1] * out[2]; }
  constexpr int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

} // namespace onnxc_k

#endif
