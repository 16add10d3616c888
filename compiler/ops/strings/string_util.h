// Shared pieces of the string ops' lowerings (compiler/ops/strings/): the packed string table
// constants reach kernels as, and the broadcasting parameters of binary string ops.
#pragma once

#include "compiler/ops/ml/ml_util.h" // attr_strings
#include "compiler/ops/op_def.h"
#include "templates/cpu/string_params.h"

#include <string>
#include <vector>

namespace onnxc {

/// The packed string table of `strings` (templates/cpu/string_params.h) as a uint8 tensor.
TensorPtr pack_strings(const std::vector<std::string> &strings);
/// Parameters of a broadcasting binary string op from its inputs' and output's shapes.
onnxc_k::StrBinaryParams string_binary_params(const Node &n);
/// Fails naming the node unless input i has element type string.
void require_string_input(const Node &n, size_t i);
/// Adds `table` to `call` as a constant the lowering derived (KernelCall::derived) at `slot`.
void add_table(KernelCall &call, size_t slot, TensorPtr table, const std::string &name);

/// A lookup of string input 0 in `keys` (sorted here; a repeated key keeps its first value),
/// giving raw_values[i] (integers, or double bits) stored with ML element-type code `out_code`
/// (0 float, 1 double, 2 int64, 3 int32, 4 int16), `default_raw` for a missing key.
KernelCall string_keys_call(const Node &n, const std::vector<std::string> &keys,
                            const std::vector<int64_t> &raw_values, int64_t out_code,
                            int64_t default_raw);
/// A lookup of integer input 0 in `keys`, giving values[i] or `fallback` (string output).
KernelCall int_keys_to_strings_call(const Node &n, const std::vector<int64_t> &keys,
                                    const std::vector<std::string> &values,
                                    const std::string &fallback);

/// True if `n`'s op may produce string tensors (the string ops, the data-movement ops that copy
/// 8-byte pointer slots, Cast, Constant, control flow); infer-shapes refuses string outputs of
/// every other op, naming it.
bool op_makes_strings(const Node &n);

/// StringNormalizer evaluated on its constant input (compiler/ops/strings/string_split.cpp):
/// the strings equal to a stopword removed (ASCII case-insensitively unless is_case_sensitive),
/// the case changed; one empty string when every string is removed (ONNX Runtime's output).
std::vector<Tensor> normalize_strings(const Node &n);

/// Internal op onnxc.StringConstant: unpacks a packed string table (its only input, a uint8
/// constant) into a string tensor (made by the materialize-strings pass).
const OpDef &op_StringConstant();
/// Internal op onnxc.StringCopy: copies a string tensor's strings into the run's dynamic
/// memory (made by materialize-strings for string graph outputs that pass strings through).
const OpDef &op_StringCopy();
/// True if the strings of `n`'s string outputs are new (dynamic memory) or the library's own
/// (constant tables): a graph output it produces needs no StringCopy.
bool op_owns_strings(const Node &n);
/// Lets the element-wise Equal compare string tensors (onnxc_k_equal_str).
void allow_string_equal(OpDef &equal);
/// The ONNX (RE2 syntax) pattern of RegexFullMatch as an anchored POSIX extended regular
/// expression; fails naming the node for what POSIX ERE cannot express.
std::string regex_to_posix(const Node &n, const std::string &pattern);

} // namespace onnxc
