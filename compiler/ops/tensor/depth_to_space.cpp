// DepthToSpace (DCR or CRD mode, opset 11) and SpaceToDepth: NCHW rearrangements, each a 6-D
// transpose of a reshaped view, lowered to the strided copy (compiler/ops/tensor/strided_copy.h).
#include "compiler/ops/op_util.h"
#include "compiler/ops/tensor/strided_copy.h"

#include <algorithm>

namespace onnxc {

namespace {
/// The strided copy for viewing the input as `view` and permuting it by `perm`.
KernelCall transpose_call(const Node &n, const std::vector<int64_t> &view,
                          const std::vector<int64_t> &perm) {
  std::vector<int64_t> strides(view.size(), 1);
  for (size_t k = view.size() - 1; k-- > 0;)
    strides[k] = strides[k + 1] * view[k + 1];
  std::vector<int64_t> dims, pstrides;
  for (int64_t p : perm) {
    dims.push_back(view[static_cast<size_t>(p)]);
    pstrides.push_back(strides[static_cast<size_t>(p)]);
  }
  return strided_copy_call(n, 0, dims, pstrides);
}

/// Input dims (must be 4-D) and the block size.
std::vector<int64_t> nchw(const Node &n, int64_t &b) {
  std::vector<int64_t> in = input_dims(n, 0);
  if (in.size() != 4)
    node_fail(n, "input must be 4-D (NCHW), it is {}", dims_to_string(in));
  b = attr_int(n, "blocksize", 0);
  if (b <= 0)
    node_fail(n, "blocksize must be positive, it is {}", b);
  // Every product below (b * b, H * b, C * b * b) must fit in int64.
  int64_t check = 0;
  if (__builtin_mul_overflow(b, b, &check) ||
      __builtin_mul_overflow(std::max({in[1], in[2], in[3], int64_t(1)}), check, &check))
    node_fail(n, "blocksize {} is too large for the input {}", b, dims_to_string(in));
  return in;
}

bool is_crd(const Node &n) {
  std::string mode = n.opset >= 11 ? attr_string(n, "mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD")
    node_fail(n, "mode '{}' is not DCR or CRD", mode);
  return mode == "CRD";
}
} // namespace

const OpDef &op_DepthToSpace() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "DepthToSpace";
    d.batch_transparent = true;
    d.attrs = {{"blocksize", Attribute::Kind::Int, true}, {"mode", Attribute::Kind::String}};
    d.infer = [](Node &n) {
      int64_t b;
      std::vector<int64_t> in = nchw(n, b);
      is_crd(n);
      if (in[1] % (b * b) != 0)
        node_fail(n, "channels ({}) are not a multiple of blocksize^2 ({})", in[1], b * b);
      set_output(n, 0, input_dtype(n, 0), {in[0], in[1] / (b * b), in[2] * b, in[3] * b});
    };
    d.lower = [](const Node &n) {
      int64_t b;
      std::vector<int64_t> in = nchw(n, b);
      int64_t c = in[1] / (b * b);
      if (is_crd(n))
        return transpose_call(n, {in[0], c, b, b, in[2], in[3]}, {0, 1, 4, 2, 5, 3});
      return transpose_call(n, {in[0], b, b, c, in[2], in[3]}, {0, 3, 4, 1, 5, 2});
    };
    return d;
  }();
  return def;
}

const OpDef &op_SpaceToDepth() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "SpaceToDepth";
    d.batch_transparent = true;
    d.attrs = {{"blocksize", Attribute::Kind::Int, true}};
    d.infer = [](Node &n) {
      int64_t b;
      std::vector<int64_t> in = nchw(n, b);
      if (in[2] % b != 0 || in[3] % b != 0)
        node_fail(n, "height {} and width {} must be multiples of blocksize {}", in[2], in[3], b);
      set_output(n, 0, input_dtype(n, 0), {in[0], in[1] * b * b, in[2] / b, in[3] / b});
    };
    d.lower = [](const Node &n) {
      int64_t b;
      std::vector<int64_t> in = nchw(n, b);
      return transpose_call(n, {in[0], in[1], in[2] / b, b, in[3] / b, b}, {0, 3, 5, 1, 2, 4});
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
