/* Activation epilogues fused into Conv and GEMM kernels (compiler/passes/fuse_activation.cpp).
 *
 * A fused node passes {kind, a (f64), b (f64)}; the kernel applies act(kind, a, b, y) to each
 * output element right where it stores the finished value, so the output is written once. The
 * expressions are exactly those of the stand-alone kernels (templates/cpu/elementwise.def,
 * where.cpp's Clip), so fusing does not change results.
 */
#ifndef ONNXC_ACTIVATION_H
#define ONNXC_ACTIVATION_H

#include "templates/cpu/kernel_abi.h"
#include "templates/cpu/scalar_math.h"

namespace onnxc_k {

/// Activation kinds; the numbers are part of the kernel parameters (compiler/ops/nn/nn_util.h).
enum ActKind : i64 {
  kActNone = 0,
  kActRelu = 1,
  kActClip = 2,      /* a = min, b = max (+-inf when absent) */
  kActLeakyRelu = 3, /* a = alpha */
  kActSigmoid = 4,
  kActHardSigmoid = 5, /* a = alpha, b = beta */
  kActHardSwish = 6,
  kActSilu = 7, /* x * Sigmoid(x) */
};

/// An activation with its parameters converted to T once.
template <typename T> struct Act {
  i64 kind = kActNone;
  T a = T(0), b = T(0);

  T operator()(T x) const {
    switch (kind) {
    case kActRelu:
      return x > T(0) ? x : T(0);
    case kActClip:
      if (x < a)
        x = a;
      if (x > b)
        x = b;
      return x;
    case kActLeakyRelu:
      return x >= T(0) ? x : a * x;
    case kActSigmoid:
      return T(1) / (T(1) + ex(-x));
    case kActHardSigmoid:
      return mx(T(0), mn(T(1), a * x + b));
    case kActHardSwish:
      return x * mx(T(0), mn(T(1), x / T(6) + T(0.5)));
    case kActSilu:
      return x * (T(1) / (T(1) + ex(-x)));
    default:
      return x;
    }
  }
};

/// Reads {kind, a, b} at params p[i], p[i+1], p[i+2].
template <typename T> inline Act<T> read_act(const i64 *p, int i) {
  Act<T> act;
  act.kind = p[i];
  act.a = T(param_f64(p, i + 1));
  act.b = T(param_f64(p, i + 2));
  return act;
}

} // namespace onnxc_k

#endif
