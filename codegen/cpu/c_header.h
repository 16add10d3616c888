// The typed C header NAME.h written next to each compiled model, and the signature JSON the model
// library embeds (onnxc_signature_json()). Both describe the ABI of runtime_stub/onnxc_runtime.h.
#pragma once

#include "compiler/passes/execution_plan.h"

#include <cstdint>
#include <string>

namespace onnxc {

/// `name` made a valid C identifier: every character other than [A-Za-z0-9_] becomes '_', a
/// leading digit gets a '_' prefix, and "" becomes "_". Identifiers are returned unchanged.
std::string sanitize_c_identifier(std::string name);

/// `s` as a JSON string literal (quotes, backslashes and control characters escaped).
std::string json_string(const std::string &s);

/// The model's signature, exactly what onnxc_signature_json() returns:
/// {"name":..,"abi_version":1,"arena_size":N,"inputs":[{"name":..,"dtype":"float",
/// "shape":[1,1,28,28]}],"outputs":[...]}. Throws Error if a graph input/output is not static.
std::string signature_json(const ExecutionPlan &plan);

/// Measured facts about the compiled artifact that NAME.h exports as constants.
struct HeaderFacts {
  uint64_t code_bytes = 0;       ///< NAME_CODE_SIZE: loaded bytes beyond the weights
  uint64_t stack_bytes = 0;      ///< NAME_STACK_SIZE: per-thread stack estimate
  bool external_weights = false; ///< NAME_WEIGHTS_EXTERNAL: compiled with --weights-file
};

/// The self-contained typed header NAME.h for plan.model_name: the ABI types (guarded so that it
/// combines with onnxc_runtime.h and other models' headers), NAME_* constants and shapes,
/// declarations of the per-model aliases NAME_create, NAME_create_with_arena, NAME_destroy,
/// NAME_set_num_threads, NAME_run, NAME_run_buffers, NAME_last_error,
/// NAME_create_with_weights[_buffer], and a typed `static inline NAME_infer(ctx, inputs...,
/// outputs...)`; the budget constants NAME_ARENA_SIZE, NAME_WEIGHTS_SIZE, NAME_CODE_SIZE,
/// NAME_STACK_SIZE. Throws Error on non-static shapes.
std::string write_c_header(const ExecutionPlan &plan, const HeaderFacts &facts = {});

} // namespace onnxc
