/* The contract between the loss lowerings (compiler/ops/nn/loss.cpp: NegativeLogLikelihoodLoss,
 * SoftmaxCrossEntropyLoss) and their kernel onnxc_k_loss_<float>_<index> (templates/cpu/loss.cpp).
 * The input is viewed as [N, C, D] (D: the product of the dims after the class axis), the
 * target as [N, D]. */
#ifndef ONNXC_LOSS_PARAMS_H
#define ONNXC_LOSS_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// How the per-element losses are combined into the output.
enum LossReduction : int64_t {
  kLossNone = 0, ///< output [N, d1, ...]: one loss per target element
  kLossSum = 1,  ///< scalar: sum of the weighted losses
  kLossMean = 2, ///< scalar: sum of the weighted losses / sum of the weights used
};

/// Tensors: {input, target, weight (or null), loss, log_prob (or null), scratch (if any)}.
struct LossParams {
  int64_t N, C, D;
  int64_t reduction;  ///< LossReduction
  int64_t has_ignore; ///< 0/1: targets equal to ignore_index contribute nothing
  int64_t ignore_index;
  int64_t softmax;      ///< 1: SoftmaxCrossEntropyLoss (log-softmax over C first), 0: NLL
  int64_t has_log_prob; ///< 1: tensor 4 receives the log-probabilities (else scratch does)
};

/// Scratch bytes: the log-probabilities when they are computed but not an output.
constexpr int64_t loss_scratch_bytes(const LossParams &p, int64_t elem_bytes) {
  return p.softmax && !p.has_log_prob ? p.N * p.C * p.D * elem_bytes : 0;
}

} // namespace onnxc_k

#endif
