// Bounded protobuf I/O for the frontend: every message read from a file or a buffer goes through
// here, so malformed or hostile input can neither exhaust memory nor blow the stack.
#pragma once

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <string>

namespace onnxc {

/// Limits applied when parsing a protobuf message.
struct ParseLimits {
  /// Largest serialized message accepted (protobuf's own cap is 2 GiB - 1; larger models must
  /// keep their weights in external data files).
  int64_t max_bytes = INT32_MAX;
  /// Deepest nesting of messages accepted (subgraphs of subgraphs ...).
  int recursion_limit = 100;
};

/// Parses `bytes` into `msg` within `limits`. Returns false (never throws, never logs) if the bytes
/// are not one complete valid message or exceed the limits.
bool parse_bounded(const std::string &bytes, google::protobuf::MessageLite &msg,
                   const ParseLimits &limits);

/// Parses the file at `path` into `msg` within `limits`, streaming it (no copy of the whole file
/// is held beside the message). Throws Error naming `path` and `what` when the file cannot be
/// read or is larger than `limits.max_bytes`; returns false when its bytes are not one complete
/// valid message.
bool parse_file_bounded(const std::string &path, const std::string &what,
                        google::protobuf::MessageLite &msg, const ParseLimits &limits);

/// Reads a whole file. Throws Error naming `path` and `what` ("model", "tensor file") if the file
/// cannot be opened or is larger than `max_bytes`.
std::string read_file_bytes(const std::string &path, const std::string &what, int64_t max_bytes);

} // namespace onnxc
