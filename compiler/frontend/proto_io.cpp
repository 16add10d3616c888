#include "compiler/frontend/proto_io.h"
#include "compiler/ir/error.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace onnxc {

bool parse_bounded(const std::string &bytes, google::protobuf::MessageLite &msg,
                   const ParseLimits &limits) {
  int64_t cap = std::clamp<int64_t>(limits.max_bytes, 0, INT_MAX);
  if (static_cast<int64_t>(bytes.size()) > cap)
    return false;
  google::protobuf::LogSilencer silence; // malformed input is reported by our caller
  google::protobuf::io::ArrayInputStream array(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&array);
  coded.SetTotalBytesLimit(static_cast<int>(cap));
  coded.SetRecursionLimit(limits.recursion_limit);
  msg.Clear();
  return msg.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

namespace {

/// The size of the regular file at `path`; throws Error naming it when it cannot be read or is
/// larger than `max_bytes`.
int64_t checked_file_size(const std::string &path, const std::string &what, int64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    fail("{}: cannot read the {}: {}", path, what,
         fs::exists(path, ec) ? "it is not a regular file" : "no such file");
  auto size = fs::file_size(path, ec);
  if (ec)
    fail("{}: cannot read the {}: {}", path, what, ec.message());
  if (static_cast<int64_t>(size) > max_bytes)
    fail("{}: the {} is {} bytes, more than the limit of {} bytes; store large weights as "
         "external data (onnx.save_model(..., save_as_external_data=True))",
         path, what, size, max_bytes);
  return static_cast<int64_t>(size);
}

} // namespace

bool parse_file_bounded(const std::string &path, const std::string &what,
                        google::protobuf::MessageLite &msg, const ParseLimits &limits) {
  const int64_t size = checked_file_size(path, what, limits.max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("{}: cannot read the {}: cannot open it", path, what);
  google::protobuf::LogSilencer silence; // malformed input is reported by our caller
  google::protobuf::io::IstreamInputStream stream(&in);
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(static_cast<int>(std::clamp<int64_t>(size, 0, INT_MAX)));
  coded.SetRecursionLimit(limits.recursion_limit);
  msg.Clear();
  bool ok = msg.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  if (in.bad())
    fail("{}: cannot read the {}: I/O error", path, what);
  return ok;
}

std::string read_file_bytes(const std::string &path, const std::string &what, int64_t max_bytes) {
  const int64_t size = checked_file_size(path, what, max_bytes);
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(size)))
    fail("{}: cannot read the {}: I/O error", path, what);
  return bytes;
}

} // namespace onnxc
