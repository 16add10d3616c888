#!/usr/bin/env bash
# Generates the "mobilenet" sample model, compiles it with onnxc, builds samples/classify.c
# against the library with the system C compiler and classifies an image with it.
#
#   samples/run_classify.sh ONNXC OUT_DIR [IMAGE.ppm]     (CC overrides the C compiler)
#
# OUT_DIR receives mobilenet.onnx, libmobilenet.so, mobilenet.h, the app classify, pattern.ppm
# (the model's 64x64 sample input image) and reference/ (its numpy reference output). Without
# IMAGE.ppm the app classifies pattern.ppm.
set -euo pipefail

onnxc=$1
out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
image=${3:-$out/pattern.ppm}

/usr/bin/python3 "$here/make_sample_model.py" "$out/mobilenet.onnx" --model mobilenet \
  --reference "$out/reference" --ppm "$out/pattern.ppm"
"$onnxc" compile "$out/mobilenet.onnx" -o "$out/libmobilenet.so" >/dev/null
"${CC:-cc}" -std=c11 -O2 -Wall -Wextra -I "$out" "$here/classify.c" -L "$out" -lmobilenet \
  -Wl,-rpath,'$ORIGIN' -o "$out/classify"
"$out/classify" "$image"
