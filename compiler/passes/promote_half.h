// Half precision: float16 / bfloat16 computed in float32 where no kernel handles them natively.
//
// Used by infer-shapes (infer_shapes.cpp), node by node, because whether a node needs it depends
// on its inferred input types:
//  - A node with a float16/bfloat16 input runs natively when its shape rule accepts the types,
//    its lowering succeeds and the kernel it names exists (half_is_native): Cast, the
//    quantisation ops and every pure data-movement op (Reshape, Transpose, Concat, Slice,
//    Gather, ...), which works on 16-bit storage.
//  - Otherwise promote_to_float() rewrites it in place: each half input goes through a Cast to
//    float (one per value, shared by every promoted consumer), the node is inferred in float,
//    and each float output goes back through a Cast to the first half input's type, keeping the
//    original output value (name, uses, graph-output role). This is what the ONNX reference and
//    ONNX Runtime's CPU provider do: compute in float, round the result.
//  Every inserted Cast carries kHalfPromotionAttr. Limitation: an output that is float
//  regardless of the input type (LayerNormalization's stash-type statistics) is rounded to half
//  as well.
//
// Pass fuse-half-casts (optional, --disable-pass=fuse-half-casts):
// Expects: infer-shapes ran. Guarantees: no promotion Cast half->float reads the output of a
// promotion Cast float->half: consecutive promoted ops exchange float values, skipping the
// intermediate rounding to half (as ONNX Runtime's InsertCastTransformer does). The rounding
// Casts that still feed other users (graph outputs, native half ops) stay; dce drops the rest.
#pragma once

#include "compiler/ir/ir.h"

#include <functional>
#include <map>

namespace onnxc {

/// Attribute marking a Cast inserted by half promotion.
inline constexpr char kHalfPromotionAttr[] = "onnxc.half_promotion";

/// True if any input of n is float16 or bfloat16.
bool has_half_input(const Node &n);

/// True if n, inferred with its half inputs, lowers to a kernel this build has (or all its
/// outputs were folded to constants by that kernel).
bool half_is_native(const Node &n);

/// Rewrites nodes[k] to compute in float (see the file comment), inferring the inserted Casts and
/// the node with `infer`. Returns the index of the last node it inserted.
class HalfPromoter {
public:
  using InferFn = std::function<void(Node &)>;
  explicit HalfPromoter(Graph &g) : g_(g) {}
  size_t promote_to_float(size_t k, const InferFn &infer);
  /// Removes the values orphaned by the rewiring (call once, after the last promotion).
  void finish();

private:
  Node *insert_cast(size_t at, Value *in, DType to, const Node &for_node);
  Graph &g_;
  std::map<Value *, Value *> as_float_; ///< half value -> its promotion Cast's float output
  bool changed_ = false;
};

/// The fuse-half-casts pass; returns the number of Cast pairs bypassed.
int fuse_half_casts(Graph &g);

} // namespace onnxc
