#!/usr/bin/python3
"""Runs one ONNX backend node case listed in baked_inputs.txt: it must pass, with exactly the
listed graph inputs compiled in as constants by `onnxc verify`.

  expect_baked.py --onnxc ONNXC --testdata DIR [--list baked_inputs.txt] CASE

Exit status 0 when the case passes baking exactly its listed inputs; 1 when it fails, or bakes
other inputs (a case that now takes its inputs at run time must leave the list: regenerate it
with update_known_failures.py --cases '^CASE$'). Cases not in the list are plain ctests that fail
if `onnxc verify` bakes anything (tests/conformance/CMakeLists.txt), so the list stays true.
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
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--list", default=os.path.join(ukf.HERE, "baked_inputs.txt"))
    p.add_argument("case")
    args = p.parse_args()
    listed = ukf.read_pairs(args.list).get(args.case)
    if listed is None:
        print(f"FAIL: {args.case} is not in {args.list}")
        return 1
    node_dir = os.path.join(args.testdata, "onnx-backend", "node")
    baked = []
    passed, seconds, reason = ukf.verify(args.onnxc, node_dir, args.case, args.timeout, baked)
    if not passed:
        print(f"FAIL: {args.case}: {reason}")
        return 1
    if baked[0] != listed:
        print(f"FAIL: {args.case} compiled in the inputs '{baked[0]}', the list says '{listed}': "
              f"regenerate it (update_known_failures.py --cases '^{args.case}$')")
        return 1
    print(f"passed ({seconds:.1f} s) with inputs compiled in: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
