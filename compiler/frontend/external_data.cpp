#include "compiler/frontend/external_data.h"
#include "compiler/ir/error.h"

#include <onnx/onnx_pb.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

namespace onnxc {
namespace fs = std::filesystem;
namespace {

struct ExternalRef {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

/// Everything a message needs to say where it came from.
struct Where {
  const std::string &origin;
  const std::string &tensor;
};

[[noreturn]] void refuse(const Where &w, const std::string &reason, const std::string &hint) {
  fail("{}: tensor '{}': external data {}; {}", w.origin.empty() ? "<model>" : w.origin, w.tensor,
       reason, hint);
}

uint64_t parse_u64(const Where &w, const std::string &key, const std::string &text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    refuse(w, "key '" + key + "' is '" + text + "', not a non-negative integer",
           "fix the external_data entry of this tensor");
  return v;
}

ExternalRef parse_ref(const onnx::TensorProto &t, const Where &w) {
  ExternalRef ref;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location")
      ref.location = kv.value();
    else if (kv.key() == "offset")
      ref.offset = parse_u64(w, kv.key(), kv.value());
    else if (kv.key() == "length")
      ref.length = parse_u64(w, kv.key(), kv.value());
  }
  if (ref.location.empty())
    refuse(w, "has no 'location' key", "the model file is incomplete; re-export it");
  return ref;
}

/// True if `p` is `dir` or lies below it (both canonical).
bool is_within(const fs::path &p, const fs::path &dir) {
  auto d = dir.begin(), q = p.begin();
  for (; d != dir.end(); ++d, ++q)
    if (q == p.end() || *q != *d)
      return false;
  return true;
}

const char *kKeepInDir = "keep external data files in the model's directory (or below it) and "
                         "refer to them by a relative path";

fs::path resolve_location(const ExternalRef &ref, const std::string &base_dir, const Where &w) {
  if (base_dir.empty())
    refuse(w, "'" + ref.location + "' cannot be resolved: the model was loaded from memory",
           "load the model from its file, or pass the directory of its data files");
  fs::path loc(ref.location);
  if (loc.is_absolute() || loc.has_root_name() || loc.has_root_directory())
    refuse(w, "location '" + ref.location + "' is an absolute path", kKeepInDir);
  for (const auto &part : loc)
    if (part == "..")
      refuse(w, "location '" + ref.location + "' contains '..'", kKeepInDir);
  std::error_code ec;
  fs::path dir = fs::canonical(base_dir, ec);
  if (ec)
    refuse(w, "directory '" + base_dir + "' is not accessible: " + ec.message(),
           "check the model's directory");
  fs::path full = dir / loc;
  if (!fs::exists(fs::symlink_status(full, ec)))
    refuse(w, "file '" + full.string() + "' does not exist",
           "copy the data file next to the model");
  fs::path real = fs::canonical(full, ec);
  if (ec)
    refuse(w, "file '" + full.string() + "' cannot be resolved: " + ec.message(),
           "check the data file and any symlink to it");
  if (!is_within(real, dir))
    refuse(w,
           "location '" + ref.location + "' resolves to '" + real.string() +
               "', outside the model's directory",
           kKeepInDir);
  if (!fs::is_regular_file(real, ec))
    refuse(w, "'" + real.string() + "' is not a regular file", "check the data file");
  return real;
}

std::vector<uint8_t> read_range(const fs::path &file, const ExternalRef &ref, const Where &w) {
  std::error_code ec;
  uint64_t size = fs::file_size(file, ec);
  if (ec)
    refuse(w, "file '" + file.string() + "' cannot be read: " + ec.message(),
           "check the data file");
  std::string range = fmt::format("offset {}", ref.offset);
  if (ref.offset > size)
    refuse(w, fmt::format("{} is past the end of '{}' ({} bytes)", range, file.string(), size),
           "the data file is truncated or belongs to another model");
  uint64_t length = ref.length.value_or(size - ref.offset);
  if (length > size - ref.offset)
    refuse(w,
           fmt::format("{} + length {} is past the end of '{}' ({} bytes)", range, length,
                       file.string(), size),
           "the data file is truncated or belongs to another model");
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(ref.offset));
  if (!in || !in.read(reinterpret_cast<char *>(bytes.data()), static_cast<std::streamsize>(length)))
    refuse(w, "could not be read from '" + file.string() + "'", "check the data file");
  return bytes;
}

} // namespace

std::vector<uint8_t> read_external_data(const onnx::TensorProto &tensor,
                                        const std::string &base_dir, const std::string &origin) {
  Where w{origin, tensor.name()};
  ExternalRef ref = parse_ref(tensor, w);
  fs::path file = resolve_location(ref, base_dir, w);
  return read_range(file, ref, w);
}

} // namespace onnxc
