#include "compiler/frontend/onnx_loader.h"
#include "compiler/frontend/graph_converter.h"
#include "compiler/ir/error.h"

#include <onnx/onnx_pb.h>

#include <filesystem>

namespace onnxc {
namespace {

std::string normalize_domain(const std::string &d) { return d == "ai.onnx" ? "" : d; }

LoadContext make_context(const onnx::ModelProto &mp, const std::string &path,
                         const std::string &base_dir) {
  LoadContext ctx;
  ctx.model_path = path;
  ctx.base_dir = base_dir;
  for (const auto &op : mp.opset_import())
    ctx.opsets[normalize_domain(op.domain())] = op.version();
  if (mp.opset_import_size() == 0)
    ctx.opsets[""] = 1; // IR versions 1-2 had no opset_import
  for (const auto &f : mp.functions())
    ctx.local_functions.emplace(normalize_domain(f.domain()), f.name());
  return ctx;
}

/// Converts `mp`, releasing the main graph's initializer data as it is copied into the IR (so
/// the model's weights are held once, not twice, while it loads).
std::unique_ptr<Model> convert_model(onnx::ModelProto &mp, const std::string &path,
                                     const std::string &base_dir) {
  if (!mp.has_graph())
    fail("{}: the model has no graph", path);
  LoadContext ctx = make_context(mp, path, base_dir);
  auto model = std::make_unique<Model>();
  model->ir_version = mp.ir_version();
  model->producer = mp.producer_name();
  if (!mp.producer_version().empty())
    model->producer += " " + mp.producer_version();
  model->path = path;
  model->opsets = ctx.opsets;
  model->graph = std::make_unique<Graph>();
  convert_graph_consuming(*mp.mutable_graph(), *model->graph, ctx);
  // A graph without outputs computes nothing: compiling it would give an empty library that
  // silently does nothing, so it is refused like a missing graph.
  if (mp.graph().output_size() == 0)
    fail("{}: the model's graph '{}' has no outputs, so there is nothing to compile (a graph "
         "needs at least one output)",
         path, mp.graph().name());
  return model;
}

[[noreturn]] void fail_unparsable(const std::string &path, const LoadOptions &opts) {
  fail("{}: not a valid ONNX model: protobuf parsing failed (the file is truncated or "
       "corrupted, is not an ONNX model, is larger than {} bytes, or nests subgraphs deeper "
       "than {} levels)",
       path, opts.limits.max_bytes, opts.limits.recursion_limit);
}

} // namespace

std::unique_ptr<Model> load_model(const std::string &path, const LoadOptions &opts) {
  onnx::ModelProto mp;
  if (!parse_file_bounded(path, "model", mp, opts.limits))
    fail_unparsable(path, opts);
  std::string dir = std::filesystem::path(path).parent_path().string();
  return convert_model(mp, path, dir.empty() ? "." : dir);
}

std::unique_ptr<Model> load_model_from_bytes(const std::string &bytes,
                                             const std::string &base_dir_for_external_data,
                                             const LoadOptions &opts) {
  std::string name = opts.display_name.empty() ? "<in-memory model>" : opts.display_name;
  onnx::ModelProto mp;
  if (!parse_bounded(bytes, mp, opts.limits))
    fail_unparsable(name, opts);
  return convert_model(mp, name, base_dir_for_external_data);
}

} // namespace onnxc
