#!/usr/bin/env bash
# Lists every tool and library that building onnxc and running its whole test suite use, checks
# each one on this machine, and names the Debian package of each one that is missing. Exit 0 when
# all are present, 1 otherwise (with one line per missing item). It checks files and commands, not
# package databases, so a machine cannot pass it with a package "installed" but broken, and the
# list is the one place that says what the tests need: scripts/setup.sh installs these packages.
#
# Run by .ci/run after setup.sh and registered as the ctest `setup.dependencies`, so the README's
# test command fails with the package name on a machine that lacks one instead of failing (or
# skipping) somewhere in the middle.
#
#   scripts/check_deps.sh            check everything
#   scripts/check_deps.sh --list     print the list (kind, what, package, why) and exit 0
#   scripts/check_deps.sh --setup-covers
#                                    check that scripts/setup.sh installs every package named here
set -uo pipefail

llvm=/usr/lib/llvm-19
clang_rt=$llvm/lib/clang/19/lib/linux

# kind | what | Debian package | what needs it
checks=(
  "cmd|cmake|cmake|the build"
  "cmd|ninja|ninja-build|the build (-G Ninja)"
  "cmd|c++|g++|the build (C++20)"
  "cmd|cc|gcc|the build; tests compile C programs against generated headers"
  "cmd|pkg-config|pkg-config|the build (protobuf), the pkg-config test"
  "cmd|git|git|CI, scripts"
  "file|$llvm/lib/cmake/llvm/LLVMConfig.cmake|llvm-19-dev|codegen: libLLVM-19 as a library"
  "file|$llvm/lib/cmake/lld/LLDConfig.cmake|liblld-19-dev|codegen: lld linked in-process"
  "cmd|$llvm/bin/llvm-link|llvm-19|kernel and runtime bitcode"
  "cmd|clang-19|clang-19|kernel and runtime bitcode; the sanitizer/fuzz tree"
  "file|$clang_rt/libclang_rt.asan-x86_64.a|libclang-rt-19-dev|sanitize.* tests, ASan tree"
  "file|$clang_rt/libclang_rt.tsan-x86_64.a|libclang-rt-19-dev|sanitize.tsan_* tests"
  "file|$clang_rt/libclang_rt.fuzzer-x86_64.a|libclang-rt-19-dev|the libFuzzer target (CI stage 2)"
  "file|/usr/include/zlib.h|zlib1g-dev|lld's CMake targets"
  "file|/usr/include/zstd.h|libzstd-dev|lld's CMake targets"
  "file|/usr/include/onnx/onnx-ml.pb.h|libonnx-dev|the model loader"
  "file|/usr/include/google/protobuf/message.h|libprotobuf-dev|the model loader"
  "cmd|protoc|protobuf-compiler|the model loader"
  "file|/usr/include/fmt/core.h|libfmt-dev|messages"
  "file|/usr/include/CLI/CLI.hpp|libcli11-dev|the command line"
  "file|/usr/include/catch2/catch.hpp|catch2|unit tests"
  "cmd|/usr/bin/python3|python3|test and sample model generators"
  "py|onnx|python3-onnx|test and sample model generators"
  "py|numpy|python3-numpy|test references"
  "cmd|readelf|binutils|e2e: library dependencies and exports"
  "cmd|file|file|e2e checks"
  "cmd|script|bsdutils|tests that need a terminal"
  "cmd|qemu-aarch64|qemu-user|cross tests (ctest -L cross)"
  "cmd|qemu-arm|qemu-user|cross tests (ctest -L cross), ARMv7"
  "cmd|aarch64-linux-gnu-gcc|gcc-aarch64-linux-gnu|cross tests: the AArch64 test program"
  "cmd|arm-linux-gnueabihf-gcc|gcc-arm-linux-gnueabihf|cross tests: the ARMv7 test program"
  "file|/usr/aarch64-linux-gnu/lib/libc.so.6|libc6-arm64-cross|cross tests: qemu-aarch64 -L"
  "file|/usr/arm-linux-gnueabihf/lib/libc.so.6|libc6-armhf-cross|cross tests: qemu-arm -L"
)

if [[ ${1:-} == --list ]]; then
  printf '%-5s %-58s %-24s %s\n' kind what package "needed for"
  for c in "${checks[@]}"; do
    IFS='|' read -r kind what pkg why <<<"$c"
    printf '%-5s %-58s %-24s %s\n' "$kind" "$what" "$pkg" "$why"
  done
  exit 0
fi

if [[ ${1:-} == --setup-covers ]]; then
  setup=$(dirname "${BASH_SOURCE[0]}")/setup.sh
  # The words of setup.sh's packages=( ... ) array.
  mapfile -t installed < <(sed -n '/^packages=(/,/^)/p' "$setup" | sed '1d;$d' | tr -s ' ' '\n' |
    sed '/^$/d')
  uncovered=0
  for c in "${checks[@]}"; do
    IFS='|' read -r kind what pkg why <<<"$c"
    # A loop, not `printf | grep -q`: under pipefail, grep -q exiting at the first match can
    # kill printf with SIGPIPE and fail the pipeline (a package reported missing at random).
    found=0
    for p in "${installed[@]}"; do
      [[ $p == "$pkg" ]] && found=1 && break
    done
    if ((!found)); then
      echo "scripts/setup.sh does not install $pkg (needed for $why: $what)" >&2
      uncovered=1
    fi
  done
  ((uncovered)) && exit 1
  echo "check_deps.sh: setup.sh installs all ${#installed[@]} packages; every check is covered"
  exit 0
fi

missing=()
for c in "${checks[@]}"; do
  IFS='|' read -r kind what pkg why <<<"$c"
  case $kind in
    cmd) command -v "$what" >/dev/null 2>&1 && continue ;;
    file) [[ -e $what ]] && continue ;;
    py) /usr/bin/python3 -c "import $what" >/dev/null 2>&1 && continue ;;
    *) echo "check_deps.sh: unknown kind '$kind'" >&2; exit 2 ;;
  esac
  missing+=("$pkg")
  echo "missing: $what (Debian package $pkg; needed for $why)" >&2
done

if ((${#missing[@]})); then
  mapfile -t unique < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "check_deps.sh: ${#unique[@]} package(s) missing; run scripts/setup.sh, or:" >&2
  echo "  apt-get install ${unique[*]}" >&2
  exit 1
fi
echo "check_deps.sh: all ${#checks[@]} build and test dependencies present"
