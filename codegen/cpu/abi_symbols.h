// The symbols a generated model library exports: the C ABI of runtime_stub/onnxc_runtime.h.
// Everything else in the library is internalized; each of these also gets a model-specific
// alias "<model_name>_<name without the onnxc_ prefix>" (e.g. mnist_create).
#pragma once

#include <array>
#include <string_view>

namespace onnxc {

/// Exported ABI entry points, all defined by the runtime stub bitcode.
inline constexpr std::array<std::string_view, 28> kCpuAbiSymbols = {
    "onnxc_abi_version",
    "onnxc_model_name",
    "onnxc_signature_json",
    "onnxc_arena_size",
    "onnxc_arena_alignment",
    "onnxc_arena_size_for",
    "onnxc_num_symbols",
    "onnxc_symbol",
    "onnxc_num_inputs",
    "onnxc_num_outputs",
    "onnxc_input_info",
    "onnxc_output_info",
    "onnxc_create",
    "onnxc_create_with_arena",
    "onnxc_create_with_weights",
    "onnxc_create_with_weights_buffer",
    "onnxc_destroy",
    "onnxc_set_num_threads",
    "onnxc_set_dynamic_limit",
    "onnxc_run",
    "onnxc_run_buffers",
    "onnxc_run_device",
    "onnxc_output_result",
    "onnxc_last_error",
    "onnxc_backend",
    "onnxc_profile_num_nodes",
    "onnxc_profile_node",
    "onnxc_profile_reset",
};

/// Prefix every ABI symbol starts with (replaced by "<model_name>_" in the aliases).
inline constexpr std::string_view kCpuAbiPrefix = "onnxc_";

/// Symbols the generated module defines for the runtime stub (runtime_stub/model_desc.h).
inline constexpr std::string_view kModelDescSymbol = "onnxc__model";
inline constexpr std::string_view kModelRunSymbol = "onnxc__model_run";
/// The run function of a run-time batch's tile plan (onnxc_model_desc::run_tile).
inline constexpr std::string_view kModelRunTileSymbol = "onnxc__model_run_tile";
/// Runtime helper the generated run function calls when a kernel returns a nonzero status.
inline constexpr std::string_view kNodeFailedSymbol = "onnxc_rt_node_failed";
/// Runtime helpers the run function of a profile build calls around the kernel calls.
inline constexpr std::string_view kProfileBeginSymbol = "onnxc_rt_profile_begin";
inline constexpr std::string_view kProfileNodeSymbol = "onnxc_rt_profile_node";
/// Runtime helpers of a run-time extent (ExecutionPlan::extent): the symbol's value in this run,
/// and a params word given as pieces (ExtentPiece).
inline constexpr std::string_view kSymbolValueSymbol = "onnxc_rt_symbol_value";
inline constexpr std::string_view kExtentWordSymbol = "onnxc_rt_extent_word";
/// Runtime helpers of values whose data lives in run-scoped memory (PlannedCall::run_time_data).
inline constexpr std::string_view kMarkDynamicSymbol = "onnxc_rt_mark_dynamic";
inline constexpr std::string_view kEndDynamicSymbol = "onnxc_rt_end_dynamic";
inline constexpr std::string_view kValueDataSymbol = "onnxc_rt_value_data";
inline constexpr std::string_view kAllocLikeSymbol = "onnxc_rt_alloc_like";
inline constexpr std::string_view kShapeNumelSymbol = "onnxc_rt_shape_numel";
inline constexpr std::string_view kShapeDimSymbol = "onnxc_rt_shape_dim";

} // namespace onnxc
