#!/usr/bin/env bash
# Runs onnxc and checks that it fails cleanly: exit status exactly 1 (not a crash or a signal),
# output that starts with "onnxc: error:", and a message matching a regular expression.
#
#   expect_error.sh REGEX ONNXC ARGS...       (REGEX: grep -E, matched against stdout + stderr)
set -uo pipefail

regex=$1
shift
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
echo "PASS"
