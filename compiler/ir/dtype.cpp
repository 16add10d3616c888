#include "compiler/ir/dtype.h"

namespace onnxc {
namespace {
struct DTypeInfo {
  std::string_view name;
  std::string_view suffix;
  int bits;
};

// Indexed by the ONNX data type number.
constexpr DTypeInfo kInfo[] = {
    {"undefined", "", 0},      {"float", "f32", 32},        {"uint8", "u8", 8},
    {"int8", "i8", 8},         {"uint16", "u16", 16},       {"int16", "i16", 16},
    {"int32", "i32", 32},      {"int64", "i64", 64},        {"string", "", 0},
    {"bool", "bool", 8},       {"float16", "f16", 16},      {"double", "f64", 64},
    {"uint32", "u32", 32},     {"uint64", "u64", 64},       {"complex64", "", 64},
    {"complex128", "", 128},   {"bfloat16", "bf16", 16},    {"float8e4m3fn", "", 8},
    {"float8e4m3fnuz", "", 8}, {"float8e5m2", "", 8},       {"float8e5m2fnuz", "", 8},
    {"uint4", "", 4},          {"int4", "", 4},             {"float4e2m1", "", 4},
    {"float8e8m0", "", 8},     {"uint2", "", 2},            {"int2", "", 2},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == kMaxDType + 1);

const DTypeInfo &info(DType t) {
  auto i = static_cast<int32_t>(t);
  return kInfo[dtype_is_known(i) ? i : 0];
}
} // namespace

bool dtype_is_known(int32_t v) { return v >= 0 && v <= kMaxDType; }
int dtype_bits(DType t) { return info(t).bits; }
std::string_view dtype_name(DType t) { return info(t).name; }
std::string_view dtype_suffix(DType t) { return info(t).suffix; }

int dtype_slot_bits(DType t) { return t == DType::String ? 64 : dtype_bits(t); }

std::optional<uint64_t> dtype_storage_bytes(DType t, uint64_t count) {
  uint64_t bits = static_cast<uint64_t>(dtype_slot_bits(t));
  if (count != 0 && bits > UINT64_MAX / count)
    return std::nullopt;
  return (bits * count + 7) / 8;
}

bool dtype_is_float(DType t) {
  switch (t) {
  case DType::Float:
  case DType::Double:
  case DType::Float16:
  case DType::BFloat16:
  case DType::Float8E4M3FN:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2:
  case DType::Float8E5M2FNUZ:
  case DType::Float8E8M0:
  case DType::Float4E2M1:
    return true;
  default:
    return false;
  }
}

bool dtype_is_signed(DType t) {
  switch (t) {
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::Int4:
  case DType::Int2:
    return true;
  default:
    return false;
  }
}

bool dtype_is_integer(DType t) {
  switch (t) {
  case DType::Uint8:
  case DType::Uint16:
  case DType::Uint32:
  case DType::Uint64:
  case DType::Uint4:
  case DType::Uint2:
    return true;
  default:
    return dtype_is_signed(t);
  }
}

} // namespace onnxc
