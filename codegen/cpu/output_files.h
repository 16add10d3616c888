// Files the CPU backend writes: a private temp directory for intermediates, and outputs that
// appear atomically (written beside their final path, then renamed) so that a failure never
// leaves a partial or stale artifact behind.
#pragma once

#include <string>
#include <string_view>

namespace onnxc {

/// A fresh private directory under the system temp dir ($TMPDIR or /tmp), removed with its
/// contents on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  /// Path of `name` inside the directory.
  std::string file(const std::string &name) const;

private:
  std::string path_;
};

/// A unique temporary path in the directory of `final_path`. Whoever writes it calls commit()
/// to rename it to final_path; otherwise the destructor removes it.
class PendingOutput {
public:
  explicit PendingOutput(const std::string &final_path);
  ~PendingOutput();
  PendingOutput(const PendingOutput &) = delete;
  PendingOutput &operator=(const PendingOutput &) = delete;
  const std::string &temp_path() const { return temp_path_; }
  /// Renames the temp file to the final path. Throws Error on failure.
  void commit();

private:
  std::string final_path_, temp_path_;
  bool committed_ = false;
};

/// Writes `data` to `path` (replacing it). Throws Error on failure.
void write_file(const std::string &path, std::string_view data);

/// write_file() through a PendingOutput: `path` holds either its old content or all of `data`.
void write_file_atomically(const std::string &path, std::string_view data);

} // namespace onnxc
