#!/usr/bin/env python3
"""Differential test of the fusion passes on one generated case (make_fusion_models.py):

  check_fusion.py ONNXC CASE_DIR WORK_DIR

compiles CASE_DIR/model.onnx twice, with the fusion passes and with --disable-pass=all-fusion,
checks the node counts of the IR with and without fusion (expect.json), runs both libraries with `onnxc run`, and compares each output
with the numpy reference (output_N.pb) and the two libraries' outputs with each other.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

RTOL, ATOL = 1e-4, 1e-5  # float32 kernels vs a float64 reference; onnxc verify uses 1e-3/1e-7
NODE_LINE = re.compile(r"^\s+%.* = ([A-Za-z.]+)\(")


def compile_model(onnxc, model, lib, extra):
    """Compiles model into lib; returns the op types of the IR after dce."""
    r = subprocess.run([onnxc, "compile", model, "-o", lib, "--print-after=dce"] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc compile {' '.join(extra)} exited {r.returncode}:\n{r.stderr}")
    return [m.group(1) for m in map(NODE_LINE.match, r.stderr.splitlines()) if m]


def run_model(onnxc, lib, data, out):
    r = subprocess.run([onnxc, "run", lib, data, "-o", out, "--threads", "2"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc run {lib} exited {r.returncode}:\n{r.stderr}")
    outs, i = [], 0
    while os.path.exists(os.path.join(out, f"output_{i}.pb")):
        outs.append(numpy_helper.to_array(onnx.load_tensor(os.path.join(out, f"output_{i}.pb"))))
        i += 1
    return outs


def compare(what, got, want):
    if got.shape != want.shape:
        sys.exit(f"FAIL: {what}: shape {got.shape} != {want.shape}")
    bad = ~np.isclose(got, want, rtol=RTOL, atol=ATOL)
    if bad.any():
        i = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
        sys.exit(f"FAIL: {what}: {bad.sum()} of {got.size} elements differ; worst at {i}: "
                 f"{got[i]} vs {want[i]}")
    print(f"ok: {what}: max abs diff {np.max(np.abs(got - want)):.3g}")


def main(onnxc, case_dir, work):
    os.makedirs(work, exist_ok=True)
    model, data = os.path.join(case_dir, "model.onnx"), os.path.join(case_dir, "test_data_set_0")
    expect = json.load(open(os.path.join(case_dir, "expect.json")))
    fused = compile_model(onnxc, model, os.path.join(work, "fused.so"), [])
    plain = compile_model(onnxc, model, os.path.join(work, "plain.so"),
                          ["--disable-pass=all-fusion"])
    print(f"nodes: fused {fused}, unfused {plain}")
    if len(fused) != expect["nodes"]:
        sys.exit(f"FAIL: {len(fused)} nodes after fusion, expected {expect['nodes']}")
    if len(plain) != expect["unfused"]:
        sys.exit(f"FAIL: {len(plain)} nodes with --disable-pass=all-fusion, expected "
                 f"{expect['unfused']}")
    got = run_model(onnxc, os.path.join(work, "fused.so"), data, os.path.join(work, "out_fused"))
    ref = run_model(onnxc, os.path.join(work, "plain.so"), data, os.path.join(work, "out_plain"))
    want = []
    while os.path.exists(os.path.join(data, f"output_{len(want)}.pb")):
        want.append(numpy_helper.to_array(
            onnx.load_tensor(os.path.join(data, f"output_{len(want)}.pb"))))
    if not want or len(got) != len(want) or len(ref) != len(want):
        sys.exit(f"FAIL: {len(got)}/{len(ref)} outputs, reference has {len(want)}")
    for i in range(len(want)):
        compare(f"output {i} fused vs numpy", got[i], want[i])
        compare(f"output {i} unfused vs numpy", ref[i], want[i])
        compare(f"output {i} fused vs unfused", got[i], ref[i])
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
