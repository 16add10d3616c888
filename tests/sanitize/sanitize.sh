#!/usr/bin/env bash
# Sanitizer tests of generated code (tests/sanitize/CMakeLists.txt registers each as sanitize.CASE).
#
#   sanitize.sh CASE   with ONNXC, CLANG (clang-19 with compiler-rt), PYTHON, SRC_DIR and WORK_DIR
#                      in the environment
#
# prepare                   generates the sample model and its numpy reference, compiles it with
#                           --sanitize=thread and --sanitize=address, and checks that the
#                           libraries are really instrumented (they import __tsan_* / __asan_*)
# tsan_concurrent_runs      tsan_concurrent.c (-fsanitize=thread): 4 threads, separate contexts
# tsan_detects_races        the control: 2 threads sharing one context must be reported by TSan
#                           (proves the generated code is instrumented, not just the test program)
# asan_bad_inputs           tests/e2e/bad_inputs.c (-fsanitize=address,undefined) on the
#                           ASan-instrumented library: NULLs, wrong shapes/dtypes/sizes at run time
#                           return an error, and no access is out of bounds
# asan_runtime_indices      runtime_indices.c: Gather/GatherElements indices from the caller,
#                           out of range at run time -> ONNXC_ERROR_INDEX_OUT_OF_RANGE + message
set -euo pipefail

case_name=$1
: "${ONNXC:?}" "${CLANG:?}" "${PYTHON:?}" "${SRC_DIR:?}" "${WORK_DIR:?}"
models=$WORK_DIR/models
tsan_lib=$WORK_DIR/tsan
asan_lib=$WORK_DIR/asan
out=$WORK_DIR/$case_name
cflags=(-std=c11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -I "$SRC_DIR"
        -I "$SRC_DIR/tests/e2e")
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=66"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

# imports LIB PREFIX: fails unless LIB has undefined dynamic symbols starting with PREFIX.
imports() {
  if ! readelf --dyn-syms -W "$1" | awk '$7 == "UND" {print $8}' | grep -q "^$2"; then
    echo "FAIL: $1 imports no $2* symbols: the generated code is not instrumented" >&2
    exit 1
  fi
}

case_prepare() {
  mkdir -p "$models" "$tsan_lib" "$asan_lib"
  "$PYTHON" "$SRC_DIR/samples/make_sample_model.py" "$models/model.onnx" --model cnn \
    --reference "$models"
  "$ONNXC" compile "$models/model.onnx" -o "$tsan_lib/libsample.so" --sanitize=thread
  "$ONNXC" compile "$models/model.onnx" -o "$asan_lib/libsample.so" --sanitize=address
  "$PYTHON" "$SRC_DIR/tests/sanitize/make_index_model.py" "$models/indices.onnx"
  "$ONNXC" compile "$models/indices.onnx" -o "$asan_lib/libindices.so" --sanitize=address
  imports "$tsan_lib/libsample.so" __tsan_
  imports "$asan_lib/libsample.so" __asan_
}

build_tsan_test() {
  mkdir -p "$out"
  "$CLANG" "${cflags[@]}" -fsanitize=thread "$SRC_DIR/tests/sanitize/tsan_concurrent.c" \
    -I "$tsan_lib" -L "$tsan_lib" -Wl,-rpath,"$tsan_lib" -lsample -pthread -o "$out/tsan_concurrent"
}

case_tsan_concurrent_runs() {
  build_tsan_test
  "$out/tsan_concurrent" "$models/expected.txt" "${ITERATIONS:-300}"
}

case_tsan_detects_races() {
  build_tsan_test
  set +e
  output=$("$out/tsan_concurrent" "$models/expected.txt" 20 --share 2>&1)
  status=$?
  set -e
  echo "$output" | head -40
  if [[ $status -ne 66 ]] || ! grep -q "WARNING: ThreadSanitizer: data race" <<<"$output"; then
    echo "FAIL: TSan did not report the race on a shared context (exit $status)" >&2
    exit 1
  fi
  echo "PASS: TSan reports the race in the instrumented generated code"
}

case_asan_bad_inputs() {
  mkdir -p "$out"
  "$CLANG" "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    "$SRC_DIR/tests/e2e/bad_inputs.c" -ldl -o "$out/bad_inputs"
  "$out/bad_inputs" "$asan_lib/libsample.so" "$models/expected.txt"
}

case_asan_runtime_indices() {
  mkdir -p "$out"
  "$CLANG" "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    "$SRC_DIR/tests/sanitize/runtime_indices.c" -ldl -o "$out/runtime_indices"
  "$out/runtime_indices" "$asan_lib/libindices.so"
}

"case_${case_name}"
