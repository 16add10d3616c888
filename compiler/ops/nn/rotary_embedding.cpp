// RotaryEmbedding (opset 23): 4-D [B, H, L, Dh] or 3-D [B, L, H * Dh] input (num_heads), cos/sin
// caches [rows, R/2] with position_ids [B, L] or [B, L, R/2] without, rotary_embedding_dim R
// (default Dh), interleaved pairs. float, double, float16. Kernel: templates/cpu/rotary.cpp.
#include "compiler/ops/op_util.h"
#include "templates/cpu/attention_params.h"

namespace onnxc {
namespace {

/// Checks the caches (and position_ids) against the input and returns the cache row count.
int64_t check_caches(const Node &n, const onnxc_k::RotaryParams &p) {
  const std::vector<int64_t> c = input_dims(n, 1);
  if (input_dims(n, 2) != c)
    node_fail(n, "cos_cache {} and sin_cache {} must have the same shape", dims_to_string(c),
              dims_to_string(input_dims(n, 2)));
  if (p.has_pos) {
    if (input_dtype(n, 3) != DType::Int64 || input_dims(n, 3) != std::vector<int64_t>{p.B, p.L})
      node_fail(n, "position_ids must be int64 {}x{}", p.B, p.L);
    if (c.size() != 2 || c[1] != p.R / 2)
      node_fail(n, "with position_ids the caches must be [max_position, {}], got {}", p.R / 2,
                dims_to_string(c));
    return c[0];
  }
  if (c != std::vector<int64_t>{p.B, p.L, p.R / 2})
    node_fail(n, "without position_ids the caches must be {}x{}x{}, got {}", p.B, p.L, p.R / 2,
              dims_to_string(c));
  return p.B * p.L;
}

onnxc_k::RotaryParams rotary_params(const Node &n) {
  const std::vector<int64_t> x = input_dims(n, 0);
  onnxc_k::RotaryParams p{};
  if (x.size() == 4) {
    p.B = x[0], p.H = x[1], p.L = x[2], p.Dh = x[3];
  } else if (x.size() == 3) {
    const int64_t heads = attr_int(n, "num_heads", 0);
    if (heads < 1 || x[2] % heads != 0)
      node_fail(n, "3-D input {} needs a num_heads attribute dividing its last dim (got {})",
                dims_to_string(x), heads);
    p.B = x[0], p.L = x[1], p.H = heads, p.Dh = x[2] / heads, p.in_3d = 1;
  } else {
    node_fail(n, "input must be 3-D or 4-D, got {}", dims_to_string(x));
  }
  p.R = attr_int(n, "rotary_embedding_dim", 0);
  if (p.R == 0)
    p.R = p.Dh;
  if (p.R < 0 || p.R > p.Dh || p.R % 2 != 0)
    node_fail(n, "rotary_embedding_dim {} must be even and at most the head size {}", p.R, p.Dh);
  p.interleaved = attr_int(n, "interleaved", 0) != 0;
  p.has_pos = n.has_input(3);
  p.rows = check_caches(n, p);
  return p;
}

} // namespace

const OpDef &op_RotaryEmbedding() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "RotaryEmbedding";
    d.min_opset = 23;
    d.attrs = {{"interleaved", Attribute::Kind::Int},
               {"num_heads", Attribute::Kind::Int},
               {"rotary_embedding_dim", Attribute::Kind::Int}};
    d.infer = [](Node &n) {
      const DType dt = input_dtype(n, 0);
      require_dtype(n, dt, {DType::Float, DType::Double, DType::Float16});
      require_inputs_dtype(n, dt, 1, 3);
      rotary_params(n);
      set_output(n, 0, dt, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      KernelCall call;
      call.kernel = kernel_name(n, "rotary_embedding", input_dtype(n, 0));
      call.args = {n.inputs[0], n.inputs[1], n.inputs[2], n.input(3), n.outputs[0]};
      set_params(call, rotary_params(n));
      return call;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
