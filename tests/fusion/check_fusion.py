#!/usr/bin/env python3
"""Differential test of the fusion passes on one generated case (make_fusion_models.py):

  check_fusion.py ONNXC CASE_DIR WORK_DIR

compiles CASE_DIR/model.onnx twice (with --verify-each), with the fusion passes (and the flags
of expect.json's "on", if any) and with --disable-pass=all-fusion (or the flags of expect.json's
"off": a pass that is not a fusion, such as concat-in-place), checks the node counts of the IR with and without fusion and the Concats computed in place
(expect.json), runs both libraries with `onnxc run`, and compares each output
with the numpy reference (output_N.pb) and the two libraries' outputs with each other (within
RTOL and ATOL, or expect.json's "atol" for a case whose sums are long).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from onnx_outputs import compare, load_outputs, run_model  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5  # float32 kernels vs a float64 reference; onnxc verify uses 1e-3/1e-7
NODE_LINE = re.compile(r"^\s+%.* = ([A-Za-z.]+)\(")


def compile_model(onnxc, model, lib, extra):
    """Compiles model into lib (the IR verifier after every pass, which Release builds skip by
    default); returns the op types of the IR after dce and the Concats computed in place."""
    r = subprocess.run([onnxc, "compile", model, "-o", lib, "--print-after=dce", "--verify-each"]
                       + extra, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc compile {' '.join(extra)} exited {r.returncode}:\n{r.stderr}")
    concats = re.search(r"^concats in place: (\d+)", r.stdout, re.M)
    return ([m.group(1) for m in map(NODE_LINE.match, r.stderr.splitlines()) if m],
            int(concats.group(1)) if concats else 0)


def main(onnxc, case_dir, work):
    os.makedirs(work, exist_ok=True)
    model, data = os.path.join(case_dir, "model.onnx"), os.path.join(case_dir, "test_data_set_0")
    expect = json.load(open(os.path.join(case_dir, "expect.json")))
    off = expect.get("off", ["--disable-pass=all-fusion"])
    fused, concats = compile_model(onnxc, model, os.path.join(work, "fused.so"),
                                   expect.get("on", []))
    plain, plain_concats = compile_model(onnxc, model, os.path.join(work, "plain.so"), off)
    print(f"nodes: fused {fused}, with {' '.join(off)} {plain}; concats in place {concats}")
    if len(fused) != expect["nodes"]:
        sys.exit(f"FAIL: {len(fused)} nodes after fusion, expected {expect['nodes']}")
    if "off" not in expect and len(plain) != expect["unfused"]:
        sys.exit(f"FAIL: {len(plain)} nodes with --disable-pass=all-fusion, expected "
                 f"{expect['unfused']}")
    if concats != expect.get("concats", concats) or plain_concats != 0 and "off" in expect:
        sys.exit(f"FAIL: {concats} Concats in place ({plain_concats} with {' '.join(off)}), "
                 f"expected {expect['concats']} (0)")
    got = run_model(onnxc, os.path.join(work, "fused.so"), data, os.path.join(work, "out_fused"), 2)
    ref = run_model(onnxc, os.path.join(work, "plain.so"), data, os.path.join(work, "out_plain"), 2)
    want = load_outputs(data)
    atol = expect.get("atol", ATOL)  # a case's long sums (expect.json), else ATOL
    if not want or len(got) != len(want) or len(ref) != len(want):
        sys.exit(f"FAIL: {len(got)}/{len(ref)} outputs, reference has {len(want)}")
    for i in range(len(want)):
        compare(f"output {i} fused vs numpy", got[i], want[i], RTOL, atol)
        compare(f"output {i} unfused vs numpy", ref[i], want[i], RTOL, atol)
        compare(f"output {i} fused vs unfused", got[i], ref[i], RTOL, atol)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
