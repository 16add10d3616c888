#include "compiler/ir/tensor.h"
#include "compiler/ir/error.h"

#include <cmath>
#include <cstring>

namespace onnxc {

int64_t checked_numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      fail("tensor dimension {} is negative", d);
    if (d != 0 && n > (int64_t(1) << 62) / d)
      fail("tensor element count overflows (shape has {} dims)", shape.size());
    n *= d;
  }
  return n;
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  int64_t n = checked_numel(shape_);
  if (dtype_ == DType::String) {
    strings_.resize(static_cast<size_t>(n));
    return;
  }
  auto bytes = dtype_storage_bytes(dtype_, static_cast<uint64_t>(n));
  if (!bytes || *bytes > (uint64_t(1) << 40))
    fail("tensor of {} {} elements is too large", n, dtype_name(dtype_));
  bytes_.assign(static_cast<size_t>(*bytes), 0);
}

int64_t Tensor::numel() const { return checked_numel(shape_); }

template <typename T> static T load(const uint8_t *p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

/// A float element read as an integer; NaN, infinities and values outside int64 are errors
/// (converting them is undefined behaviour).
static int64_t float_to_int64(double v) {
  if (!(v >= -0x1p63 && v < 0x1p63))
    fail("the value {} cannot be used as an integer (a shape, axis or index tensor should have "
         "an integer type)",
         v);
  return static_cast<int64_t>(v);
}

/// Element i of a packed sub-byte integer tensor (`bits` 4 or 2, lowest bits first).
static int64_t packed_int(const uint8_t *p, int64_t i, int bits, bool is_signed) {
  const int per_byte = 8 / bits;
  const unsigned v = (p[i / per_byte] >> (bits * (i % per_byte))) & ((1u << bits) - 1);
  return is_signed && (v >> (bits - 1)) ? int64_t(v) - (int64_t(1) << bits) : int64_t(v);
}

int64_t Tensor::int_at(int64_t i) const {
  const uint8_t *p = bytes_.data();
  switch (dtype_) {
  case DType::Int4: return packed_int(p, i, 4, true);
  case DType::Uint4: return packed_int(p, i, 4, false);
  case DType::Int2: return packed_int(p, i, 2, true);
  case DType::Uint2: return packed_int(p, i, 2, false);
  case DType::Int64: return load<int64_t>(p, i);
  case DType::Int32: return load<int32_t>(p, i);
  case DType::Int16: return load<int16_t>(p, i);
  case DType::Int8: return load<int8_t>(p, i);
  case DType::Uint8: return load<uint8_t>(p, i);
  case DType::Bool: return load<uint8_t>(p, i) != 0;
  case DType::Uint16: return load<uint16_t>(p, i);
  case DType::Uint32: return load<uint32_t>(p, i);
  case DType::Uint64: return static_cast<int64_t>(load<uint64_t>(p, i));
  case DType::Float: return float_to_int64(load<float>(p, i));
  case DType::Double: return float_to_int64(load<double>(p, i));
  default: fail("cannot read a {} tensor as integers", dtype_name(dtype_));
  }
}

/// IEEE half / bfloat16 bits to double.
static double half_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v = exp == 0    ? std::ldexp(frac, -24)
             : exp == 31 ? (frac ? NAN : INFINITY)
                         : std::ldexp(frac + 1024, exp - 25);
  return sign ? -v : v;
}

static double bfloat16_to_double(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// A small float (float8 / float4) code to double: `ebits` exponent bits with `bias`, `mbits`
/// mantissa bits. `fnuz`: 0x80 is the only NaN and there is no infinity; otherwise e5m2 has
/// infinities, e4m3fn only NaN (all ones), float4e2m1 neither.
static double minifloat_to_double(unsigned code, int ebits, int mbits, int bias, bool fnuz) {
  const int width = 1 + ebits + mbits;
  const unsigned sign = (code >> (width - 1)) & 1u, mag = code & ((1u << (width - 1)) - 1);
  if (fnuz && sign && mag == 0)
    return NAN;
  if (!fnuz && width == 8) {
    const unsigned all = (1u << (width - 1)) - 1;
    if (ebits == 4 && mag == all)
      return NAN;
    if (ebits == 5 && mag >= (all & ~3u))
      return mag == (all & ~3u) ? (sign ? -INFINITY : INFINITY) : NAN;
  }
  const int exp = static_cast<int>(mag >> mbits), frac = static_cast<int>(mag & ((1u << mbits) - 1));
  const double v = exp == 0 ? std::ldexp(frac, 1 - bias - mbits)
                            : std::ldexp(frac + (1 << mbits), exp - bias - mbits);
  return sign ? -v : v;
}

double Tensor::float_at(int64_t i) const {
  const uint8_t *p = bytes_.data();
  switch (dtype_) {
  case DType::Float8E4M3FN: return minifloat_to_double(p[i], 4, 3, 7, false);
  case DType::Float8E4M3FNUZ: return minifloat_to_double(p[i], 4, 3, 8, true);
  case DType::Float8E5M2: return minifloat_to_double(p[i], 5, 2, 15, false);
  case DType::Float8E5M2FNUZ: return minifloat_to_double(p[i], 5, 2, 16, true);
  case DType::Float4E2M1:
    return minifloat_to_double((p[i / 2] >> (4 * (i % 2))) & 0xfu, 2, 1, 1, false);
  case DType::Float8E8M0: return p[i] == 0xff ? NAN : std::ldexp(1.0, int(p[i]) - 127);
  case DType::Float16: return half_to_double(load<uint16_t>(bytes_.data(), i));
  case DType::BFloat16: return bfloat16_to_double(load<uint16_t>(bytes_.data(), i));
  case DType::Float: return load<float>(bytes_.data(), i);
  case DType::Double: return load<double>(bytes_.data(), i);
  default: return static_cast<double>(int_at(i));
  }
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> v(static_cast<size_t>(numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = int_at(static_cast<int64_t>(i));
  return v;
}

void Tensor::reshape(std::vector<int64_t> shape) {
  if (checked_numel(shape) != numel())
    fail("cannot reshape a tensor of {} elements to {} elements", numel(), checked_numel(shape));
  shape_ = std::move(shape);
}

Tensor Tensor::scalar_i64(int64_t v) {
  Tensor t(DType::Int64, {});
  std::memcpy(t.data(), &v, sizeof v);
  return t;
}

Tensor Tensor::vector_i64(const std::vector<int64_t> &v) {
  Tensor t(DType::Int64, {static_cast<int64_t>(v.size())});
  if (!v.empty())
    std::memcpy(t.data(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

} // namespace onnxc
