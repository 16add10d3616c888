// A constant tensor: dtype, static shape and its bytes (little-endian, row-major, sub-byte types
// packed as ONNX packs them). Used for initializers, Constant nodes, attribute tensors and the
// values that constant folding computes.
#pragma once

#include "compiler/ir/dtype.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace onnxc {

class Tensor {
public:
  Tensor() = default;
  /// Zero-filled tensor of the given type and shape. Throws Error on size overflow.
  Tensor(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  /// Number of elements (product of dims; 1 for a scalar).
  int64_t numel() const;
  /// Size of the data in bytes.
  size_t nbytes() const { return bytes_.size(); }

  uint8_t *data() { return bytes_.data(); }
  const uint8_t *data() const { return bytes_.data(); }
  template <typename T> T *data_as() { return reinterpret_cast<T *>(bytes_.data()); }
  template <typename T> const T *data_as() const {
    return reinterpret_cast<const T *>(bytes_.data());
  }
  std::vector<uint8_t> &bytes() { return bytes_; }
  const std::vector<uint8_t> &bytes() const { return bytes_; }
  /// String elements (dtype String only; bytes() is empty then).
  std::vector<std::string> &strings() { return strings_; }
  const std::vector<std::string> &strings() const { return strings_; }

  /// Element i converted to int64 / double (integer, bool and float dtypes). Throws otherwise.
  int64_t int_at(int64_t i) const;
  double float_at(int64_t i) const;
  /// All elements as int64 (for shape-like tensors).
  std::vector<int64_t> to_int64_vector() const;

  /// Changes the shape to one with the same element count; throws Error otherwise.
  void reshape(std::vector<int64_t> shape);

  static Tensor scalar_i64(int64_t v);
  static Tensor vector_i64(const std::vector<int64_t> &v);

private:
  DType dtype_ = DType::Undefined;
  std::vector<int64_t> shape_;
  std::vector<uint8_t> bytes_;
  std::vector<std::string> strings_;
};

using TensorPtr = std::shared_ptr<const Tensor>;

/// Product of dims; throws Error on negative dims or overflow past 2^62.
int64_t checked_numel(const std::vector<int64_t> &shape);

} // namespace onnxc
