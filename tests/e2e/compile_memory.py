#!/usr/bin/env python3
"""Compile-time memory: a model with large weights compiles with a peak RSS of a small multiple
of its file, and the library it gives computes the right result.

  compile_memory.py ONNXC WORK_DIR [--no-bound]   (--no-bound: report the peak, do not bound it;
                                                   for sanitizer builds of onnxc)
  compile_memory.py --write-case WORK_DIR     (the child that writes the model and reference)

The model (about 80 MiB of float weights: MatMul 4096x4096, Add, Relu, MatMul 4096x1024) is
built with Debian's python3-onnx, compiled with `onnxc compile`, and its peak RSS read from
getrusage(RUSAGE_CHILDREN) in a small Python process whose only child the compile is. A shared library's weights are written into the file after lld
links the code (WeightsPlacement::Linked): before that, the blob went through an in-memory
copy, an LLVM constant, the object file and lld's input and output (peak 5.4x the file here).
The bound, 2x the file + 160 MiB, holds the IR's one copy of the weights plus the compiler
itself. The library then runs on an input and its output is compared with numpy's.
"""
import os
import resource
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build_model(path, rng):
    w1 = rng.standard_normal((4096, 4096), dtype=np.float32) * 0.02
    b1 = rng.standard_normal(4096, dtype=np.float32) * 0.1
    w2 = rng.standard_normal((4096, 1024), dtype=np.float32) * 0.02
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["y"])]
    graph = helper.make_graph(
        nodes, "big_weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4096])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1024])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
         numpy_helper.from_array(w2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return w1, b1, w2


def write_case(work):
    """The model, an input and numpy's output for it (in a child process: the measuring
    process must stay small, as getrusage counts a forked child's copy of it)."""
    rng = np.random.default_rng(7)
    w1, b1, w2 = build_model(os.path.join(work, "big_weights.onnx"), rng)
    x = rng.standard_normal((2, 4096), dtype=np.float32)
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    with open(os.path.join(work, "data", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    np.save(os.path.join(work, "want.npy"), np.maximum(x.astype(np.float64) @ w1 + b1, 0) @ w2)


def main():
    if sys.argv[1] == "--write-case":
        write_case(sys.argv[2])
        return
    onnxc, work = sys.argv[1], sys.argv[2]
    bounded = "--no-bound" not in sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, __file__, "--write-case", work], check=True)
    model = os.path.join(work, "big_weights.onnx")
    lib = os.path.join(work, "libbig_weights.so")
    # The compile runs under a fresh, small Python whose only child it is.
    measure = ("import resource, subprocess, sys\n"
               "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    peak_kib = subprocess.run([sys.executable, "-c", measure, onnxc, "compile", model, "-o", lib],
                              check=True, capture_output=True, text=True).stdout
    peak_mib = int(peak_kib) / 1024
    file_mib = os.path.getsize(model) / 2**20
    bound = 2 * file_mib + 160
    print(f"compile peak RSS {peak_mib:.0f} MiB for a {file_mib:.0f} MiB model "
          f"(bound {bound:.0f} MiB{'' if bounded else ', not applied: sanitizer build'})")
    if bounded and peak_mib > bound:
        sys.exit(f"FAIL: compiling took {peak_mib:.0f} MiB, more than {bound:.0f} MiB")
    if peak_mib < file_mib:
        sys.exit("FAIL: the compile's peak RSS is below the weights it holds: not measured")

    out = os.path.join(work, "out")
    subprocess.run([onnxc, "run", lib, os.path.join(work, "data"), "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
    got = numpy_helper.to_array(onnx.load_tensor(os.path.join(out, "output_0.pb")))
    want = np.load(os.path.join(work, "want.npy"))
    err = float(np.max(np.abs(got - want)))
    print(f"max abs error vs numpy: {err:.2e}")
    if not np.allclose(got, want, rtol=1e-4, atol=1e-4):
        sys.exit(f"FAIL: the library's output differs from numpy's (max abs error {err:.2e})")
    print("PASS")


if __name__ == "__main__":
    main()
