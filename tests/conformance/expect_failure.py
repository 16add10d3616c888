#!/usr/bin/python3
"""Runs one known-failure ONNX backend node case and checks that it still fails for its listed reason.

  expect_failure.py --onnxc ONNXC --testdata DIR [--list known_failures.txt] CASE

The listed reason is the rest of the case's line in known_failures.txt. The case is verified
exactly as update_known_failures.py does it and its reason extracted the same way. Exit status:
  0  the case fails with the listed reason (the list is true);
  1  the case passes (remove it from the list: update_known_failures.py --cases '^CASE$'), or it
     fails for another reason (a regression, or a changed message: fix it or regenerate the list).
So a listed case never hides a crash or a wrong answer it did not have when it was listed.
A case whose compiled model draws random values (Bernoulli, Dropout in training mode, ...) that
compiles and runs
has the reason update_known_failures.RANDOM_REASON whatever its outputs (numpy's draws in the
reference; see update_known_failures.py), so only that reason is accepted for it, and a compile
error or crash in such a case still fails here.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import update_known_failures as ukf  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--onnxc", required=True)
    p.add_argument("--testdata", required=True)
    p.add_argument("--timeout", type=float, default=60.0)  # update_known_failures.py's default
    p.add_argument("--list", default=os.path.join(ukf.HERE, "known_failures.txt"))
    p.add_argument("case")
    args = p.parse_args()
    listed = ukf.read_pairs(args.list)
    if args.case not in listed:
        print(f"FAIL: {args.case} is not in {args.list}")
        return 1
    args.reason = listed[args.case]
    node_dir = os.path.join(args.testdata, "onnx-backend", "node")
    passed, seconds, reason = ukf.verify(args.onnxc, node_dir, args.case, args.timeout)
    if passed:
        print(f"FAIL: {args.case} is listed as a known failure ('{args.reason}') but passes: "
              f"remove it from tests/conformance/known_failures.txt "
              f"(update_known_failures.py --cases '^{args.case}$')")
        return 1
    if reason != args.reason:
        print(f"FAIL: {args.case} fails for another reason than the listed one\n"
              f"  listed: {args.reason}\n  now:    {reason}")
        return 1
    print(f"expected failure ({seconds:.1f} s): {args.case}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
