#!/usr/bin/env python3
"""Checks which ops remain in a model's IR after the passes (onnxc compile --print-after=dce):

  check_ir.py ONNXC MODEL WORK_DIR [--absent OP]... [--present OP]... [--count OP=N]...

(the dump lists subgraph nodes too), e.g. an If on a compile-time constant is gone (inlined), a
Loop with a constant trip count is still one Loop whose body op appears once (not unrolled)."""
import argparse
import os
import re
import subprocess
import sys

NODE_LINE = re.compile(r"^\s+%.* = ([A-Za-z.]+)\(")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("model")
    ap.add_argument("work")
    ap.add_argument("--absent", action="append", default=[])
    ap.add_argument("--present", action="append", default=[])
    ap.add_argument("--count", action="append", default=[])
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    r = subprocess.run([a.onnxc, "compile", a.model, "-o", os.path.join(a.work, "libm.so"),
                        "--print-after=dce"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc compile exited {r.returncode}:\n{r.stderr}")
    ops = [m.group(1) for m in map(NODE_LINE.match, r.stderr.splitlines()) if m]
    if not ops:
        sys.exit(f"FAIL: no nodes found in the IR dump:\n{r.stderr}")
    for op in a.absent:
        if op in ops:
            sys.exit(f"FAIL: {op} is still in the IR: {ops}")
    for op in a.present:
        if op not in ops:
            sys.exit(f"FAIL: {op} is not in the IR: {ops}")
    for spec in a.count:
        op, n = spec.split("=")
        if ops.count(op) != int(n):
            sys.exit(f"FAIL: {op} appears {ops.count(op)} times, expected {n}: {ops}")
    print(f"ok: IR ops {sorted(set(ops))}")


if __name__ == "__main__":
    main()
