// `onnxc verify MODEL DATA_DIR...`: compile, run every data set, compare with its outputs.
#include "compiler/driver/commands.h"
#include "compiler/driver/test_data.h"
#include "compiler/frontend/onnx_loader.h"
#include "compiler/frontend/sequence_data.h"
#include "compiler/ir/error.h"
#include "compiler/passes/bind_shapes.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

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
    if (v->type.kind != TypeKind::Tensor || v->type.is_static() || b.input_shapes.count(v->name))
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

/// The values a compile error says must be constant: X of "... computed at run time from 'X'"
/// and the graph inputs it names after it ("(from the graph inputs 'a', 'b')"); empty if the
/// error is another one.
std::vector<std::string> inputs_needed_as_constant(const std::string &msg) {
  const std::string marker = "computed at run time from '";
  auto p = msg.find(marker);
  if (msg.find("must be a compile-time constant") == std::string::npos || p == std::string::npos)
    return {};
  std::vector<std::string> names;
  p += marker.size();
  auto q = msg.find('\'', p);
  if (q == std::string::npos)
    return {};
  names.push_back(msg.substr(p, q - p));
  const std::string from = " (from the graph input";
  if (msg.compare(q + 1, from.size(), from) != 0)
    return names;
  auto end = msg.find(')', q);
  for (p = msg.find('\'', q + 1); p != std::string::npos && p < end; p = msg.find('\'', q + 1)) {
    q = msg.find('\'', p + 1);
    if (q == std::string::npos)
      break;
    names.push_back(msg.substr(p + 1, q - p - 1));
  }
  return names;
}

/// The model's graph inputs and outputs, when one is a sequence or an optional: their test data
/// files are then read by type (sequence_data.h) and flattened as the compiled library takes
/// them. Empty lists for a tensor-only model (its files are read as they always were).
struct CompositeIO {
  std::vector<std::pair<std::string, Type>> inputs, outputs;
  bool composite = false;
  bool any() const { return composite; }
};

CompositeIO composite_io(const Graph &g) {
  CompositeIO io;
  bool composite = false;
  for (const Value *v : g.inputs)
    composite = composite || v->type.kind != TypeKind::Tensor;
  for (const Value *v : g.outputs)
    composite = composite || v->type.kind != TypeKind::Tensor;
  if (!composite)
    return io;
  for (const Value *v : g.inputs)
    io.inputs.emplace_back(v->name, v->type);
  for (const Value *v : g.outputs)
    io.outputs.emplace_back(v->name, v->type);
  io.composite = true;
  return io;
}

/// DIR/<prefix>_N.pb for each value of `values` in order (until a file is missing), flattened;
/// sequence lengths and absent optionals go into `b` if given.
std::vector<NamedTensor>
read_typed_data_set(const std::string &dir, const std::string &prefix,
                    const std::vector<std::pair<std::string, Type>> &values, ShapeBindings *b) {
  std::vector<NamedTensor> out;
  for (size_t i = 0;; ++i) {
    std::string path = fmt::format("{}/{}_{}.pb", dir, prefix, i);
    if (!fs::exists(path))
      break;
    FlatValue f = i < values.size() ? read_value_file(path, values[i].first, values[i].second)
                                    : FlatValue{{read_tensor_file(path)}, {}, {}};
    std::move(f.tensors.begin(), f.tensors.end(), std::back_inserter(out));
    if (b) {
      b->sequence_lengths.insert(f.lengths.begin(), f.lengths.end());
      b->absent_optionals.insert(f.absent.begin(), f.absent.end());
    }
  }
  return out;
}

/// A model compiled for one data set.
struct Compiled {
  std::unique_ptr<ModelLibrary> lib;
  std::set<std::string> baked;    ///< inputs whose values were compiled in
  std::string path;               ///< the library file
  std::vector<std::string> notes; ///< the compile's notes (CompileSummary::notes)
};

/// Compiles the model for a data set: symbolic dims are bound from its inputs, and an input
/// whose value the compiler needs (a Reshape shape, Slice starts, Pad pads...) is compiled in
/// as a constant from the data set, with a note on stdout: onnxc specialises on it.
Compiled compile_for(const VerifyOptions &o, const std::vector<NamedTensor> &data,
                     const fs::path &out, const std::string &dir, const CompositeIO &io) {
  CompileOptions co = o.compile;
  co.model_path = o.model_path;
  co.out_path = out.string();
  co.quiet = true;
  bind_from_data(o.model_path, data, co.pipeline.bindings);
  if (io.any()) {
    read_typed_data_set(dir, "input", io.inputs, &co.pipeline.bindings);
    // Elements of sequence / optional inputs take their data's shapes.
    for (const NamedTensor &t : data)
      if (std::none_of(io.inputs.begin(), io.inputs.end(),
                       [&](const auto &in) { return in.first == t.name; }) ||
          std::any_of(io.inputs.begin(), io.inputs.end(), [&](const auto &in) {
            return in.first == t.name && in.second.kind != TypeKind::Tensor;
          }))
        co.pipeline.bindings.input_shapes[t.name] = t.tensor.shape();
  }
  Compiled c;
  for (;;) {
    try {
      CompileSummary s = compile_model(co);
      c.notes = s.notes;
      for (const std::string &note : s.notes) // random draws cannot match a reference's
        if (note.rfind(kRandomNoteStart, 0) == 0)
          std::cout << fmt::format("note: {}: {}\n", dir, note);
      break;
    } catch (const Error &e) {
      bool baked_one = false;
      for (const std::string &name : inputs_needed_as_constant(e.what())) {
        auto it = std::find_if(data.begin(), data.end(),
                               [&](const NamedTensor &t) { return t.name == name; });
        if (it == data.end() || c.baked.count(name))
          continue;
        std::cout << fmt::format("note: {}: compiling in the value of input '{}' (the model "
                                 "needs it at compile time)\n",
                                 dir, name);
        co.pipeline.bindings.input_values[name] = std::make_shared<Tensor>(it->tensor);
        co.pipeline.bindings.input_shapes.erase(name);
        c.baked.insert(name);
        baked_one = true;
      }
      if (!baked_one)
        throw;
    }
  }
  c.lib = std::make_unique<ModelLibrary>(co.out_path);
  c.path = co.out_path;
  return c;
}

/// The data set's input_N.pb or output_N.pb files.
std::vector<NamedTensor> read_data(const std::string &dir, const std::string &prefix,
                                   const CompositeIO &io) {
  if (!io.any())
    return read_data_set(dir, prefix);
  return read_typed_data_set(dir, prefix, prefix == "input" ? io.inputs : io.outputs, nullptr);
}

/// numpy's descr of a dtype ("<f4"); "" for those .npy cannot hold.
std::string npy_descr(DType t) {
  switch (t) {
  case DType::Float:
    return "<f4";
  case DType::Double:
    return "<f8";
  case DType::Float16:
    return "<f2";
  case DType::Bool:
    return "|b1";
  case DType::Uint8:
    return "|u1";
  case DType::Int8:
    return "|i1";
  case DType::Int16:
    return "<i2";
  case DType::Uint16:
    return "<u2";
  case DType::Int32:
    return "<i4";
  case DType::Uint32:
    return "<u4";
  case DType::Int64:
    return "<i8";
  case DType::Uint64:
    return "<u8";
  default:
    return "";
  }
}

void write_bytes(const fs::path &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f)
    fail("--export: cannot write '{}'", path.string());
}

/// Writes t as a version 1.0 .npy file.
void write_npy(const fs::path &path, const Tensor &t) {
  std::string shape;
  for (int64_t d : t.shape())
    shape += std::to_string(d) + ", ";
  if (t.shape().size() > 1)
    shape.resize(shape.size() - 1); // "(2, 3)" but "(3,)"
  std::string header = "{'descr': '" + npy_descr(t.dtype()) + "', 'fortran_order': False, " +
                       "'shape': (" + (t.shape().empty() ? "" : shape) + "), }";
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char *>(t.data()), t.nbytes());
  write_bytes(path, out);
}

/// A data set read for a compiled library: its inputs in the library's order (without the
/// compiled-in ones, shapes conformed) and its expected outputs.
struct DataSet {
  std::vector<NamedTensor> inputs, expected;
  std::vector<const Tensor *> ins; ///< into `inputs`, in the library's input order
  /// expected[i] is an element past the end of a sequence whose length the run decides: any
  /// result with no elements matches it.
  std::vector<bool> empty_element;
};

/// A library with a sequence output whose length the run decides gives NAME.length, then one
/// output per element the sequence can have (docs/runtime-api.md): the reference's elements
/// NAME.0 ... are matched by name, NAME.length is their count, the outputs after them are
/// empty. Other outputs keep their order.
void align_run_time_sequences(const ModelLibrary &lib, const CompositeIO &io, DataSet &d) {
  const auto &outs = lib.outputs();
  std::set<std::string> bases, optionals; // NAME.length / NAME.present outputs
  for (const auto &o : outs)
    for (const auto &[suffix, kind, set] :
         {std::tuple{".length", TypeKind::Sequence, &bases},
          std::tuple{".present", TypeKind::Optional, &optionals}}) {
      const std::string sfx = suffix;
      if (o.name.size() <= sfx.size() ||
          o.name.compare(o.name.size() - sfx.size(), sfx.size(), sfx) != 0)
        continue;
      std::string base = o.name.substr(0, o.name.size() - sfx.size());
      for (const auto &[name, type] : io.outputs)
        if (name == base && type.kind == kind)
          set->insert(base);
    }
  if (bases.empty() && optionals.empty())
    return;
  std::map<std::string, const NamedTensor *> by_name;
  for (const NamedTensor &t : d.expected)
    by_name[t.name] = &t;
  /// The optional output `o` belongs to (its NAME.present, NAME or NAME.k), "" if none.
  auto optional_of = [&](const std::string &o) {
    for (const std::string &b : optionals)
      if (o == b || o.rfind(b + ".", 0) == 0)
        return b;
    return std::string();
  };
  std::vector<NamedTensor> aligned;
  std::vector<bool> empty;
  for (const auto &o : outs) {
    auto it = by_name.find(o.name);
    const size_t dot = o.name.rfind('.');
    const std::string base = dot == std::string::npos ? "" : o.name.substr(0, dot);
    if (const std::string opt = optional_of(o.name); !opt.empty() && it == by_name.end()) {
      if (o.name == opt + ".present") { // present when the reference holds any of its tensors
        const bool held = std::any_of(by_name.begin(), by_name.end(), [&](const auto &e) {
          return e.first == opt || e.first.rfind(opt + ".", 0) == 0;
        });
        Tensor flag(DType::Bool, {});
        flag.data()[0] = held ? 1 : 0;
        aligned.push_back({o.name, flag});
        empty.push_back(false);
      } else { // an element of an absent optional: no elements
        aligned.push_back({o.name, Tensor::scalar_i64(0)});
        empty.push_back(true);
      }
      continue;
    }
    if (bases.count(base) && o.name == base + ".length") {
      int64_t count = 0;
      while (by_name.count(fmt::format("{}.{}", base, count)))
        ++count;
      aligned.push_back({o.name, Tensor::scalar_i64(count)});
      empty.push_back(false);
    } else if (it != by_name.end()) {
      aligned.push_back(*it->second);
      empty.push_back(false);
    } else if (bases.count(base)) {
      aligned.push_back({o.name, Tensor::scalar_i64(0)});
      empty.push_back(true);
    } else {
      fail("the test data has no expected output '{}'", o.name);
    }
  }
  d.expected = std::move(aligned);
  d.empty_element = std::move(empty);
}

DataSet read_for(const Compiled &c, const std::string &dir, const CompositeIO &io) {
  DataSet d;
  d.inputs = read_data(dir, "input", io);
  d.expected = read_data(dir, "output", io);
  if (io.any())
    align_run_time_sequences(*c.lib, io, d);
  std::erase_if(d.inputs, [&](const NamedTensor &t) { return c.baked.count(t.name) > 0; });
  d.ins = match_inputs(c.lib->inputs(), d.inputs, dir);
  conform_inputs(*c.lib, d.ins, d.inputs, dir);
  return d;
}

/// `onnxc verify --export`: the data set's library, inputs (in the library's order, without the
/// compiled-in ones) and expected outputs, and a manifest, in `to`.
void export_data_set(const Compiled &c, const std::string &dir, const VerifyOptions &o,
                     const CompositeIO &io, const fs::path &to) {
  const DataSet data = read_for(c, dir, io);
  const std::vector<const Tensor *> &ins = data.ins;
  const std::vector<NamedTensor> &expected = data.expected;
  fs::create_directories(to);
  fs::copy_file(c.path, to / "lib.so", fs::copy_options::overwrite_existing);
  std::string manifest = fmt::format("{{\"source\": \"{}\", \"rtol\": {}, \"atol\": {}, "
                                     "\"inputs\": [",
                                     dir, o.rtol, o.atol);
  // .npy where numpy has the type; else the raw bytes with the dtype and shape in the manifest
  // (float8, int4, bfloat16...: compared bit for bit)
  auto entry = [&](const Tensor &t, const std::string &stem) {
    if (t.dtype() == DType::String)
      fail("--export: string tensors cannot be exported");
    if (!npy_descr(t.dtype()).empty()) {
      write_npy(to / (stem + ".npy"), t);
      return fmt::format("\"{}.npy\"", stem);
    }
    write_bytes(to / (stem + ".bin"),
                std::string(reinterpret_cast<const char *>(t.data()), t.nbytes()));
    return fmt::format("{{\"raw\": \"{}.bin\", \"dtype\": {}, \"shape\": [{}]}}", stem,
                       static_cast<int>(t.dtype()), fmt::join(t.shape(), ", "));
  };
  for (size_t i = 0; i < ins.size(); ++i)
    manifest += (i ? ", " : "") + entry(*ins[i], fmt::format("input_{}", i));
  manifest += "], \"outputs\": [";
  for (size_t i = 0; i < expected.size(); ++i)
    manifest += (i ? ", " : "") + entry(expected[i].tensor, fmt::format("expected_{}", i));
  manifest += "], \"notes\": [";
  for (size_t i = 0; i < c.notes.size(); ++i) {
    std::string escaped;
    for (char ch : c.notes[i])
      escaped += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    manifest += (i ? ", \"" : "\"") + escaped + "\"";
  }
  manifest += "]}\n";
  write_bytes(to / "manifest.json", manifest);
}

bool check_data_set(const Compiled &c, const std::string &dir, const VerifyOptions &o,
                    const CompositeIO &io) {
  const ModelLibrary &lib = *c.lib;
  const DataSet data = read_for(c, dir, io);
  const std::vector<NamedTensor> &expected = data.expected;
  ModelLibrary::Context ctx(lib);
  ctx.set_num_threads(o.threads);
  std::vector<Tensor> got = ctx.run(data.ins);
  if (expected.size() != got.size())
    fail("{}: has {} expected outputs but the model produces {}", dir, expected.size(), got.size());
  bool ok = true;
  for (size_t i = 0; i < got.size(); ++i) {
    if (i < data.empty_element.size() && data.empty_element[i]) {
      const bool empty = got[i].numel() == 0;
      ok = ok && empty;
      std::cout << fmt::format("{} {} output {} '{}': {} (past the sequence's length)\n",
                               empty ? "PASS" : "FAIL", dir, i, lib.outputs()[i].name,
                               empty ? "empty"
                                     : fmt::format("{} elements, expected none", got[i].numel()));
      continue;
    }
    Comparison cmp = compare_tensors(got[i], expected[i].tensor, o.rtol, o.atol);
    ok = ok && cmp.ok;
    std::string detail =
        cmp.problem.empty()
            ? fmt::format("max abs error {:.3g}, max rel error {:.3g}, {} of {} elements outside "
                          "rtol={} atol={}",
                          cmp.max_abs_error, cmp.max_rel_error, cmp.mismatches, got[i].numel(),
                          o.rtol, o.atol)
            : cmp.problem;
    std::cout << fmt::format("{} {} output {} '{}': {}\n", cmp.ok ? "PASS" : "FAIL", dir, i,
                             lib.outputs()[i].name, detail);
  }
  return ok;
}

} // namespace

int cmd_verify(const VerifyOptions &o) {
  if (o.data_dirs.empty())
    fail("verify needs at least one test data directory");
  // A map input's data cannot be read: name it first. Sequence / optional data is flattened.
  auto model = load_model(o.model_path);
  check_input_kinds(*model->graph);
  CompositeIO io = composite_io(*model->graph);
  TempDir tmp;
  int failed = 0, index = 0, exported = 0;
  Compiled shared;
  for (const std::string &dir : o.data_dirs) {
    // One compile serves every data set unless input values are compiled in.
    if (!shared.lib || !shared.baked.empty()) {
      fs::path out = tmp.path() / fmt::format("libmodel{}.so", index++);
      shared = compile_for(o, read_data(dir, "input", io), out, dir, io);
    }
    if (!o.export_dir.empty()) {
      export_data_set(shared, dir, o, io, fs::path(o.export_dir) / std::to_string(exported++));
      continue;
    }
    failed += !check_data_set(shared, dir, o, io);
  }
  if (!o.export_dir.empty()) {
    std::cout << fmt::format("{}: exported {} data sets to {}\n", o.model_path, o.data_dirs.size(),
                             o.export_dir);
    return 0;
  }
  std::cout << fmt::format("{}: {} of {} data sets passed\n", o.model_path,
                           o.data_dirs.size() - failed, o.data_dirs.size());
  return failed ? 1 : 0;
}

} // namespace onnxc
