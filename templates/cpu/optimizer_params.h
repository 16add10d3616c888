/* The ai.onnx.preview.training optimizers Adagrad, Momentum and Adam: one update step
 * (compiler/ops/training/optimizers.cpp; kernel templates/cpu/optimizer.cpp), computed in double.
 * tensors {R (scalar learning rate), T (int64 scalar step), X[n], G[n], S1[n], S2[n] (Adam
 * only), X_new[n], S1_new[n], S2_new[n] (Adam only)}: S1 is H (Adagrad) or V (Momentum, Adam),
 * S2 is Adam's H. Each output may be null when the model does not use it. */
#ifndef ONNXC_OPTIMIZER_PARAMS_H
#define ONNXC_OPTIMIZER_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// Most tensors one optimizer node may update (the size of OptimizerParams::sizes).
constexpr int64_t kMaxOptimizerTensors = 32;

/// Which update OptimizerParams::kind selects.
enum OptimizerKind : int64_t { kAdagrad = 0, kMomentum = 1, kNesterov = 2, kAdam = 3 };

struct OptimizerParams {
  int64_t kind, n;
  int64_t sizes[kMaxOptimizerTensors]; ///< element counts of X[i] (= G[i], S1[i], S2[i])
  double alpha, beta, epsilon, decay_factor, norm_coefficient, norm_coefficient_post;
};

/// Number of state tensors per X: 2 for Adam (V, H), else 1.
constexpr int64_t optimizer_states(int64_t kind) { return kind == kAdam ? 2 : 1; }

} // namespace onnxc_k

#endif
