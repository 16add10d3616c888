#!/usr/bin/env bash
# Installs everything onnxc needs to build and test on Debian 12 (bookworm). Idempotent: run it
# again at any time. Uses sudo only when not already root.
#
# Why each package (LLVM 19 and lld 19 are in bookworm's main archive):
#   cmake ninja-build g++ pkg-config     the build
#   llvm-19-dev liblld-19-dev lld-19     libLLVM-19.so and lld as libraries (codegen, in-process
#                                        link); llvm-link-19 for the kernel/runtime bitcode
#   clang-19                             compiles templates/cpu and runtime_stub to bitcode
#   zlib1g-dev libzstd-dev               lldELF's CMake targets link ZLIB::ZLIB and zstd (llvm-19-dev
#                                        pulls them in too; named here because the build needs them)
#   libonnx-dev libprotobuf-dev          onnx.proto (onnx-ml.pb.h) and protobuf for the loader;
#                                        libonnx's operator schemas (input/output counts)
#   protobuf-compiler
#   libfmt-dev libcli11-dev catch2       formatting, the command line, unit tests
#   python3-onnx python3-numpy           /usr/bin/python3 generates the sample and test models
#   binutils file git                    readelf (tests/e2e, tests/static), nm (tests/static); general tooling
#   gcc python3 bsdutils                 cc for the C test programs, /usr/bin/python3, `script` for
#                                        tests that need a terminal (usually present; named so that
#                                        scripts/check_deps.sh --setup-covers holds)
#   libclang-rt-19-dev                   clang's sanitizer runtimes (libclang_rt.asan/tsan/ubsan/
#                                        fuzzer): the sanitize.* tests and the ASan/libFuzzer tree
#   qemu-user gcc-aarch64-linux-gnu      the cross tests (ctest -L cross): AArch64 and ARMv7
#   gcc-arm-linux-gnueabihf              libraries compiled by onnxc run under qemu, driven by a
#   libc6-dev-arm64-cross                test program cross-compiled with the target's gcc and libc
#   libc6-dev-armhf-cross
# scripts/check_deps.sh lists every tool and library the build and the tests use, and names the
# package of each one that is missing; .ci/run calls it after this script.
# Not needed: LLVM's CMake config only references libedit, libcurl and libpfm from components
# onnxc does not link (LLVMLineEditor, LLVMDebuginfod, LLVMExegesis), and llvm-19-dev already
# depends on libffi-dev, libxml2-dev and libz3-dev.
set -euo pipefail

packages=(
  cmake ninja-build gcc g++ pkg-config git bsdutils python3
  llvm-19 llvm-19-dev liblld-19-dev lld-19 clang-19
  zlib1g-dev libzstd-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libfmt-dev libcli11-dev catch2
  python3-onnx python3-numpy
  binutils file
  libclang-rt-19-dev
  qemu-user gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
  libc6-arm64-cross libc6-dev-arm64-cross libc6-armhf-cross libc6-dev-armhf-cross
)

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "setup.sh: not root and sudo is not installed; run it as root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
