#include "compiler/frontend/tensor_proto.h"
#include "compiler/frontend/external_data.h"
#include "compiler/ir/error.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace onnxc {
namespace {

/// Largest tensor accepted (matches the Tensor constructor's cap).
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 40;

class Converter {
public:
  Converter(const onnx::TensorProto &p, const std::string &origin) : p_(p), origin_(origin) {}

  [[noreturn]] void bad(const std::string &reason) const {
    std::string name = p_.name().empty() ? "<unnamed>" : p_.name();
    if (origin_.empty())
      fail("tensor '{}': {}", name, reason);
    fail("{}: tensor '{}': {}", origin_, name, reason);
  }

  DType dtype() const {
    int32_t v = p_.data_type();
    if (v == 0)
      bad("has no data type (data_type is 0, UNDEFINED)");
    if (!dtype_is_known(v))
      bad(fmt::format("has data type {}, which onnxc does not know (it knows 1..{}); the model "
                      "may need a newer onnxc",
                      v, kMaxDType));
    return static_cast<DType>(v);
  }

  std::vector<int64_t> dims() const {
    std::vector<int64_t> d(p_.dims().begin(), p_.dims().end());
    for (int64_t x : d)
      if (x < 0)
        bad(fmt::format("has a negative dimension {} (dims [{}])", x, fmt::join(d, ", ")));
    try {
      checked_numel(d);
    } catch (const Error &) {
      bad(fmt::format("has too many elements (dims [{}])", fmt::join(d, ", ")));
    }
    return d;
  }

  uint64_t storage_bytes(DType dt, int64_t numel) const {
    auto n = dtype_storage_bytes(dt, static_cast<uint64_t>(numel));
    if (!n || *n > kMaxTensorBytes)
      bad(fmt::format("is too large ({} {} elements)", numel, dtype_name(dt)));
    return *n;
  }

  /// The typed field that holds `dt` values and how many entries it has.
  std::pair<const char *, uint64_t> typed_field(DType dt) const {
    auto n = [](int size) { return static_cast<uint64_t>(size); };
    switch (dt) {
    case DType::Float:
    case DType::Complex64:
      return {"float_data", n(p_.float_data_size())};
    case DType::Double:
    case DType::Complex128:
      return {"double_data", n(p_.double_data_size())};
    case DType::Int64:
      return {"int64_data", n(p_.int64_data_size())};
    case DType::Uint32:
    case DType::Uint64:
      return {"uint64_data", n(p_.uint64_data_size())};
    case DType::String:
      return {"string_data", n(p_.string_data_size())};
    default:
      break;
    }
    if (dtype_bits(dt) < 8)
      return {"int32_data (packed bytes)", n(p_.int32_data_size())};
    return {"int32_data", n(p_.int32_data_size())};
  }

  /// Entries the typed field must have: complex numbers take two, sub-byte types are packed.
  static uint64_t typed_needed(DType dt, int64_t numel) {
    auto n = static_cast<uint64_t>(numel);
    if (dt == DType::Complex64 || dt == DType::Complex128)
      return 2 * n;
    if (dt != DType::String && dtype_bits(dt) < 8)
      return *dtype_storage_bytes(dt, n);
    return n;
  }

  void check_typed(DType dt, const std::vector<int64_t> &dims, int64_t numel) const {
    auto [field, have] = typed_field(dt);
    uint64_t need = typed_needed(dt, numel);
    if (have == need)
      return;
    if (have == 0)
      bad(fmt::format("has no data, but its {} dims [{}] need {} values in {}", dtype_name(dt),
                      fmt::join(dims, ", "), need, field));
    bad(fmt::format("has {} values in {}, but its {} dims [{}] need {}", have, field,
                    dtype_name(dt), fmt::join(dims, ", "), need));
  }

  void check_bytes(DType dt, const std::vector<int64_t> &dims, uint64_t size,
                   const char *where) const {
    if (dt == DType::String)
      bad(fmt::format("is a string tensor with data in {}; strings must be in string_data", where));
    uint64_t need = storage_bytes(dt, checked_numel(dims));
    if (size != need)
      bad(fmt::format("has {} bytes of {}, but its {} dims [{}] need {} bytes", size, where,
                      dtype_name(dt), fmt::join(dims, ", "), need));
  }

  /// Copies a typed repeated field (already checked), converting each value to Dst: ONNX stores
  /// small types widened to int32, float16/bfloat16/float8 as their bit patterns.
  template <typename Dst, typename Field> static void copy_field(const Field &f, Tensor &t) {
    uint8_t *out = t.data();
    for (int i = 0; i < f.size(); ++i) {
      Dst v = static_cast<Dst>(f.Get(i));
      std::memcpy(out + static_cast<size_t>(i) * sizeof(Dst), &v, sizeof(Dst));
    }
  }

  void fill_typed(Tensor &t) const {
    switch (t.dtype()) {
    case DType::Float:
    case DType::Complex64:
      return copy_field<float>(p_.float_data(), t);
    case DType::Double:
    case DType::Complex128:
      return copy_field<double>(p_.double_data(), t);
    case DType::Int64:
      return copy_field<int64_t>(p_.int64_data(), t);
    case DType::Uint64:
      return copy_field<uint64_t>(p_.uint64_data(), t);
    case DType::Uint32:
      return copy_field<uint32_t>(p_.uint64_data(), t);
    case DType::Int32:
      return copy_field<int32_t>(p_.int32_data(), t);
    case DType::String:
      t.strings().assign(p_.string_data().begin(), p_.string_data().end());
      return;
    default:
      break;
    }
    if (dtype_bits(t.dtype()) == 16)
      return copy_field<uint16_t>(p_.int32_data(), t);
    copy_field<uint8_t>(p_.int32_data(), t); // 8-bit types, and packed bytes of sub-byte types
  }

private:
  const onnx::TensorProto &p_;
  const std::string &origin_;
};

} // namespace

Tensor tensor_from_proto(const onnx::TensorProto &proto, const std::string &base_dir,
                         const std::string &origin) {
  Converter c(proto, origin);
  DType dt = c.dtype();
  std::vector<int64_t> dims = c.dims();
  if (proto.has_segment())
    c.bad("is segmented (TensorProto.segment), which onnxc does not support");
  // Sizes are validated before the Tensor allocates anything.
  if (dt != DType::String)
    c.storage_bytes(dt, checked_numel(dims));
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    if (dt == DType::String)
      c.bad("is a string tensor stored as external data; strings must be in string_data");
    std::vector<uint8_t> bytes = read_external_data(proto, base_dir, origin);
    c.check_bytes(dt, dims, bytes.size(), "external data");
    Tensor t(dt, std::move(dims));
    std::copy(bytes.begin(), bytes.end(), t.data());
    return t;
  }
  if (proto.has_raw_data()) {
    if (auto [field, have] = c.typed_field(dt); have != 0)
      c.bad(fmt::format("has both raw_data and {} ({} values); its data must be in exactly one "
                        "of them",
                        field, have));
    const std::string &raw = proto.raw_data();
    c.check_bytes(dt, dims, raw.size(), "raw_data");
    Tensor t(dt, std::move(dims));
    std::copy(raw.begin(), raw.end(), t.data());
    return t;
  }
  c.check_typed(dt, dims, checked_numel(dims));
  Tensor t(dt, std::move(dims));
  c.fill_typed(t);
  return t;
}

void tensor_to_proto(const Tensor &tensor, const std::string &name, onnx::TensorProto &proto) {
  proto.Clear();
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t d : tensor.shape())
    proto.add_dims(d);
  if (tensor.dtype() == DType::String) {
    for (const std::string &s : tensor.strings())
      proto.add_string_data(s);
  } else {
    proto.set_raw_data(tensor.bytes().data(), tensor.nbytes());
  }
}

NamedTensor read_tensor_file(const std::string &path, const ParseLimits &limits) {
  std::string bytes = read_file_bytes(path, "tensor file", limits.max_bytes);
  onnx::TensorProto proto;
  if (!parse_bounded(bytes, proto, limits))
    fail("{}: not a valid serialized ONNX TensorProto (the file is truncated, corrupted or not "
         "a tensor); ONNX test data files hold one TensorProto each",
         path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  Tensor t = tensor_from_proto(proto, dir.empty() ? "." : dir, path);
  return NamedTensor{proto.name(), std::move(t)};
}

void write_tensor_file(const std::string &path, const std::string &name, const Tensor &tensor) {
  onnx::TensorProto proto;
  tensor_to_proto(tensor, name, proto);
  std::string bytes;
  if (!proto.SerializeToString(&bytes))
    fail("{}: cannot serialize tensor '{}' (it may exceed 2 GiB)", path, name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    fail("{}: cannot write tensor file (check that the directory exists and is writable)", path);
}

} // namespace onnxc
