#!/usr/bin/env bash
# Runs onnxc and checks that it fails cleanly: exit status exactly 1 (not a crash or a signal, not
# a hang: ctest's TIMEOUT), output that starts with "onnxc: error:", a message matching a regular
# expression, and no output file left behind (the -o/--output path, the C header beside it, or a
# temporary file next to it).
#
#   expect_error.sh [--names-model] REGEX ONNXC ARGS...
#     REGEX          grep -E, matched against stdout + stderr
#     --names-model  also require the message to name the model file (ARGS is `compile MODEL ...`)
set -uo pipefail

names_model=0
if [[ $1 == --names-model ]]; then
  names_model=1
  shift
fi
regex=$1
shift

# The output path (-o PATH / --output PATH / -o=PATH / --output=PATH), removed beforehand so that
# anything found there afterwards was written by this failed run.
out=""
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case ${args[i]} in
  -o | --output) out=${args[i + 1]:-} ;;
  -o=* | --output=*) out=${args[i]#*=} ;;
  esac
done
leftovers() {
  [[ -n $out ]] || return 0
  local dir stem
  dir=$(dirname -- "$out")
  stem=$(basename -- "$out")
  stem=${stem%.*}
  stem=${stem#lib}
  # The artifact, its temporary siblings (out.tmp, out.XXXX) and the C header (NAME.h).
  compgen -G "$out*" || true
  [[ -e $dir/$stem.h ]] && echo "$dir/$stem.h"
  return 0
}
if [[ -n $out ]]; then
  rm -f -- "$out"
  [[ -n $(leftovers) ]] && rm -f -- $(leftovers)
fi

echo "+ $*"
output=$("$@" 2>&1)
status=$?
echo "$output"
if [[ $status -ne 1 ]]; then
  if [[ $status -gt 128 ]]; then
    echo "FAIL: onnxc was killed by signal $((status - 128)); it must exit with status 1" >&2
  else
    echo "FAIL: exit status $status, expected 1" >&2
  fi
  exit 1
fi
if ! grep -q '^onnxc: error: ' <<<"$output"; then
  echo "FAIL: no line starts with 'onnxc: error: '" >&2
  exit 1
fi
if ! grep -Eq -- "$regex" <<<"$output"; then
  echo "FAIL: the message does not match: $regex" >&2
  exit 1
fi
if [[ $names_model -eq 1 ]]; then
  model=$(basename -- "${args[2]}")
  if ! grep -Fq -- "$model" <<<"$output"; then
    echo "FAIL: the message does not name the model file $model" >&2
    exit 1
  fi
fi
left=$(leftovers)
if [[ -n $left ]]; then
  echo "FAIL: the failed run left output behind: $left" >&2
  exit 1
fi
echo "PASS"
