#!/usr/bin/env python3
"""One thread test case (tests/parallel/CMakeLists.txt).

  check_parallel.py ONNXC CASE_DIR verify
      `onnxc verify` at 1, 2 and 4 threads, and at 2 threads with the per-node specialisation
      of parallel loops off (--disable-pass=specialise-parallel), with kernels optimised as
      templates before they are inlined into nodes (--disable-pass=specialise-first) and with
      in-place element-wise outputs off (--disable-pass=inplace): every run must match the
      numpy reference.
  check_parallel.py ONNXC CASE_DIR specialised WORK_DIR
      the LLVM IR has node-specialised parallel bodies (functions named *.node) with the pass
      on, and none with it off.
"""
import os
import re
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def verify(onnxc, case):
    model, data = os.path.join(case, "model.onnx"), os.path.join(case, "test_data_set_0")
    failed = False
    for threads, extra in ((1, []), (2, []), (4, []), (2, ["--disable-pass=specialise-parallel"]),
                           (2, ["--disable-pass=specialise-first"]),
                           (2, ["--disable-pass=inplace"])):
        rc, out = run([onnxc, "verify", model, data, "--threads", str(threads), "--atol", "1e-5"]
                      + extra)
        print(f"threads={threads} {' '.join(extra)}: rc={rc}\n{out.strip()}")
        failed |= rc != 0
    return 1 if failed else 0


def specialised(onnxc, case, work):
    os.makedirs(work, exist_ok=True)
    counts = []
    for extra in ([], ["--disable-pass=specialise-parallel"]):
        ll = os.path.join(work, f"model{len(counts)}.ll")
        rc, out = run([onnxc, "compile", os.path.join(case, "model.onnx"), "--emit", "llvm",
                       "-o", ll] + extra)
        if rc != 0:
            print(out)
            return 1
        with open(ll) as f:
            counts.append(len(re.findall(r"^define internal .*\.node\(", f.read(), re.M)))
    print(f"node-specialised parallel bodies: {counts[0]} with the pass, {counts[1]} without")
    return 0 if counts[0] > 0 and counts[1] == 0 else 1


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    onnxc, case, mode = sys.argv[1:4]
    if mode == "verify":
        return verify(onnxc, case)
    return specialised(onnxc, case, sys.argv[4])


if __name__ == "__main__":
    sys.exit(main())
