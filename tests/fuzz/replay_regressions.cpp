// Replays inputs that once crashed the loader or a pass (tests/fuzz/regressions/) and the seed
// corpus (tests/fuzz/corpus/) through the fuzz entry point in an ordinary build: each must either
// compile or be rejected with onnxc::Error. A crash, a sanitizer report or any other exception
// fails the test (ctest fuzz.regressions).
//
//   fuzz_replay FILE_OR_DIR...
#include "tests/fuzz/fuzz_entry.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static std::vector<fs::path> collect(int argc, char **argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto &e : fs::directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.')
          files.push_back(e.path());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

int main(int argc, char **argv) {
  std::vector<fs::path> files = collect(argc, argv);
  if (files.empty()) {
    std::fprintf(stderr, "fuzz_replay: no input files\n");
    return 1;
  }
  int compiled = 0, rejected = 0;
  for (const auto &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("%s ... ", f.filename().c_str());
    std::fflush(stdout);
    try {
      bool ok = onnxc::fuzz_compile_bytes(reinterpret_cast<const uint8_t *>(bytes.data()),
                                          bytes.size());
      std::printf("%s\n", ok ? "compiled" : "rejected");
      ++(ok ? compiled : rejected);
    } catch (const std::exception &e) {
      std::printf("FAIL: exception other than onnxc::Error: %s\n", e.what());
      return 1;
    }
  }
  std::printf("%zu inputs: %d compiled, %d rejected with onnxc::Error, no crash\n", files.size(),
              compiled, rejected);
  return 0;
}
