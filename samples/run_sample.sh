#!/usr/bin/env bash
# Generates the sample model, compiles it with onnxc and builds and runs samples/main.c against
# the library, with the system C compiler.
#
#   samples/run_sample.sh ONNXC OUT_DIR      (CC overrides the C compiler; default cc)
#
# OUT_DIR receives sample.onnx, libsample.so, sample.h, the app sample_app, and reference/ (the
# numpy reference input and output of samples/make_sample_model.py).
set -euo pipefail

onnxc=$1
out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

/usr/bin/python3 "$here/make_sample_model.py" "$out/sample.onnx" --reference "$out/reference"
"$onnxc" compile "$out/sample.onnx" -o "$out/libsample.so"
"${CC:-cc}" -std=c11 -O2 -Wall -Wextra -I "$out" "$here/main.c" -L "$out" -lsample \
  -Wl,-rpath,'$ORIGIN' -o "$out/sample_app"
"$out/sample_app"
