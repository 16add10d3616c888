/* The random ops' contract between their lowerings (compiler/ops/math/random.cpp) and the one
 * kernel family that draws their values (templates/cpu/random.cpp).
 *
 * Every draw is a counter-based hash: element i of a node's output gets the bits
 * random_bits(key, i), where key mixes the seed (or, without a `seed` attribute, a per-call
 * nonce) with the node's stream (a hash of its output's name, unique in the model). No generator state is carried between elements, so
 * the chunks of a parallel_for are independent and the values do not depend on the thread
 * count. */
#ifndef ONNXC_RANDOM_PARAMS_H
#define ONNXC_RANDOM_PARAMS_H

#include "templates/cpu/params.h"

namespace onnxc_k {

/// What the kernel draws.
enum RandomKind : int64_t {
  kRandomUniform = 0,     ///< low + (high - low) * U[0, 1): a = low, b = high
  kRandomNormal = 1,      ///< mean + scale * N(0, 1) (Box-Muller): a = mean, b = scale
  kRandomBernoulli = 2,   ///< 1 if U[0, 1) < p else 0, p the input element
  kRandomMultinomial = 3, ///< class index by inverse CDF of softmax(input row)
};

/// Tensors: uniform/normal {Y}; Bernoulli {P, Y}; Multinomial {X [batch, classes],
/// Y [batch, samples], scratch}. Dtypes are ONNX TensorProto numbers (1 float, 10 float16,
/// 11 double, 16 bfloat16, 6 int32, 7 int64, ...).
struct RandomParams {
  int64_t kind;      ///< RandomKind
  int64_t in_dtype;  ///< Bernoulli / Multinomial input dtype (0 for no input)
  int64_t out_dtype; ///< output dtype
  int64_t seeded;    ///< 1: key from seed_bits (same values every run); 0: a fresh nonce per call
  int64_t seed_bits; ///< bit pattern of the `seed` attribute (a float) widened to double
  int64_t node;      ///< the node's stream (output name hash): one stream per node
  int64_t count;     ///< output elements (uniform, normal, Bernoulli); Multinomial: batch
  int64_t classes;   ///< Multinomial: classes per row
  int64_t samples;   ///< Multinomial: samples per row
  double a, b;       ///< see RandomKind
};

/// Scratch bytes: Multinomial's cumulative class weights per row, in double.
constexpr int64_t random_scratch_bytes(const RandomParams &p) {
  return p.kind == kRandomMultinomial ? p.count * p.classes * 8 : 0;
}

/// The splitmix64 finaliser: a bijective 64-bit mix.
constexpr uint64_t random_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A node's key from its seed (or nonce) and index.
constexpr uint64_t random_key(uint64_t seed, uint64_t node) {
  return random_mix(random_mix(seed ^ 0x6a09e667f3bcc909ull) + node * 0x9e3779b97f4a7c15ull);
}

/// The 64 random bits of counter `i` under `key` (splitmix64's i-th output for seed `key`).
constexpr uint64_t random_bits(uint64_t key, uint64_t i) {
  return random_mix(key + (i + 1) * 0x9e3779b97f4a7c15ull);
}

} // namespace onnxc_k

#endif
