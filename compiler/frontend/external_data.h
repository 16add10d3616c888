// Tensors stored outside the model file (TensorProto.data_location == EXTERNAL).
//
// Only files inside the model's directory may be read: absolute locations, any `..` component
// and symlinks or paths whose canonical form leaves the directory are refused, so a model cannot
// make the compiler read arbitrary files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace onnxc {

/// Reads the bytes of an external-data tensor (keys `location`, `offset`, `length`; `checksum`
/// is ignored). `base_dir` is the model's directory (empty: the model came from memory and has
/// none, so external data is refused); `origin` names the model file in messages. Throws Error
/// naming the file, the tensor and the reason.
std::vector<uint8_t> read_external_data(const onnx::TensorProto &tensor,
                                        const std::string &base_dir, const std::string &origin);

} // namespace onnxc
