#include "tests/fuzz/fuzz_entry.h"
#include "compiler/frontend/onnx_loader.h"
#include "compiler/ir/error.h"
#include "compiler/passes/pipeline.h"

#include <sstream>
#include <string>

namespace onnxc {

bool fuzz_compile_bytes(const uint8_t *data, size_t size) {
  LoadOptions load;
  load.display_name = "fuzz.onnx";
  load.limits.max_bytes = 1 << 20;
  load.limits.recursion_limit = 32;

  PipelineOptions opts;
  opts.model_name = "fuzz";
  opts.infer.max_folded_bytes = int64_t(1) << 20;
  opts.plan.max_arena_bytes = int64_t(64) << 20;
  opts.plan.max_weight_bytes = int64_t(64) << 20;
  opts.verify_each = true; // the IR verifier after every pass catches broken invariants too
  std::ostringstream log;
  opts.log = &log;
  try {
    std::string bytes(reinterpret_cast<const char *>(data), size);
    auto model = load_model_from_bytes(bytes, /*base_dir_for_external_data=*/"", load);
    run_pipeline(*model, opts);
    return true;
  } catch (const Error &) {
    return false; // a clean rejection
  }
}

} // namespace onnxc
