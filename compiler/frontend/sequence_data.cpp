#include "compiler/frontend/sequence_data.h"
#include "compiler/frontend/proto_io.h"
#include "compiler/ir/error.h"

#include <onnx/onnx-data_pb.h>

#include <filesystem>

namespace onnxc {
namespace {

class Flattener {
public:
  Flattener(const std::string &path) : path_(path) {
    dir_ = std::filesystem::path(path).parent_path().string();
    if (dir_.empty())
      dir_ = ".";
  }

  void tensor(const onnx::TensorProto &p, const std::string &name) {
    out.tensors.push_back(NamedTensor{name, tensor_from_proto(p, dir_, path_)});
  }

  void sequence(const onnx::SequenceProto &p, const std::string &name) {
    if (p.sequence_values_size() || p.map_values_size() || p.optional_values_size())
      fail("{}: sequence '{}' holds sequences, maps or optionals; onnxc's desugared sequences "
           "hold tensors only",
           path_, name);
    out.lengths[name] = p.tensor_values_size();
    for (int k = 0; k < p.tensor_values_size(); ++k)
      tensor(p.tensor_values(k), fmt::format("{}.{}", name, k));
  }

  void optional(const onnx::OptionalProto &p, const std::string &name) {
    if (p.has_tensor_value())
      tensor(p.tensor_value(), name);
    else if (p.has_sequence_value())
      sequence(p.sequence_value(), name);
    else if (p.has_map_value() || p.has_optional_value())
      fail("{}: optional '{}' holds a map or an optional, which onnxc does not support", path_,
           name);
    else
      out.absent.insert(name);
  }

  FlatValue out;

private:
  std::string path_, dir_;
};

template <typename P> P parse(const std::string &path, const char *what) {
  std::string bytes = read_file_bytes(path, what, INT32_MAX);
  P proto;
  if (!parse_bounded(bytes, proto, ParseLimits{}))
    fail("{}: not a valid serialized ONNX {} (the model declares this value as one)", path, what);
  return proto;
}

} // namespace

FlatValue read_value_file(const std::string &path, const std::string &name, const Type &t) {
  Flattener f(path);
  if (t.kind == TypeKind::Sequence) {
    f.sequence(parse<onnx::SequenceProto>(path, "SequenceProto"), name);
  } else if (t.kind == TypeKind::Optional) {
    f.optional(parse<onnx::OptionalProto>(path, "OptionalProto"), name);
  } else {
    NamedTensor nt = read_tensor_file(path);
    f.out.tensors.push_back(NamedTensor{name, std::move(nt.tensor)});
  }
  return std::move(f.out);
}

} // namespace onnxc
