#!/usr/bin/env bash
# Generates the "transformer" sample model, compiles it with onnxc, builds samples/textgen.c
# against the library with the system C compiler and runs it on a prompt.
#
#   samples/run_textgen.sh ONNXC OUT_DIR [PROMPT [STEPS]]   (CC overrides the C compiler)
#
# OUT_DIR receives transformer.onnx, libtransformer.so, transformer.h, the app textgen and
# reference/ (the numpy reference output on the prompt "onnxc on aarch64").
set -euo pipefail

onnxc=$1
out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
shift 2
if [ $# -eq 0 ]; then
  set -- "onnxc"
fi

/usr/bin/python3 "$here/make_sample_model.py" "$out/transformer.onnx" --model transformer \
  --reference "$out/reference"
"$onnxc" compile "$out/transformer.onnx" -o "$out/libtransformer.so" >/dev/null
"${CC:-cc}" -std=c11 -O2 -Wall -Wextra -I "$out" "$here/textgen.c" -L "$out" -ltransformer \
  -Wl,-rpath,'$ORIGIN' -o "$out/textgen"
"$out/textgen" "$@"
