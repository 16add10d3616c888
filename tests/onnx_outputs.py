"""Helpers the Python test drivers share (tests/fusion, tests/runtime_dims): running a library
with `onnxc run`, reading its output_N.pb files, comparing arrays with a tolerance."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def load_outputs(d):
    """The arrays of d/output_0.pb, output_1.pb, ... (as many as there are)."""
    outs = []
    while os.path.exists(os.path.join(d, f"output_{len(outs)}.pb")):
        outs.append(numpy_helper.to_array(
            onnx.load_tensor(os.path.join(d, f"output_{len(outs)}.pb"))))
    return outs


def run_model(onnxc, lib, data, out, threads):
    """`onnxc run lib data -o out --threads N`; the outputs (exits with FAIL on an error)."""
    r = subprocess.run([onnxc, "run", lib, data, "-o", out, "--threads", str(threads)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc run {lib} {data} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return load_outputs(out)


def compare(what, got, want, rtol, atol):
    """Exits with FAIL naming the worst element unless got and want agree within rtol/atol."""
    if got.shape != want.shape:
        sys.exit(f"FAIL: {what}: shape {got.shape} != {want.shape}")
    bad = ~np.isclose(got, want, rtol=rtol, atol=atol)
    if bad.any():
        i = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
        sys.exit(f"FAIL: {what}: {bad.sum()} of {got.size} elements differ; worst at {i}: "
                 f"{got[i]} vs {want[i]}")
    print(f"ok: {what}: max abs diff {np.max(np.abs(got - want)) if got.size else 0:.3g}")
