// ONNX test-data directories: input_N.pb / output_N.pb serialized TensorProtos.
#pragma once

#include "compiler/driver/model_library.h"
#include "compiler/frontend/tensor_proto.h"

#include <string>
#include <vector>

namespace onnxc {

/// Reads DIR/<prefix>_0.pb, DIR/<prefix>_1.pb, ... until one is missing.
std::vector<NamedTensor> read_data_set(const std::string &dir, const std::string &prefix);

/// Orders `tensors` as the library's inputs: by name where every tensor has a name that matches,
/// else by position. Checks the count.
std::vector<const Tensor *> match_inputs(const std::vector<TensorSignature> &sig,
                                         const std::vector<NamedTensor> &tensors,
                                         const std::string &dir);

/// Deterministic non-trivial input bytes for `s`: small floats for float tensors, pointers to
/// "" for string tensors, zeros otherwise (so index inputs stay in range). Used by bench and
/// profile without data.
std::vector<uint8_t> synthetic_input(const TensorSignature &s);

/// Worst element error of `got` against `want` (numpy.allclose rule |g-w| <= atol + rtol*|w|,
/// NaN equals NaN). `ok` is false on any mismatch, including dtype or shape.
struct Comparison {
  bool ok = true;
  double max_abs_error = 0;
  double max_rel_error = 0;
  int64_t mismatches = 0;
  std::string problem; ///< dtype/shape mismatch description
};
Comparison compare_tensors(const Tensor &got, const Tensor &want, double rtol, double atol);

} // namespace onnxc
