// The string ops: StringConcat (broadcasting), StringNormalizer (case change; with stopwords
// it is evaluated at compile time, string_split.cpp), RegexFullMatch (POSIX ERE through libc).
// Kernels: templates/cpu/strings.cpp and regex_match.cpp; layouts in templates/cpu/string_params.h.
#include "compiler/ops/op_util.h"
#include "compiler/ops/strings/string_util.h"

namespace onnxc {

const OpDef &op_StringConcat() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "StringConcat";
    d.min_opset = 20;
    d.infer = [](Node &n) {
      require_string_input(n, 0);
      require_string_input(n, 1);
      set_output(n, 0, DType::String, broadcast_shapes(n, {input_dims(n, 0), input_dims(n, 1)}));
    };
    d.lower = [](const Node &n) {
      KernelCall c{"onnxc_k_string_concat", {n.inputs[0], n.inputs[1], n.outputs[0]}, {}};
      set_params(c, string_binary_params(n));
      return c;
    };
    return d;
  }();
  return def;
}

namespace {

int64_t case_action(const Node &n) {
  std::string a = attr_string(n, "case_change_action", "NONE");
  if (a == "NONE")
    return onnxc_k::kCaseNone;
  if (a == "LOWER")
    return onnxc_k::kCaseLower;
  if (a == "UPPER")
    return onnxc_k::kCaseUpper;
  node_fail(n, "case_change_action must be LOWER, UPPER or NONE, not \"{}\"", a);
}

/// StringNormalizer's locale: "" and the en_US variants are accepted (ASCII case mapping).
void check_locale(const Node &n) {
  std::string l = attr_string(n, "locale", "");
  if (!l.empty() && l != "en_US" && l.rfind("en_US.", 0) != 0 && l != "C" && l != "POSIX")
    node_fail(n,
              "locale \"{}\" is not supported (onnxc maps the case of ASCII letters only: "
              "use \"\" or \"en_US\")",
              l);
}

} // namespace

const OpDef &op_StringNormalizer() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "StringNormalizer";
    d.min_opset = 10;
    d.attrs = {{"case_change_action", Attribute::Kind::String},
               {"is_case_sensitive", Attribute::Kind::Int},
               {"locale", Attribute::Kind::String},
               {"stopwords", Attribute::Kind::Strings}};
    d.infer = [](Node &n) {
      require_string_input(n, 0);
      std::vector<int64_t> dims = input_dims(n, 0);
      if (dims.size() > 2 || (dims.size() == 2 && dims[0] != 1))
        node_fail(n, "input must have shape [C] or [1, C], not {}", dims_to_string(dims));
      case_action(n);
      check_locale(n);
      if (!attr_strings(n, "stopwords").empty() && product(dims) > 0) {
        // Stopwords make the output shape depend on the strings: evaluated at compile time,
        // or, for strings given at run time, shaped by the run (at most the input's).
        if (values_at_run_time(n, 0))
          set_run_time_shaped_output(n, 0, DType::String, dims, 0, true);
        else
          set_output(n, 0, DType::String, normalize_strings(n)[0].shape());
        return;
      }
      set_output(n, 0, DType::String, dims);
    };
    d.eval = [](const Node &n, const std::vector<const Tensor *> &) {
      return normalize_strings(n);
    };
    d.lower = [](const Node &n) {
      const std::vector<std::string> stops = attr_strings(n, "stopwords");
      if (!n.outputs[0]->run_time_shape_from.empty()) {
        const bool sensitive = attr_int(n, "is_case_sensitive", 0) != 0;
        std::vector<std::string> keys;
        for (const std::string &w : stops) { // compared with the strings lower-cased
          keys.push_back(w);
          if (!sensitive)
            for (char &ch : keys.back())
              ch = ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch;
        }
        onnxc_k::StrStopParams p{product(input_dims(n, 0)), case_action(n), sensitive ? 1 : 0,
                                 static_cast<int64_t>(keys.size()),
                                 static_cast<int64_t>(input_dims(n, 0).size())};
        KernelCall c{"onnxc_k_string_normalize_stop", {nullptr, n.inputs[0], n.outputs[0]}, {}};
        set_params(c, p);
        add_table(c, 0, pack_strings(keys), n.outputs[0]->name + ".stopwords");
        return c;
      }
      onnxc_k::StrUnaryParams p{product(output_dims(n, 0)), case_action(n)};
      KernelCall c{"onnxc_k_string_normalize", {n.inputs[0], n.outputs[0]}, {}};
      set_params(c, p);
      return c;
    };
    return d;
  }();
  return def;
}

const OpDef &op_RegexFullMatch() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "RegexFullMatch";
    d.min_opset = 20;
    d.attrs = {{"pattern", Attribute::Kind::String}}; // optional in ONNX: "" by default
    d.infer = [](Node &n) {
      require_string_input(n, 0);
      regex_to_posix(n, attr_string(n, "pattern", ""));
      set_output(n, 0, DType::Bool, input_dims(n, 0));
    };
    d.lower = [](const Node &n) {
      std::string ere = regex_to_posix(n, attr_string(n, "pattern", ""));
      onnxc_k::StrUnaryParams p{product(output_dims(n, 0)), onnxc_k::kCaseNone};
      KernelCall c{"onnxc_k_regex_full_match", {nullptr, n.inputs[0], n.outputs[0]}, {}};
      set_params(c, p);
      add_table(c, 0, pack_strings({ere}), n.outputs[0]->name + ".pattern");
      return c;
    };
    return d;
  }();
  return def;
}

} // namespace onnxc
