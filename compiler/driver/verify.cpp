// `onnxc verify MODEL DATA_DIR...`: compile, run every data set, compare with its outputs.
#include "compiler/driver/commands.h"
#include "compiler/driver/test_data.h"
#include "compiler/frontend/onnx_loader.h"
#include "compiler/ir/error.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace fs = std::filesystem;

namespace onnxc {
namespace {

/// A private temporary directory, removed with everything in it on destruction.
class TempDir {
public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "onnxc-verify-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      fail("cannot create a temporary directory in {}", fs::temp_directory_path().string());
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

/// Solves the declared shape of a graph input for a data tensor: symbolic dims take the data's
/// dims when the ranks agree; when they differ (some published test data drops unit dims), a
/// single symbolic dim is solved from the element count. Returns nullopt if it cannot.
std::optional<std::vector<int64_t>> solve_shape(const Type &declared, const Tensor &data) {
  if (!declared.shape)
    return data.shape();
  const auto &dims = *declared.shape;
  if (dims.size() == data.shape().size()) {
    std::vector<int64_t> out;
    for (size_t k = 0; k < dims.size(); ++k)
      out.push_back(dims[k].is_static() ? dims[k].value : data.shape()[k]);
    return out;
  }
  int64_t known = 1, symbolic = 0;
  for (const Dim &d : dims)
    d.is_static() ? void(known *= d.value) : void(++symbolic);
  if (symbolic > 1 || known == 0 || data.numel() % known != 0)
    return std::nullopt;
  std::vector<int64_t> out;
  for (const Dim &d : dims)
    out.push_back(d.is_static() ? d.value : data.numel() / known);
  return out;
}

/// Binds every graph input whose declared shape is not static to the shape of the data set's
/// tensor for it (by name, else by position), unless --shape already binds it.
void bind_from_data(const std::string &model_path, const std::vector<NamedTensor> &data,
                    ShapeBindings &b) {
  auto model = load_model(model_path);
  const auto &ins = model->graph->inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    const Value *v = ins[i];
    if (v->type.is_static() || b.input_shapes.count(v->name))
      continue;
    const Tensor *t = i < data.size() ? &data[i].tensor : nullptr;
    for (const NamedTensor &d : data)
      if (d.name == v->name)
        t = &d.tensor;
    if (!t)
      continue;
    if (auto shape = solve_shape(v->type, *t))
      b.input_shapes[v->name] = *shape;
  }
}

/// Gives each data tensor the model's input shape when only unit dims differ (same element
/// count), as in test data that stores a 1x1xHxW image as HxW; says so on stdout.
void conform_inputs(const ModelLibrary &lib, std::vector<const Tensor *> &ins,
                    std::vector<NamedTensor> &data, const std::string &dir) {
  for (size_t i = 0; i < ins.size(); ++i) {
    const std::vector<int64_t> &want = lib.inputs()[i].shape;
    if (ins[i]->shape() == want || ins[i]->numel() != checked_numel(want))
      continue;
    for (NamedTensor &d : data)
      if (&d.tensor == ins[i]) {
        std::cout << fmt::format("note: {}: input '{}' has shape {}, using it as {}\n", dir,
                                 lib.inputs()[i].name, dims_to_string(d.tensor.shape()),
                                 dims_to_string(want));
        d.tensor.reshape(want);
      }
  }
}

bool check_data_set(ModelLibrary::Context &ctx, const ModelLibrary &lib, const std::string &dir,
                    const VerifyOptions &o) {
  std::vector<NamedTensor> inputs = read_data_set(dir, "input");
  std::vector<NamedTensor> expected = read_data_set(dir, "output");
  std::vector<const Tensor *> ins = match_inputs(lib.inputs(), inputs, dir);
  conform_inputs(lib, ins, inputs, dir);
  std::vector<Tensor> got = ctx.run(ins);
  if (expected.size() != got.size())
    fail("{}: has {} expected outputs but the model produces {}", dir, expected.size(),
         got.size());
  bool ok = true;
  for (size_t i = 0; i < got.size(); ++i) {
    Comparison c = compare_tensors(got[i], expected[i].tensor, o.rtol, o.atol);
    ok = ok && c.ok;
    std::string detail = c.problem.empty()
                             ? fmt::format("max abs error {:.3g}, max rel error {:.3g}, {} of {} "
                                           "elements outside rtol={} atol={}",
                                           c.max_abs_error, c.max_rel_error, c.mismatches,
                                           got[i].numel(), o.rtol, o.atol)
                             : c.problem;
    std::cout << fmt::format("{} {} output {} '{}': {}\n", c.ok ? "PASS" : "FAIL", dir, i,
                             lib.outputs()[i].name, detail);
  }
  return ok;
}

} // namespace

int cmd_verify(const VerifyOptions &o) {
  if (o.data_dirs.empty())
    fail("verify needs at least one test data directory");
  TempDir tmp;
  CompileOptions co = o.compile;
  co.model_path = o.model_path;
  co.out_path = (tmp.path() / "libmodel.so").string();
  co.quiet = true;
  bind_from_data(o.model_path, read_data_set(o.data_dirs[0], "input"), co.pipeline.bindings);
  compile_model(co);
  ModelLibrary lib(co.out_path);
  ModelLibrary::Context ctx(lib);
  ctx.set_num_threads(o.threads);
  int failed = 0;
  for (const std::string &dir : o.data_dirs)
    failed += !check_data_set(ctx, lib, dir, o);
  std::cout << fmt::format("{}: {} of {} data sets passed\n", o.model_path,
                           o.data_dirs.size() - failed, o.data_dirs.size());
  return failed ? 1 : 0;
}

} // namespace onnxc
