#!/usr/bin/env bash
# Runs one packaging test case (tests/package/CMakeLists.txt registers each as package.<case>).
#
#   package.sh CASE [ARGS...]   with ONNXC (the built compiler), BUILD_DIR (onnxc's build tree),
#                               SRC_DIR (repository root), WORK_DIR (scratch dir in the build
#                               tree), LIBDIR (CMAKE_INSTALL_LIBDIR), CC and CMAKE in the environment
#
# `install` (the fixture the others require) runs `cmake --install` into a staging prefix and
# moves it to $WORK_DIR/prefix, so every later case also checks that the package is relocatable.
# Exit status 77 (ctest SKIP_RETURN_CODE) when a tool a case needs is missing.
set -euo pipefail

case_name=$1
shift
: "${ONNXC:?}" "${BUILD_DIR:?}" "${SRC_DIR:?}" "${WORK_DIR:?}" "${LIBDIR:?}" "${CC:?}" "${CMAKE:?}"
prefix=$WORK_DIR/prefix
out=$WORK_DIR/$case_name
python=/usr/bin/python3

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
need_tool() {
  command -v "$1" >/dev/null || { echo "SKIP: $1 not found ($2)"; exit 77; }
}

# reference DIR: the sample CNN and its numpy reference (expected.txt) in DIR.
reference() {
  "$python" "$SRC_DIR/samples/make_sample_model.py" "$1/model.onnx" --reference "$1"
}
# compare GOT_FILE WANT_FILE: same number of values, each within rtol 1e-4 / atol 1e-6.
compare() {
  "$python" - "$1" "$2" <<'PY'
import sys
import numpy as np
got, want = (np.atleast_1d(np.loadtxt(f)) for f in sys.argv[1:3])
if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-6):
    sys.exit(f"FAIL: output {got.tolist()} differs from the reference {want.tolist()}")
print(f"{got.size} values match the numpy reference")
PY
}

case_install() {
  [[ -x $ONNXC ]] || fail "$ONNXC is not built: build onnxc (cmake --build) before running ctest"
  rm -rf "$WORK_DIR/staging" "$prefix"
  "$CMAKE" --install "$BUILD_DIR" --prefix "$WORK_DIR/staging"
  mv "$WORK_DIR/staging" "$prefix" # relocated: nothing may refer to the staging path
  local f
  for f in bin/onnxc include/onnxc/onnxc_runtime.h "$LIBDIR"/cmake/onnxc/onnxcConfig.cmake \
           "$LIBDIR"/cmake/onnxc/onnxcConfigVersion.cmake "$LIBDIR"/cmake/onnxc/onnxcModel.cmake \
           "$LIBDIR"/pkgconfig/onnxc.pc; do
    [[ -f $prefix/$f ]] || fail "$prefix/$f was not installed"
  done
  # Text files (CMake package, pkg-config, header) must not name the build or staging tree; the
  # binary may (debug info and sanitizer metadata in RelWithDebInfo/ASan builds hold source
  # paths) but must not depend on them: no RPATH/RUNPATH, checked below.
  if grep -rlIF -e "$WORK_DIR/staging" -e "$BUILD_DIR" "$prefix"; then
    fail "installed files above name the staging or build directory"
  fi
  # Only shared libraries from the system: all found, none in the build tree, no rpath.
  ldd "$prefix/bin/onnxc"
  if ldd "$prefix/bin/onnxc" | grep -e 'not found' -e "$BUILD_DIR"; then
    fail "installed onnxc needs libraries that are missing or in the build tree"
  fi
  if readelf -d -W "$prefix/bin/onnxc" | grep -E '\((RPATH|RUNPATH)\)'; then
    fail "installed onnxc has an rpath"
  fi
  "$prefix/bin/onnxc" --version
}

# The sample project's app output, rebuilt by `cmake --build`; prints the build log.
build_sample() {
  "$CMAKE" --build "$out/build" 2>&1 | tee "$out/build.log"
}

case_cmake_sample() {
  need_tool ninja "the no-op rebuild check reads ninja's -d explain"
  rm -rf "$out" && mkdir -p "$out"
  reference "$out/ref"
  "$CMAKE" -S "$SRC_DIR/samples/cmake" -B "$out/build" -G Ninja -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_PREFIX_PATH="$prefix"
  build_sample
  grep -q 'onnxc: compiling' "$out/build.log" || fail "the first build did not run onnxc"
  "$out/build/sample_app" >"$out/got.txt"
  compare "$out/got.txt" "$out/ref/expected.txt"
  check_rebuilds
}

# A no-op rebuild runs nothing; touching the model, or the onnxc executable, re-runs onnxc.
check_rebuilds() {
  local lib=$out/build/onnxc_models/sample/libsample.so before
  "$CMAKE" --build "$out/build" -- -n -d explain 2>&1 | tee "$out/noop.log"
  grep -q 'no work to do' "$out/noop.log" || fail "a no-op rebuild would run commands"
  before=$(stat -c %y "$lib")
  sleep 1.1
  build_sample
  grep -q 'onnxc: compiling' "$out/build.log" && fail "a no-op rebuild re-ran onnxc"
  [[ $(stat -c %y "$lib") == "$before" ]] ||
    fail "a no-op rebuild rewrote $lib"
  local dep
  for dep in "$out/build/sample.onnx" "$prefix/bin/onnxc"; do
    touch "$dep"
    build_sample
    grep -q 'onnxc: compiling' "$out/build.log" || fail "touching $dep did not re-run onnxc"
    [[ $lib -nt $dep ]] || fail "$lib is not newer than $dep after the rebuild"
  done
  "$out/build/sample_app" >"$out/got.txt"
  compare "$out/got.txt" "$out/ref/expected.txt"
}

case_pkgconfig() {
  need_tool pkg-config "pkg-config is installed by scripts/setup.sh"
  rm -rf "$out" && mkdir -p "$out"
  reference "$out/ref"
  export PKG_CONFIG_PATH=$prefix/$LIBDIR/pkgconfig
  local cflags onnxc
  cflags=$(pkg-config --cflags onnxc)
  onnxc=$(pkg-config --variable=onnxc onnxc)
  echo "cflags: $cflags"$'\n'"onnxc: $onnxc (version $(pkg-config --modversion onnxc))"
  [[ $(readlink -f "$onnxc") == "$(readlink -f "$prefix/bin/onnxc")" ]] ||
    fail "pkg-config's onnxc variable '$onnxc' is not $prefix/bin/onnxc"
  mkdir -p "$out/lib"
  "$onnxc" compile "$out/ref/model.onnx" -o "$out/lib/libsample.so"
  # shellcheck disable=SC2086 # cflags is a list of flags
  "$CC" -std=c11 -Wall -Wextra -Werror $cflags -I "$out/lib" \
    "$SRC_DIR/tests/package/pkgconfig_app.c" -L "$out/lib" -lsample \
    -Wl,-rpath,"$out/lib" -o "$out/app"
  "$out/app" >"$out/got.txt"
  compare "$out/got.txt" "$out/ref/expected.txt"
}

# config_error CASE REGEX: configuring tests/package/bad_call with -DCASE=CASE must fail with a
# message matching REGEX.
case_config_error() {
  local which=$1 regex=$2 status=0
  rm -rf "$out-$which" && mkdir -p "$out-$which"
  "$CMAKE" -S "$SRC_DIR/tests/package/bad_call" -B "$out-$which" -G Ninja -DCASE="$which" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$out-$which/log" 2>&1 || status=$?
  cat "$out-$which/log"
  [[ $status -ne 0 ]] || fail "configure succeeded"
  # CMake wraps long messages: match against the log with line breaks and indentation folded.
  tr -s ' \n' '  ' <"$out-$which/log" | grep -Eq "$regex" || fail "no message matching '$regex'"
}

# in_tree APP: the app built in onnxc's own tree with onnxc_add_model() matches the reference.
case_in_tree() {
  rm -rf "$out" && mkdir -p "$out"
  reference "$out/ref"
  "$1" >"$out/got.txt"
  compare "$out/got.txt" "$out/ref/expected.txt"
}

# in_tree_cross LIB HEADER: TARGET_TRIPLE aarch64 gave an AArch64 library named by NAME.
case_in_tree_cross() {
  local lib=$1 header=$2
  readelf -h "$lib" | grep -E 'Machine:.*AArch64' || fail "$lib is not an AArch64 library"
  readelf -d "$lib" | grep -F '[libsample_arm.so]' || fail "$lib's soname is not libsample_arm.so"
  grep -q 'sample_arm_infer' "$header" || fail "$header does not declare sample_arm_infer"
}

"case_$case_name" "$@"
