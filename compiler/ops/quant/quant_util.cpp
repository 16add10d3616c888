#include "compiler/ops/quant/quant_util.h"

namespace onnxc {

void require_quantized_dtype(const Node &n, DType dt, const char *what) {
  switch (dt) {
  case DType::Uint8:
  case DType::Int8:
  case DType::Uint16:
  case DType::Int16:
  case DType::Uint4:
  case DType::Int4:
  case DType::Uint2:
  case DType::Int2:
  case DType::Float8E4M3FN:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2:
  case DType::Float8E5M2FNUZ:
  case DType::Float4E2M1:
    return;
  default:
    node_fail(n,
              "{} element type {} is not supported (supported: (u)int8, (u)int16, (u)int4, "
              "(u)int2, float8e4m3fn(uz), float8e5m2(fnuz), float4e2m1)",
              what, dtype_name(dt));
  }
}

std::vector<int64_t> scale_layout(const Node &n, const std::vector<int64_t> &x,
                                  const std::vector<int64_t> &scale, int64_t axis,
                                  int64_t block_size) {
  const int64_t rank = static_cast<int64_t>(x.size()), total = product(x);
  if (block_size < 0)
    node_fail(n, "block_size must be >= 0, got {}", block_size);
  if (product(scale) == 1 && block_size == 0) // per-tensor
    return {1, 1, total, 1, 0, 0, 0};
  if (rank == 0)
    node_fail(n, "a scalar input needs a single-element scale, got shape {}",
              dims_to_string(scale));
  const int64_t ax = normalize_axis(n, axis, rank);
  const int64_t A = x[ax];
  const int64_t outer = product(std::vector<int64_t>(x.begin(), x.begin() + ax));
  const int64_t inner = product(std::vector<int64_t>(x.begin() + ax + 1, x.end()));
  if (block_size == 0) {
    if (scale != std::vector<int64_t>{A})
      node_fail(n,
                "per-axis scale must be 1-D with {} elements (input dim {} along axis {}), got {}",
                A, A, ax, dims_to_string(scale));
    return {outer, A, inner, 1, 0, 1, 0};
  }
  std::vector<int64_t> want = x;
  want[ax] = A / block_size + (A % block_size != 0); // ceil, without overflow
  if (scale != want)
    node_fail(n,
              "blocked scale must have shape {} (input {} with block_size {} on axis {}), got {}",
              dims_to_string(want), dims_to_string(x), block_size, ax, dims_to_string(scale));
  return {outer, A, inner, block_size, want[ax] * inner, inner, 1};
}

void require_same_layout(const Node &n, size_t scale, size_t zp) {
  if (!n.has_input(zp))
    return;
  std::vector<int64_t> s = input_dims(n, scale), z = input_dims(n, zp);
  if (s != z && !(product(s) == 1 && product(z) == 1))
    node_fail(n, "zero point shape {} differs from scale shape {}", dims_to_string(z),
              dims_to_string(s));
}

bool per_element(const Node &n, size_t i, int64_t count, const char *what) {
  std::vector<int64_t> d = input_dims(n, i);
  const int64_t elems = product(d);
  if (elems == 1)
    return false;
  int64_t non_unit = 0;
  for (int64_t v : d)
    non_unit += v != 1;
  if (elems != count || non_unit != 1)
    node_fail(n, "{} must have 1 or {} elements, got shape {}", what, count, dims_to_string(d));
  return true;
}

int64_t int_gemm_scratch(int64_t a_rows, int64_t b_count, int64_t K, int64_t N) {
  const int64_t pairs = (K + 1) / 2, panels = (N + 15) / 16;
  return std::max<int64_t>(64, b_count * panels * pairs * 64 + a_rows * pairs * 4);
}

} // namespace onnxc
