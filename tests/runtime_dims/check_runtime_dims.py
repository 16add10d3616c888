#!/usr/bin/env python3
"""Run-time dims test of one generated case (make_models.py):

  check_runtime_dims.py ONNXC CASE_DIR WORK_DIR

compiles CASE_DIR/model.onnx once with the case's flags (its run-time dims left symbolic), runs
that one library at every shape of case.json with `onnxc run` (1 and 2 threads), and compares
each output with the numpy reference and with a library specialised for that shape (--dim
NAME=N for each run-time dim: the build the run-time one must equal). Then checks that a shape
outside the declared range is refused with the range in the message.

A case whose outputs have a run-time count (a detector's kept boxes) has no specialised build:
its "shapes" are input values giving different counts (0 among them), checked against numpy.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from onnx_outputs import compare, load_outputs, run_model  # noqa: E402

RTOL, ATOL = 1e-4, 1e-4  # float32 kernels vs a float64 reference
SAME_RTOL, SAME_ATOL = 1e-5, 1e-6  # the run-time and the specialised builds


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def compile_model(onnxc, model, lib, flags):
    rc, out = run([onnxc, "compile", model, "-o", lib] + flags)
    if rc != 0:
        sys.exit(f"FAIL: onnxc compile {' '.join(flags)} exited {rc}:\n{out}")
    return out


def main(onnxc, case_dir, work):
    os.makedirs(work, exist_ok=True)
    case = json.load(open(os.path.join(case_dir, "case.json")))
    model = os.path.join(case_dir, "model.onnx")
    lib = os.path.join(work, "runtime_dims.so")
    log = compile_model(onnxc, model, lib, case["flags"])
    print(log)
    if not any(k in log for k in ("run-time dim:", "run-time batch:", "run-time count:",
                                  "outputs shaped by the run:")):
        sys.exit("FAIL: the library was not compiled with run-time dims or a run-time count")
    for i, (shape, spec) in enumerate(zip(case["shapes"], case["specialise"])):
        data = os.path.join(case_dir, f"shape_{i}")
        want = load_outputs(data)
        if spec is None:  # a run-time count: numpy only
            for threads in (1, 2):
                got = run_model(onnxc, lib, data, os.path.join(work, f"out_{i}_{threads}"),
                                threads)
                if len(got) != len(want):
                    sys.exit(f"FAIL: {len(got)} outputs, the reference has {len(want)}")
                for k in range(len(want)):
                    compare(f"input {shape}, {threads} thread(s), output {k} (shape "
                            f"{want[k].shape})", got[k], want[k], RTOL, ATOL)
            continue
        spec_lib = os.path.join(work, f"specialised_{i}.so")
        compile_model(onnxc, model, spec_lib, [a for d in spec for a in ("--dim", d)])
        same = run_model(onnxc, spec_lib, data, os.path.join(work, f"out_spec_{i}"), 1)
        for threads in (1, 2):
            got = run_model(onnxc, lib, data, os.path.join(work, f"out_{i}_{threads}"), threads)
            if len(got) != len(want) or len(same) != len(want):
                sys.exit(f"FAIL: {len(got)}/{len(same)} outputs, the reference has {len(want)}")
            for k in range(len(want)):
                what = f"shape {shape}, {threads} thread(s), output {k}"
                compare(what + " vs numpy", got[k], want[k], RTOL, ATOL)
                compare(what + f" vs the build for {' '.join(spec)}", got[k], same[k], SAME_RTOL,
                        SAME_ATOL)
    # A run-time dim beyond its declared range is refused, naming the range.
    for flag in case["flags"]:
        if ".." not in flag:
            continue
        name, rng = flag.split("=")
        big = list(case["shapes"][0])
        big[case["dim_names"].index(name)] = int(rng.split("..")[1]) + 1
        d = os.path.join(work, "too_big")
        os.makedirs(d, exist_ok=True)
        x = numpy_helper.to_array(onnx.load_tensor(os.path.join(case_dir, "shape_0",
                                                                "input_0.pb")))
        t = numpy_helper.from_array(np.zeros(big, dtype=x.dtype), onnx.load(model).graph.input[0].name)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(t.SerializeToString())
        for k in range(1, len(onnx.load(model).graph.input)):  # the others as in shape_0
            with open(os.path.join(case_dir, "shape_0", f"input_{k}.pb"), "rb") as src, \
                    open(os.path.join(d, f"input_{k}.pb"), "wb") as f:
                f.write(src.read())
        rc, text = run([onnxc, "run", lib, d, "-o", os.path.join(work, "out_too_big")])
        if rc == 0 or f"outside the range {rng}" not in text:
            sys.exit(f"FAIL: {name} = {big} was not refused with its range:\n{text}")
        print(f"ok: shape {big} refused: {text.strip().splitlines()[-1]}")
    print("PASS")


if __name__ == "__main__":
    main(*sys.argv[1:4])
