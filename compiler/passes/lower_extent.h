// Pass: lower-regions for a run-time extent (issue 8: run-time shapes). The extent is one
// symbol (a sequence length, or a batch that cannot run per sample) whose value only the inputs
// given to onnxc_run say; every symbolic dim of the graph is an expression over it.
//
// The CPU lowerings are written over static shapes (OpDef::lower reads static dims and
// computes typed params, scratch sizes and algorithm choices from them). Rather than a second,
// symbolic version of each, a region whose operands have symbolic dims is lowered once for
// every value s of the extent's declared range (--dim NAME=LO..HI), with its operands' types
// evaluated at s, and the results are merged exactly:
//  - consecutive values of s whose calls have the same kernel, tensors and derived weights form
//    one variant: a PlannedCall guarded by its [lo, hi] (an algorithm or operand-order choice
//    that changes with s gives several variants, run by a branch on s);
//  - each params word that varies within a variant becomes an ExtentWord: pieces, each exact
//    for a word affine or quadratic in s, found by checking every s; code computes the word
//    from s at run time;
//  - the scratch buffer is the largest over the variant.
// The generated code is therefore exactly what a build specialised for s would run, for every
// s in the range, with the constant words still folded by LLVM.
//
// Expects: form-regions' plan of a graph whose symbolic dims are over `symbol` only; no
// If/Loop/Scan region with symbolic operands.
// Guarantees: ExecutionPlan::calls as lower_regions gives them, plus guards and extent words;
// ExecutionPlan::extent set; every value's type static at the range's hi (what plan-memory
// sizes the arena for), after checking that no tensor is larger at a smaller s.
#pragma once

#include "compiler/passes/lower_regions.h"

#include <string>

namespace onnxc {

/// Most values of an extent onnxc lowers for (hi - lo + 1): each costs one lowering per region.
inline constexpr int64_t kMaxExtentValues = 1 << 16;

void lower_regions_extent(Graph &g, ExecutionPlan &plan, const RegionLowering &lower,
                          const std::string &symbol);

/// The value of word `w` at extent s (s within the word's pieces), with the wrapping int64
/// arithmetic the generated code uses.
int64_t extent_word_value(const ExtentWord &w, int64_t s);

} // namespace onnxc
