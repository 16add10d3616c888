#!/usr/bin/env bash
# From a fresh Debian 12 machine to a running compiled model:
#   1. scripts/setup.sh            installs the packages (apt; sudo when not root)
#   2. configures and builds onnxc (Release) in build/
#   3. samples/run_sample.sh       generates the sample CNN (samples/make_sample_model.py),
#                                  compiles it with build/bin/onnxc into build/sample/libsample.so
#                                  + sample.h, builds samples/main.c with cc and runs it
# Set ONNXC_SKIP_SETUP=1 to skip step 1 when the packages are already installed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [[ ${ONNXC_SKIP_SETUP:-0} != 1 ]]; then
  bash scripts/setup.sh
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
bash samples/run_sample.sh build/bin/onnxc build/sample
echo
echo "onnxc is build/bin/onnxc; the sample library, header and app are in build/sample/."
echo "Run the tests with: ctest --test-dir build --output-on-failure -j\"\$(nproc)\""
