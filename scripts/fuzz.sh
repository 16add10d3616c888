#!/usr/bin/env bash
# Builds the loader fuzzer (tests/fuzz/fuzz_loader.cpp: loader + every pass, ASan + UBSan,
# clang-19 libFuzzer) and runs it. See docs/security.md.
#
#   scripts/fuzz.sh [SECONDS] [JOBS]     default: 3600 s (one hour), 1 job (parallel processes)
#
# Environment: BUILD_DIR (default build-fuzz), WORK_DIR (default $BUILD_DIR/fuzz-work: the
# growing corpus, crash files and logs). The seed corpus tests/fuzz/corpus/ is copied, never
# written. When a run finds a crash, libFuzzer writes WORK_DIR/crash-<sha1>; reproduce it with
#   $BUILD_DIR/tests/fuzz/fuzz_loader WORK_DIR/crash-<sha1>
# and, once fixed, add it as tests/fuzz/regressions/<what-it-was>.onnx (ctest fuzz.regressions
# replays it in every build). The total execution count is the N of the last "#N:" status line.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-3600}
jobs=${2:-1}
build=${BUILD_DIR:-build-fuzz}
work=${WORK_DIR:-$build/fuzz-work}

if [[ ! -f $build/CMakeCache.txt ]]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                                            -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DONNXC_FUZZ=ON -DONNXC_SANITIZE=ON "${launcher[@]}"
fi
cmake --build "$build" -j"$(nproc)" --target fuzz_loader

mkdir -p "$work/corpus"
cp -n tests/fuzz/corpus/* "$work/corpus/"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
fuzzer=$(cd "$build" && pwd)/tests/fuzz/fuzz_loader
cd "$work"
# -max_len: models bigger than 64 KiB add nothing the mutator can reach quickly.
# -rss_limit_mb / -malloc_limit_mb: a model that makes onnxc allocate gigabytes is a finding too.
# -timeout: one input taking over 10 s is a hang.
# -fork with -ignore_*: keep fuzzing after a finding (each is saved as crash-/oom-/timeout-*).
"$fuzzer" -max_total_time="$seconds" -fork="$jobs" -ignore_crashes=1 -ignore_ooms=1 \
  -ignore_timeouts=1 -max_len=65536 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -print_final_stats=1 \
  corpus "$OLDPWD/tests/fuzz/regressions"
