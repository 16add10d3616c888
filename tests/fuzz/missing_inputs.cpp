// Every operator onnxc knows, with each of its inputs in turn given as '' (no value), at several
// opsets including ones newer than libonnx's schemas: each model must compile or be rejected with
// onnxc::Error, never crash (ctest fuzz.missing_inputs; under ASan/UBSan in CI's sanitizer
// stage). ONNX marks an omitted optional input with ''; a malformed model may put it where the
// op requires a value, and libFuzzer found two such crashes (a null Value read by Slice's rule).
//
//   fuzz_missing_inputs [OP_TYPE]   (only that op when given)
#include "compiler/ops/registry.h"
#include "tests/fuzz/fuzz_entry.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace {

/// One node of `op` with `n` inputs (input `missing` given as '', none when missing >= n), all
/// graph inputs of `dtype` shaped [2, 3].
std::string model_bytes(const onnxc::OpDef &op, int64_t opset, size_t n, size_t missing,
                        int dtype) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *imp = m.add_opset_import();
  imp->set_domain(op.domain);
  imp->set_version(opset);
  if (!op.domain.empty()) { // a custom or ML domain still needs the default one
    auto *def = m.add_opset_import();
    def->set_domain("");
    def->set_version(17);
  }
  auto *g = m.mutable_graph();
  g->set_name("g");
  auto *node = g->add_node();
  node->set_op_type(op.name);
  node->set_domain(op.domain);
  for (size_t i = 0; i < n; ++i) {
    if (i == missing) {
      node->add_input("");
      continue;
    }
    std::string name = "x" + std::to_string(i);
    node->add_input(name);
    auto *in = g->add_input();
    in->set_name(name);
    auto *tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(dtype);
    tt->mutable_shape()->add_dim()->set_dim_value(2);
    tt->mutable_shape()->add_dim()->set_dim_value(3);
  }
  node->add_output("y");
  auto *out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(dtype);
  return m.SerializeAsString();
}

std::vector<int64_t> opsets_of(const onnxc::OpDef &op) {
  std::vector<int64_t> want = op.domain.empty() ? std::vector<int64_t>{7, 13, 17, 18, 21, 23, 28}
                                                : std::vector<int64_t>{1, 2, 3, 4, 5};
  std::set<int64_t> out;
  for (int64_t v : want)
    out.insert(std::clamp(v, op.min_opset, op.max_opset));
  return {out.begin(), out.end()};
}

} // namespace

int main(int argc, char **argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  size_t models = 0, compiled = 0;
  for (const onnxc::OpDef *op : onnxc::all_ops()) {
    if (!only.empty() && op->name != only)
      continue;
    // The op's name first: a crash (a sanitizer report) then follows the op that caused it.
    std::fprintf(stderr, "%s%s%s\n", op->domain.c_str(), op->domain.empty() ? "" : ".",
                 op->name.c_str());
    const size_t most = std::min<size_t>(op->max_inputs, 6);
    for (int64_t opset : opsets_of(*op))
      for (int dtype : {onnx::TensorProto::FLOAT, onnx::TensorProto::INT64})
        for (size_t n = 1; n <= most; ++n)
          for (size_t missing = 0; missing <= n; ++missing) {
            std::string bytes = model_bytes(*op, opset, n, missing, dtype);
            compiled += onnxc::fuzz_compile_bytes(reinterpret_cast<const uint8_t *>(bytes.data()),
                                                  bytes.size());
            ++models;
          }
  }
  if (models == 0) {
    std::fprintf(stderr, "fuzz_missing_inputs: no operator named '%s'\n", only.c_str());
    return 1;
  }
  std::printf("%zu models: %zu compiled, %zu rejected with an error, none crashed\n", models,
              compiled, models - compiled);
  return 0;
}
