#!/usr/bin/env bash
# Runs one static-linking / weights-file / edge-budget test case (tests/static/CMakeLists.txt
# registers each as static.<case>).
#
#   static.sh CASE   with ONNXC, CC, SRC_DIR and WORK_DIR in the environment (as tests/e2e).
#
# `prepare` (the fixture of the other cases) generates the sample models with their numpy
# references (samples/make_sample_model.py) and the MobileNet-style model (make_mobilenet.py).
# Every case compiles what it needs into $WORK_DIR/<case> and links plain C programs with
# `cc app.c libNAME.a -lm -lpthread` and nothing else.
set -euo pipefail

case_name=$1
: "${ONNXC:?}" "${CC:?}" "${SRC_DIR:?}" "${WORK_DIR:?}"
models=$WORK_DIR/models
here=$SRC_DIR/tests/static
out=$WORK_DIR/$case_name
cflags=(-std=c11 -O2 -Wall -Wextra -Werror -I "$SRC_DIR" -I "$SRC_DIR/tests/e2e")

fail() { echo "FAIL: $*" >&2; exit 1; }

case_prepare() {
  for kind in cnn mlp; do
    mkdir -p "$models/$kind"
    /usr/bin/python3 "$SRC_DIR/samples/make_sample_model.py" "$models/$kind/model.onnx" \
      --model "$kind" --reference "$models/$kind"
  done
  mkdir -p "$models/mobilenet"
  /usr/bin/python3 "$here/make_mobilenet.py" "$models/mobilenet/model.onnx" \
    --reference "$models/mobilenet"
}

# check_static_object FILE NAME: defines only NAME_* globals, none of the generic onnxc_* ones.
check_static_object() {
  local file=$1 name=$2 defined bad
  defined=$(nm -g --defined-only "$file" | awk 'NF == 3 {print $3}' | sort -u)
  echo "$file defines: $(echo $defined)"
  bad=$(grep -Ev "^${name}_" <<<"$defined" || true)
  [[ -z $bad ]] || fail "$file defines symbols outside ${name}_*: $(echo $bad)"
  grep -qx "${name}_run_buffers" <<<"$defined" || fail "$file lacks ${name}_run_buffers"
  grep -qx "${name}_create_with_weights" <<<"$defined" || fail "$file lacks ${name}_create_with_weights"
}

# check_executable EXE: no text relocations in the linked program.
check_executable() {
  if readelf -d -W "$1" | grep -q TEXTREL; then fail "$1 has TEXTREL"; fi
}

case_static_archive() {
  mkdir -p "$out/lib"
  "$ONNXC" compile "$models/cnn/model.onnx" --emit static -o "$out/lib/libsample.a"
  "$ONNXC" compile "$models/mlp/model.onnx" --emit static -o "$out/lib/libsample_mlp.a"
  test -f "$out/lib/sample.h" && test -f "$out/lib/sample_mlp.h"
  check_static_object "$out/lib/libsample.a" sample
  check_static_object "$out/lib/libsample_mlp.a" sample_mlp
  # Two static models in one program, as a PIE and as a non-PIE executable.
  local mode
  for mode in -pie -no-pie; do
    "$CC" "${cflags[@]}" -I "$out/lib" "$SRC_DIR/tests/e2e/two_models_linked.c" \
      "$out/lib/libsample.a" "$out/lib/libsample_mlp.a" -lm -lpthread $mode \
      -o "$out/two_models$mode"
    check_executable "$out/two_models$mode"
    "$out/two_models$mode" "$models/cnn/expected.txt" "$models/mlp/expected.txt"
  done
}

case_object() {
  mkdir -p "$out/obj"
  "$ONNXC" compile "$models/cnn/model.onnx" --emit obj -o "$out/obj/sample.o"
  test -f "$out/obj/sample.h"
  check_static_object "$out/obj/sample.o" sample
  local mode
  for mode in -pie -no-pie; do
    "$CC" "${cflags[@]}" -I "$out/obj" -DMODEL=sample -DMODEL_UPPER=SAMPLE \
      '-DMODEL_HEADER="sample.h"' "$here/static_run.c" "$out/obj/sample.o" -lm -lpthread $mode \
      -o "$out/run$mode"
    check_executable "$out/run$mode"
    "$out/run$mode" "$models/cnn/input.txt" "$models/cnn/expected.txt"
  done
}

case_weights_file() {
  mkdir -p "$out/lib" "$out/other" "$out/scratch"
  "$ONNXC" compile "$models/cnn/model.onnx" --emit static -o "$out/lib/libsample.a" \
    --weights-file "$out/sample.weights" | tee "$out/log"
  grep -q "and $out/sample.weights" "$out/log" || fail "compile did not report the weights file"
  "$ONNXC" compile "$models/mlp/model.onnx" --emit static -o "$out/lib/libsample_mlp.a"
  # Another model's weights file (its library is not used).
  "$ONNXC" compile "$models/mlp/model.onnx" -o "$out/other/libsample_mlp.so" \
    --weights-file "$out/other/mlp.weights"
  # The archive holds no weights: its weight section is absent.
  if readelf -S -W "$out/lib/libsample.a" | grep -q "\.rodata\.onnxc_weights"; then
    fail "libsample.a still embeds the weights"
  fi
  "$CC" "${cflags[@]}" -I "$out/lib" "$here/weights_check.c" "$out/lib/libsample.a" \
    "$out/lib/libsample_mlp.a" -lm -lpthread -o "$out/weights_check"
  "$out/weights_check" "$models/cnn/expected.txt" "$out/sample.weights" "$out/other/mlp.weights" \
    "$out/scratch"
  # The same through a shared library and static_run.
  mkdir -p "$out/so"
  "$ONNXC" compile "$models/cnn/model.onnx" -o "$out/so/libsample.so" \
    --weights-file "$out/so/sample.weights"
  "$CC" "${cflags[@]}" -I "$out/so" -DMODEL=sample -DMODEL_UPPER=SAMPLE \
    '-DMODEL_HEADER="sample.h"' "$here/static_run.c" -L "$out/so" -Wl,-rpath,"$out/so" -lsample \
    -lm -lpthread -o "$out/run_so"
  "$out/run_so" "$models/cnn/input.txt" "$models/cnn/expected.txt" "$out/so/sample.weights"
}

# printed LOG KEY: the number after "KEY: " in onnxc compile's summary.
printed() { sed -n "s/^$2: \([0-9]*\) bytes.*/\1/p" "$1"; }
# header_constant HEADER MACRO: the value of #define MACRO N.
header_constant() { sed -n "s/^#define $2 \([0-9]*\).*/\1/p" "$1"; }

# section_sizes FILE: "NAME TYPE FLAGS SIZE" (size in decimal) for each section (readelf).
section_sizes() {
  local name type flags size
  readelf -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
    awk 'NF >= 7 && $1 != "Name" {print $1, $2, $7, $5}' |
    while read -r name type flags size; do echo "$name $type $flags $((16#$size))"; done
}

# alloc_bytes FILE: sum of the allocated, non-NOBITS section sizes (readelf), for comparing with
# what onnxc measured with llvm::object.
alloc_bytes() {
  section_sizes "$1" | awk '$2 != "NOBITS" && $2 != "NULL" && $3 ~ /A/ {t += $4} END {print t + 0}'
}

case_budget() {
  mkdir -p "$out/static" "$out/so" "$out/budget"
  local m=$models/mobilenet
  "$ONNXC" compile "$m/model.onnx" --emit static -o "$out/static/libmobilenet.a" | tee "$out/static.log"
  "$ONNXC" compile "$m/model.onnx" -o "$out/so/libmobilenet.so" | tee "$out/so.log"
  local kind log header code stack arena weights
  for kind in static so; do
    log=$out/$kind.log
    header=$out/$kind/mobilenet.h
    code=$(printed "$log" "code size")
    stack=$(printed "$log" "stack size")
    arena=$(printed "$log" "arena size")
    weights=$(printed "$log" "weights")
    [[ -n $code && -n $stack && -n $arena && -n $weights ]] || fail "$kind: summary lacks a number"
    [[ $code == "$(header_constant "$header" MOBILENET_CODE_SIZE)" ]] || fail "$kind: CODE_SIZE"
    [[ $stack == "$(header_constant "$header" MOBILENET_STACK_SIZE)" ]] || fail "$kind: STACK_SIZE"
    [[ $arena == "$(header_constant "$header" MOBILENET_ARENA_SIZE)" ]] || fail "$kind: ARENA_SIZE"
    [[ $weights == "$(header_constant "$header" MOBILENET_WEIGHTS_SIZE)" ]] || fail "$kind: WEIGHTS_SIZE"
    ((code > 0)) || fail "$kind: no code size"
    ((stack > 0)) || fail "$kind: no stack estimate"
    echo "$kind: code $code, stack $stack, arena $arena, weights $weights bytes"
  done
  # The 300 KB budget, for one fixed CPU so that it does not depend on the machine the test
  # runs on: the kernels' 64-byte vectors take one instruction per operation with AVX-512 and
  # two with AVX2 (the native build on a Zen 3 is ~380 KB).
  local budget_cpu=()
  [[ $(uname -m) == x86_64 ]] && budget_cpu=(--cpu x86-64-v4)
  "$ONNXC" compile "$m/model.onnx" --emit static "${budget_cpu[@]}" \
    -o "$out/budget/libmobilenet.a" | tee "$out/budget.log"
  code=$(printed "$out/budget.log" "code size")
  ((code > 0 && code <= 300 * 1024)) ||
    fail "code size $code for ${budget_cpu[*]:-the host} exceeds 300 KB"
  # The archive's code size, measured independently with readelf: allocated sections minus the
  # embedded weight section.
  local wsec total
  wsec=$(section_sizes "$out/static/libmobilenet.a" | awk '$1 == ".rodata.onnxc_weights" {print $4}')
  [[ -n $wsec ]] || fail "libmobilenet.a has no .rodata.onnxc_weights section"
  total=$(alloc_bytes "$out/static/libmobilenet.a")
  [[ $((total - wsec)) == "$(printed "$out/static.log" "code size")" ]] ||
    fail "readelf says $total - $wsec bytes, onnxc printed $(printed "$out/static.log" "code size")"
  # The model runs, matches the numpy reference, and fits in the stack the header promises.
  "$CC" "${cflags[@]}" -I "$out/static" -DMODEL=mobilenet -DMODEL_UPPER=MOBILENET \
    '-DMODEL_HEADER="mobilenet.h"' "$here/static_run.c" "$out/static/libmobilenet.a" -lm \
    -lpthread -o "$out/run"
  "$out/run" "$m/input.txt" "$m/expected.txt" - --limited-stack
}

# An aarch64 static archive with a weights file, linked by the cross compiler and run under
# qemu-user (the runtime stub's hand-declared open/lseek/mmap flags must hold there too).
case_cross_aarch64() {
  local cc=aarch64-linux-gnu-gcc qemu=qemu-aarch64 sysroot=/usr/aarch64-linux-gnu
  if ! command -v "$cc" >/dev/null || ! command -v "$qemu" >/dev/null || [[ ! -d $sysroot ]]; then
    echo "SKIP: needs $cc, $qemu and $sysroot (scripts/setup.sh installs them)"
    exit 77
  fi
  mkdir -p "$out/lib"
  "$ONNXC" compile "$models/cnn/model.onnx" --emit static --target aarch64-unknown-linux-gnu \
    -o "$out/lib/libsample.a" --weights-file "$out/sample.weights"
  "$cc" "${cflags[@]}" -I "$out/lib" -DMODEL=sample -DMODEL_UPPER=SAMPLE \
    '-DMODEL_HEADER="sample.h"' "$here/static_run.c" "$out/lib/libsample.a" -lm -lpthread \
    -o "$out/run"
  "$qemu" -L "$sysroot" "$out/run" "$models/cnn/input.txt" "$models/cnn/expected.txt" \
    "$out/sample.weights"
}

case_cross_armv7_two_models() {
  # Two 32-bit ARM static models in one program: each carries the hidden ARM EABI helpers
  # (runtime_stub/arm_helpers.c), which must not clash in a static link.
  local cc=arm-linux-gnueabihf-gcc qemu=qemu-arm sysroot=/usr/arm-linux-gnueabihf
  if ! command -v "$cc" >/dev/null || ! command -v "$qemu" >/dev/null || [[ ! -d $sysroot ]]; then
    echo "SKIP: needs $cc, $qemu and $sysroot (scripts/setup.sh installs them)"
    exit 77
  fi
  mkdir -p "$out/lib"
  "$ONNXC" compile "$models/cnn/model.onnx" --emit static --target armv7-unknown-linux-gnueabihf \
    -o "$out/lib/libsample.a"
  "$ONNXC" compile "$models/mlp/model.onnx" --emit static --target armv7-unknown-linux-gnueabihf \
    -o "$out/lib/libsample_mlp.a"
  "$cc" "${cflags[@]}" -I "$out/lib" "$SRC_DIR/tests/e2e/two_models_linked.c" \
    "$out/lib/libsample.a" "$out/lib/libsample_mlp.a" -lm -lpthread -o "$out/two_models"
  "$qemu" -L "$sysroot" "$out/two_models" "$models/cnn/expected.txt" "$models/mlp/expected.txt"
}

rm -rf "$out"
mkdir -p "$out"
"case_$case_name"
