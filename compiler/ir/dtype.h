// Element types. The numbering is ONNX's TensorProto.DataType, so a dtype travels unchanged
// between the model file, the IR, the kernels and the runtime ABI (ONNXC_DTYPE_* in
// runtime_stub/onnxc_runtime.h uses the same numbers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace onnxc {

enum class DType : int32_t {
  Undefined = 0,
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
  Uint4 = 21,
  Int4 = 22,
  Float4E2M1 = 23,
  Float8E8M0 = 24,
  Uint2 = 25,
  Int2 = 26,
};

/// Largest ONNX data type number this IR knows.
constexpr int32_t kMaxDType = 26;

/// Size of one element in bits (4 for int4, 2 for int2, 0 for String/Undefined).
int dtype_bits(DType t);
/// Bits one element takes in a kernel buffer: dtype_bits, except String, whose elements are
/// `const char *` slots (64 bits: string tensors are supported on 64-bit targets only).
int dtype_slot_bits(DType t);
/// Bytes a kernel buffer of `count` elements needs (sub-byte types rounded up, strings as
/// pointer slots); nullopt on overflow.
std::optional<uint64_t> dtype_storage_bytes(DType t, uint64_t count);
/// ONNX spelling: "float", "int64", "float8e4m3fn", ...
std::string_view dtype_name(DType t);
/// Short kernel-name suffix: "f32", "i64", "u8", "bool", ... ("" if no kernel uses it).
std::string_view dtype_suffix(DType t);
/// True if `v` is a data type number this IR knows.
bool dtype_is_known(int32_t v);
bool dtype_is_float(DType t);   ///< float16/bfloat16/float/double (and float8 variants)
bool dtype_is_integer(DType t); ///< signed or unsigned integer types, not bool
bool dtype_is_signed(DType t);

} // namespace onnxc
