// Tests codegen/cpu/c_header: signature JSON, identifier sanitising, and that the typed header's
// copy of the ABI types is identical to runtime_stub/onnxc_runtime.h. Writes the header of a small
// plan to argv[1] for stub_header_use.c, which the next test compiles.
#include "codegen/cpu/c_header.h"
#include "compiler/ir/error.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {
int failures = 0;

void check(bool ok, const std::string &what) {
  if (!ok) {
    std::fprintf(stderr, "CHECK failed: %s\n", what.c_str());
    ++failures;
  }
}

std::string types_block(const std::string &text) {
  size_t b = text.find("#ifndef ONNXC_RUNTIME_TYPES_H");
  size_t e = text.find("#endif /* ONNXC_RUNTIME_TYPES_H */");
  return b == std::string::npos || e == std::string::npos ? "" : text.substr(b, e - b);
}

std::string read_file(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
} // namespace

int main(int argc, char **argv) {
  using namespace onnxc;
  check(sanitize_c_identifier("input.1") == "input_1", "sanitize input.1");
  check(sanitize_c_identifier("0abc") == "_0abc", "sanitize leading digit");
  check(sanitize_c_identifier("") == "_", "sanitize empty");
  check(sanitize_c_identifier("ok_Name9") == "ok_Name9", "identifier unchanged");

  Value x, y, z, out;
  x.name = "input.1";
  x.type = Type::of(DType::Float, {1, 3});
  y.name = "input:1"; // same identifier as x once sanitised
  y.type = Type::of(DType::Int64, {});
  z.name = "2d \"mask\"";
  z.type = Type::of(DType::Bool, {2, 2});
  out.name = "out";
  out.type = Type::of(DType::Float16, {3});
  ExecutionPlan plan;
  plan.model_name = "tiny_net";
  plan.inputs = {&x, &y, &z};
  plan.outputs = {&out};
  plan.arena_size = 128;

  std::string json = signature_json(plan);
  std::string want = R"({"name":"tiny_net","abi_version":3,"arena_size":128,"inputs":[)"
                     R"({"name":"input.1","dtype":"float","shape":[1,3]},)"
                     R"({"name":"input:1","dtype":"int64","shape":[]},)"
                     R"({"name":"2d \"mask\"","dtype":"bool","shape":[2,2]}],)"
                     R"("outputs":[{"name":"out","dtype":"float16","shape":[3]}]})";
  check(json == want, "signature_json:\n  got  " + json + "\n  want " + want);

  std::string header = write_c_header(plan);
  std::string abi = read_file(ONNXC_REPO_ROOT "/runtime_stub/onnxc_runtime.h");
  check(!types_block(abi).empty() && types_block(abi) == types_block(header),
        "the header's ABI types block differs from runtime_stub/onnxc_runtime.h");
  for (const char *s :
       {"#define TINY_NET_INPUT_INPUT_1 0", "#define TINY_NET_INPUT_INPUT_1_1 1",
        "#define TINY_NET_INPUT__2D__MASK_ 2", "#define TINY_NET_INPUT_0_SIZE 3",
        "#define TINY_NET_INPUT_2_BYTES 4", "#define TINY_NET_OUTPUT_0_BYTES 6",
        "#define TINY_NET_ARENA_SIZE 128", "static inline onnxc_status tiny_net_infer(",
        "const float *in_input_1,\n    const int64_t *in_input_1_1", "uint16_t *out_out)"})
    check(header.find(s) != std::string::npos, std::string("header lacks: ") + s);

  Value sym;
  sym.name = "s";
  sym.type.dtype = DType::Float;
  sym.type.shape = std::vector<Dim>{Dim::symbolic("batch")};
  plan.inputs = {&sym};
  bool threw = false;
  try {
    write_c_header(plan);
  } catch (const Error &e) {
    threw = std::string(e.what()).find("input 0 ('s')") != std::string::npos;
  }
  check(threw, "a symbolic dim is rejected with a message naming the input");

  if (argc > 1) {
    std::ofstream(argv[1]) << header;
  }
  if (failures)
    std::fprintf(stderr, "stub_header_test: %d failure(s)\n", failures);
  else
    std::printf("stub_header_test: all checks passed\n");
  return failures ? 1 : 0;
}
