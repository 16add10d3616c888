// Writes the typed C header NAME.h and the signature JSON of a compiled model.
#include "codegen/cpu/c_header.h"

#include "compiler/ir/error.h"
#include "runtime_stub/onnxc_runtime.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <set>

namespace onnxc {
namespace {

/// The types block of runtime_stub/onnxc_runtime.h (same guard), extracted at build time
/// (codegen/cpu/CMakeLists.txt), so that NAME.h is self-contained and can be included together
/// with onnxc_runtime.h in any order.
constexpr const char *kAbiTypes =
#include "abi_types_block.inc"
    ;

/// The model's functions that codegen exports as aliases NAME_<fn> of the generic ABI.
constexpr const char *kAliasDecls =
    R"ONNXC(/// Creates a context and allocates its arena (aliases onnxc_create).
onnxc_status @N@_create(onnxc_context **out);
/// Creates a context on a caller-owned arena of at least @M@_ARENA_SIZE bytes aligned to
/// @M@_ARENA_ALIGNMENT (aliases onnxc_create_with_arena).
onnxc_status @N@_create_with_arena(void *arena, uint64_t arena_bytes, onnxc_context **out);
/// Creates a context for a model compiled with --weights-file (@M@_WEIGHTS_EXTERNAL 1): maps
/// the weights file at `path` read-only and checks that it holds this model's weights
/// (aliases onnxc_create_with_weights).
onnxc_status @N@_create_with_weights(const char *path, onnxc_context **out);
/// Like @N@_create_with_weights on a caller-owned, 64-byte-aligned copy of the whole weights
/// file that outlives the context (aliases onnxc_create_with_weights_buffer).
onnxc_status @N@_create_with_weights_buffer(const void *data, uint64_t size,
    onnxc_context **out);
/// Destroys a context; NULL is ignored (aliases onnxc_destroy).
void @N@_destroy(onnxc_context *ctx);
/// Sets the number of threads (1 = the caller's only) (aliases onnxc_set_num_threads).
onnxc_status @N@_set_num_threads(onnxc_context *ctx, int32_t n);
/// Caps the bytes one run may allocate for string results, default 256 MiB (aliases
/// onnxc_set_dynamic_limit).
onnxc_status @N@_set_dynamic_limit(onnxc_context *ctx, uint64_t bytes);
/// Runs on described tensors, validating them (aliases onnxc_run).
onnxc_status @N@_run(onnxc_context *ctx, const onnxc_tensor *inputs, int32_t num_inputs,
    onnxc_tensor *outputs, int32_t num_outputs);
/// An output's result kept by the last run, for an output with a run-time count (aliases
/// onnxc_output_result).
onnxc_status @N@_output_result(const onnxc_context *ctx, int32_t i, onnxc_tensor *out);
/// Runs on raw buffers of the declared shapes (aliases onnxc_run_buffers).
onnxc_status @N@_run_buffers(onnxc_context *ctx, const void *const *inputs,
    void *const *outputs);
/// --target cuda: runs on device buffers of the declared shapes, enqueued on `stream` (a
/// CUstream / cudaStream_t; NULL: the default stream) without waiting (aliases
/// onnxc_run_device).
onnxc_status @N@_run_device(onnxc_context *ctx, void *stream, const void *const *inputs,
    void *const *outputs);
/// The last error of `ctx`, or of the last failed create on this thread if ctx is NULL
/// (aliases onnxc_last_error).
const char *@N@_last_error(const onnxc_context *ctx);
/// Where the context runs the model: "cuda" or "cpu" (a --target cpu,cuda library runs on the
/// GPU when one was usable at create) (aliases onnxc_backend).
const char *@N@_backend(const onnxc_context *ctx);
)ONNXC";

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

std::string upper(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// A C string literal's contents for a comment: keeps it printable and free of "*/".
std::string comment_text(const std::string &s) {
  std::string out;
  for (unsigned char c : s)
    out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  return replace_all(out, "*/", "*_/");
}

/// C element type of a dtype as the typed header exposes it ("void" if it has none).
const char *c_element_type(DType t) {
  switch (t) {
  case DType::Float:
    return "float";
  case DType::Double:
    return "double";
  case DType::Int8:
    return "int8_t";
  case DType::Int16:
    return "int16_t";
  case DType::Int32:
    return "int32_t";
  case DType::Int64:
    return "int64_t";
  case DType::Uint8:
    return "uint8_t";
  case DType::Bool:
    return "uint8_t";
  case DType::Uint16:
    return "uint16_t";
  case DType::Float16:
    return "uint16_t";
  case DType::BFloat16:
    return "uint16_t";
  case DType::Uint32:
    return "uint32_t";
  case DType::Uint64:
    return "uint64_t";
  default:
    return "void";
  }
}

/// What the header needs to know about one graph input or output.
struct TensorSig {
  std::string name;
  DType dtype;
  std::vector<int64_t> dims;
  uint64_t elements = 1;
  uint64_t bytes = 0;
  std::string macro_id; ///< unique upper-case identifier for NAME_INPUT_<ID>
  std::string param;    ///< unique parameter name of NAME_infer
  /// Per dim: the model's symbol it is (run-time batch or extent; dims is -1 there), or "".
  /// elements and bytes count such a dim as 1 (per sample, per unit of the extent).
  std::vector<std::string> syms;
  bool symbolic() const {
    return std::any_of(syms.begin(), syms.end(), [](const std::string &s) { return !s.empty(); });
  }
};

TensorSig describe_value(const Value &v, const char *what, size_t index,
                         std::vector<std::string> syms) {
  TensorSig t;
  t.name = v.name;
  t.dtype = v.type.dtype;
  try {
    t.dims = v.type.static_dims();
  } catch (const Error &e) {
    fail("{} {} ('{}'): {}; bind every dimension to compile the C header", what, index, v.name,
         e.what());
  }
  syms.resize(t.dims.size());
  for (size_t k = 0; k < t.dims.size(); ++k)
    if (!syms[k].empty())
      t.dims[k] = -1;
  for (int64_t d : t.dims)
    t.elements *= static_cast<uint64_t>(d < 0 ? 1 : d);
  auto bytes = dtype_storage_bytes(t.dtype, t.elements);
  if (!bytes)
    fail("{} {} ('{}'): its size in bytes overflows", what, index, v.name);
  t.bytes = *bytes;
  t.syms = std::move(syms);
  return t;
}

/// Signatures of `values`, with identifiers made unique within the list.
std::vector<TensorSig> describe_values(const ExecutionPlan &plan, bool inputs) {
  const std::vector<Value *> &values = inputs ? plan.inputs : plan.outputs;
  const char *what = inputs ? "input" : "output", *param_prefix = inputs ? "in_" : "out_";
  std::vector<TensorSig> out;
  std::set<std::string> macro_ids, params;
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<std::string> syms;
    if (inputs ? plan.batched_input(i) : plan.batched_output(i))
      syms = {plan.batch->symbol};
    if (plan.extent) {
      const auto &flags = inputs ? plan.extent->inputs : plan.extent->outputs;
      for (size_t k = 0; i < flags.size() && k < flags[i].size(); ++k)
        if (flags[i][k]) {
          syms.resize(std::max(syms.size(), k + 1));
          syms[k] = plan.extent->symbol;
        }
    }
    TensorSig t = describe_value(*values[i], what, i, std::move(syms));
    std::string id = sanitize_c_identifier(t.name);
    t.macro_id = upper(id);
    if (!macro_ids.insert(t.macro_id).second)
      macro_ids.insert(t.macro_id += fmt::format("_{}", i));
    t.param = param_prefix + id;
    if (!params.insert(t.param).second)
      params.insert(t.param += fmt::format("_{}", i));
    out.push_back(std::move(t));
  }
  return out;
}

std::string join_dims(const std::vector<int64_t> &dims) {
  return fmt::format("{}", fmt::join(dims, ", "));
}

std::string tensor_json(const TensorSig &t) {
  return fmt::format(R"({{"name":{},"dtype":"{}","shape":[{}]}})", json_string(t.name),
                     dtype_name(t.dtype), fmt::join(t.dims, ","));
}

std::string tensors_json(const std::vector<TensorSig> &ts) {
  std::vector<std::string> parts;
  for (const TensorSig &t : ts)
    parts.push_back(tensor_json(t));
  return fmt::format("[{}]", fmt::join(parts, ","));
}

/// "float 1x3x224x224" (or "float batchx3x224x224") for the header's summary comment.
std::string summary(const TensorSig &t) {
  std::vector<std::string> dims;
  for (size_t k = 0; k < t.dims.size(); ++k)
    dims.push_back(t.dims[k] < 0 ? t.syms[k] : std::to_string(t.dims[k]));
  return fmt::format("{} {}", dtype_name(t.dtype),
                     dims.empty() ? "scalar" : fmt::format("{}", fmt::join(dims, "x")));
}

/// The C parameter of NAME_infer that gives a run-time dim.
std::string sym_param(const std::string &symbol) { return "sym_" + sanitize_c_identifier(symbol); }

/// True if `symbol` is the plan's run-time count (set by the run, not given by the caller).
bool is_count(const ExecutionPlan &plan, const std::string &symbol) {
  return plan.extent && plan.extent->count && plan.extent->symbol == symbol;
}

/// Constants of one tensor: NAME_INPUT_<ID> index, _DTYPE, _RANK, _SIZE, _BYTES, _SHAPE.
std::string tensor_constants(const std::string &m, const char *kind, size_t i, const TensorSig &t) {
  std::string p = fmt::format("{}_{}_{}", m, kind, i);
  std::string s = fmt::format("/* {} {}: '{}', {}{} */\n", kind[0] == 'I' ? "input" : "output", i,
                              comment_text(t.name), summary(t),
                              t.symbolic() ? "; _SIZE and _BYTES count each run-time dim (-1 in "
                                             "_SHAPE) as 1"
                                           : "");
  s += fmt::format("#define {}_{}_{} {}\n", m, kind, t.macro_id, i);
  s += fmt::format("#define {}_DTYPE {} /* {} */\n", p, static_cast<int32_t>(t.dtype),
                   dtype_name(t.dtype));
  s += fmt::format("#define {}_RANK {}\n", p, t.dims.size());
  s += fmt::format("#define {}_SIZE {}\n", p, t.elements);
  s += fmt::format("#define {}_BYTES {}\n", p, t.bytes);
  if (t.dims.empty())
    s += fmt::format("static const int64_t {}_SHAPE[1] = {{0}}; /* rank 0: no dims */\n\n", p);
  else
    s += fmt::format("static const int64_t {}_SHAPE[{}] = {{{}}};\n\n", p, t.dims.size(),
                     join_dims(t.dims));
  return s;
}

/// `{data, bytes, dtype, rank, {dims}}`: one onnxc_tensor of NAME_infer for a model with
/// run-time dims (an output with a run-time count: a buffer for the count's max).
std::string tensor_initializer(const ExecutionPlan &plan, const TensorSig &t,
                               const std::string &data) {
  std::vector<std::string> dims;
  std::string bytes = fmt::format("{}u", t.bytes);
  for (size_t k = 0; k < t.dims.size(); ++k) {
    const bool count = t.dims[k] < 0 && is_count(plan, t.syms[k]);
    dims.push_back(count ? "0" : t.dims[k] < 0 ? sym_param(t.syms[k]) : std::to_string(t.dims[k]));
    if (count)
      bytes += fmt::format(" * {}u", plan.extent->range.hi - 1);
    else if (t.dims[k] < 0)
      bytes += " * (uint64_t)" + sym_param(t.syms[k]);
  }
  if (dims.empty())
    dims.push_back("0");
  return fmt::format("{{(void *){}, {}, {}, {}, {{{}}}}}", data, bytes,
                     static_cast<int32_t>(t.dtype), t.dims.size(), fmt::join(dims, ", "));
}

/// NAME_infer of a model with run-time dims: takes their values and runs NAME_run.
std::string infer_function_symbolic(const std::string &n, const ExecutionPlan &plan,
                                    const std::vector<TensorSig> &ins,
                                    const std::vector<TensorSig> &outs) {
  std::vector<std::string> params{"onnxc_context *ctx"}, in_args, out_args, names;
  std::string count; // the count's out-parameter, if the model has one
  for (const auto &sym : plan.symbols()) {
    if (is_count(plan, sym.first)) {
      count = sanitize_c_identifier(sym.first);
      continue;
    }
    params.push_back("int64_t " + sym_param(sym.first));
    names.push_back(sym_param(sym.first));
  }
  for (const TensorSig &t : ins) {
    params.push_back(fmt::format("const {} *{}", c_element_type(t.dtype), t.param));
    in_args.push_back(tensor_initializer(plan, t, t.param));
  }
  // An output dim that is the count: the first one found, reported through `count`.
  std::string count_at;
  for (size_t i = 0; i < outs.size(); ++i) {
    const TensorSig &t = outs[i];
    params.push_back(fmt::format("{} *{}", c_element_type(t.dtype), t.param));
    out_args.push_back(tensor_initializer(plan, t, t.param));
    for (size_t k = 0; k < t.syms.size() && count_at.empty() && !count.empty(); ++k)
      if (t.dims[k] < 0 && is_count(plan, t.syms[k]))
        count_at = fmt::format("onnxc_out_[{}].shape[{}]", i, k);
  }
  if (!count.empty())
    params.push_back("int64_t *" + count);
  std::string s =
      names.empty()
          ? "/// Runs the model on typed buffers of the declared shapes"
          : fmt::format("/// Runs the model on typed buffers of the declared shapes with {} where "
                        "the shape has\n/// -1",
                        fmt::join(names, ", "));
  s += fmt::format(" (bool as uint8_t, float16 and bfloat16 as uint16_t bits). Returns what "
                   "{}_run returns.\n",
                   n);
  if (!count.empty())
    s += fmt::format("/// Outputs with the run-time count hold {}_COUNT_MAX entries along it; "
                     "the run's count is\n/// stored in *{} (if not NULL) when the run "
                     "succeeds.\n",
                     upper(n), count);
  s += fmt::format("static inline onnxc_status {}_infer(\n    {}) {{\n", n,
                   fmt::join(params, ",\n    "));
  s += fmt::format("  onnxc_tensor onnxc_in_[{}] = {{\n      {}}};\n",
                   std::max<size_t>(ins.size(), 1),
                   in_args.empty() ? "{0}" : fmt::format("{}", fmt::join(in_args, ",\n      ")));
  s += fmt::format("  onnxc_tensor onnxc_out_[{}] = {{\n      {}}};\n",
                   std::max<size_t>(outs.size(), 1),
                   out_args.empty() ? "{0}" : fmt::format("{}", fmt::join(out_args, ",\n      ")));
  if (count.empty()) {
    s += fmt::format("  return {}_run(ctx, onnxc_in_, {}, onnxc_out_, {});\n}}\n", n, ins.size(),
                     outs.size());
    return s;
  }
  s += fmt::format("  onnxc_status onnxc_st_ = {}_run(ctx, onnxc_in_, {}, onnxc_out_, {});\n", n,
                   ins.size(), outs.size());
  if (!count_at.empty())
    s += fmt::format("  if (onnxc_st_ == ONNXC_OK && {0})\n    *{0} = {1};\n", count, count_at);
  s += "  return onnxc_st_;\n}\n";
  return s;
}

/// The typed convenience function NAME_infer.
std::string infer_function(const std::string &n, const std::vector<TensorSig> &ins,
                           const std::vector<TensorSig> &outs) {
  std::vector<std::string> params{"onnxc_context *ctx"}, in_args, out_args;
  for (const TensorSig &t : ins) {
    params.push_back(t.dtype == DType::String
                         ? fmt::format("const char *const *{}", t.param)
                         : fmt::format("const {} *{}", c_element_type(t.dtype), t.param));
    in_args.push_back(t.param);
  }
  for (const TensorSig &t : outs) {
    params.push_back(t.dtype == DType::String
                         ? fmt::format("const char **{}", t.param)
                         : fmt::format("{} *{}", c_element_type(t.dtype), t.param));
    out_args.push_back(t.param);
  }
  if (in_args.empty())
    in_args.push_back("0");
  if (out_args.empty())
    out_args.push_back("0");
  std::string s =
      "/// Runs the model on typed buffers of the declared shapes (bool as uint8_t, float16 and\n"
      "/// bfloat16 as uint16_t bits). Returns what " +
      n + "_run_buffers returns.\n";
  s += fmt::format("static inline onnxc_status {}_infer(\n    {}) {{\n", n,
                   fmt::join(params, ",\n    "));
  s += fmt::format("  const void *const onnxc_in_[{}] = {{{}}};\n", in_args.size(),
                   fmt::join(in_args, ", "));
  s += fmt::format("  void *const onnxc_out_[{}] = {{{}}};\n", out_args.size(),
                   fmt::join(out_args, ", "));
  s += fmt::format("  return {}_run_buffers(ctx, onnxc_in_, onnxc_out_);\n}}\n", n);
  return s;
}

} // namespace

std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += fmt::format("\\{}", static_cast<char>(c));
    else if (c < 0x20)
      out += fmt::format("\\u{:04x}", c);
    else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string sanitize_c_identifier(std::string name) {
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name.insert(name.begin(), '_');
  return name;
}

std::string signature_json(const ExecutionPlan &plan) {
  auto ins = describe_values(plan, true);
  auto outs = describe_values(plan, false);
  std::string symbols;
  std::vector<std::string> syms;
  for (const auto &sym : plan.symbols())
    syms.push_back(fmt::format(R"({{"name":{},"min":{},"max":{}{}}})", json_string(sym.first),
                               sym.second.lo, sym.second.hi,
                               is_count(plan, sym.first) ? R"(,"count":true)" : ""));
  if (!syms.empty())
    symbols = fmt::format(R"(,"symbols":[{}])", fmt::join(syms, ","));
  return fmt::format(R"({{"name":{},"abi_version":{},"arena_size":{},"inputs":{},"outputs":{}{}}})",
                     json_string(plan.model_name), ONNXC_ABI_VERSION, plan.arena_size,
                     tensors_json(ins), tensors_json(outs), symbols);
}

std::string write_c_header(const ExecutionPlan &plan, const HeaderFacts &facts) {
  const std::string n = sanitize_c_identifier(plan.model_name);
  const std::string m = upper(n);
  auto ins = describe_values(plan, true);
  auto outs = describe_values(plan, false);

  std::string s =
      fmt::format("/* {}.h — typed C interface of the model library '{}' compiled by onnxc.\n"
                  " * Generated by onnxc; do not edit. ABI: runtime_stub/onnxc_runtime.h"
                  " (version {}).\n *\n",
                  n, n, ONNXC_ABI_VERSION);
  s += " * Inputs:\n";
  for (size_t i = 0; i < ins.size(); ++i)
    s += fmt::format(" *   {} '{}': {}\n", i, comment_text(ins[i].name), summary(ins[i]));
  s += " * Outputs:\n";
  for (size_t i = 0; i < outs.size(); ++i)
    s += fmt::format(" *   {} '{}': {}\n", i, comment_text(outs[i].name), summary(outs[i]));
  s += " */\n";
  s += fmt::format("#ifndef ONNXC_MODEL_{0}_H\n#define ONNXC_MODEL_{0}_H\n\n", m);
  s += "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  s += kAbiTypes;
  s += "\n\n";
  s += fmt::format("#define {}_ARENA_SIZE {}\n", m, plan.arena_size);
  s += fmt::format("#define {}_ARENA_ALIGNMENT {}\n", m, ExecutionPlan::kArenaAlignment);
  s += fmt::format("#define {}_WEIGHTS_SIZE {}\n", m, plan.weights_size);
  s += fmt::format("#define {}_WEIGHTS_EXTERNAL {}\n", m, facts.external_weights ? 1 : 0);
  s += fmt::format("#define {}_CODE_SIZE {} /* bytes loaded beyond the weights */\n", m,
                   facts.code_bytes);
  s += fmt::format("#define {}_STACK_SIZE {} /* per-thread stack estimate */\n", m,
                   facts.stack_bytes);
  s += fmt::format("#define {}_NUM_INPUTS {}\n", m, ins.size());
  s += fmt::format("#define {}_NUM_OUTPUTS {}\n\n", m, outs.size());
  for (size_t i = 0; i < ins.size(); ++i)
    s += tensor_constants(m, "INPUT", i, ins[i]);
  for (size_t i = 0; i < outs.size(); ++i)
    s += tensor_constants(m, "OUTPUT", i, outs[i]);
  s += replace_all(replace_all(kAliasDecls, "@N@", n), "@M@", m);
  if (plan.batch) {
    s += fmt::format(
        "\n/* Run-time batch '{}': dim 0 of the tensors whose _SHAPE starts with -1. */\n",
        comment_text(plan.batch->symbol));
    s += fmt::format("#define {}_BATCH_MIN {}\n#define {}_BATCH_MAX {}\n", m, plan.batch->range.lo,
                     m, plan.batch->range.hi);
  }
  if (plan.extent && plan.extent->count) {
    s += fmt::format("\n/* Run-time count '{}': the -1 dims of the outputs' _SHAPE, which the run "
                     "computes\n   (at most {}_COUNT_MAX; onnxc_run reports it in the output's "
                     "shape). */\n",
                     comment_text(plan.extent->symbol), m);
    s += fmt::format("#define {}_COUNT_MAX {}\n", m, plan.extent->range.hi - 1);
  } else if (plan.extent && !plan.batch_is_extent()) {
    s += fmt::format("\n/* Run-time dim '{}': the other -1 dims of _SHAPE. */\n",
                     comment_text(plan.extent->symbol));
    s += fmt::format("#define {}_EXTENT_MIN {}\n#define {}_EXTENT_MAX {}\n", m,
                     plan.extent->range.lo, m, plan.extent->range.hi);
  }
  s += "\n" + (plan.batch || plan.extent ? infer_function_symbolic(n, plan, ins, outs)
                                         : infer_function(n, ins, outs));
  s += fmt::format("\n#ifdef __cplusplus\n}}\n#endif\n\n#endif /* ONNXC_MODEL_{}_H */\n", m);
  return s;
}

} // namespace onnxc
