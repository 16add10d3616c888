#!/usr/bin/env python3
"""Differential test of the GEMM weight pre-packing and the Conv paths on one generated case
(make_cases.py):

  check_case.py ONNXC CASE_DIR WORK_DIR

compiles CASE_DIR/model.onnx as is (constant weights pre-packed at compile time by the
pack-weights pass; depthwise and pointwise Convs on their own paths), with
--disable-pass=pack-weights (packed by the kernel at run time) and, when the model has a Conv
node, with --disable-pass=conv-paths (every Conv as im2col + GEMM); runs each with `onnxc run` at
1 and 2 threads, and compares every output with the numpy reference (output_0.pb) and the other
libraries with the first.
Cases named tile_* are also compiled with each forced GEMM micro-tile height
(--gemm-tile-rows 1, 2, 4, 6, 8; 6-row tiles straddle packed A's 8-row panels), with
--disable-pass=specialise-parallel (the thread pool runs the generic GEMM body, whose
micro-kernel choice is made at run time instead of folded for the node) and with
--disable-pass=specialise-first (LLVM simplifies the kernel templates before inlining them into
the node, as its default pipeline does), and compared the same way; cases with "wino" in their
name (3x3 stride-1 Convs, which run as Winograd F(2x2, 3x3) or F(4x4, 3x3)) also with
--disable-pass=winograd (the same Conv through im2col), --disable-pass=winograd-4x4 (as
F(2x2, 3x3) only) and --gemm-tile-rows=6 (AVX2's 6-row GEMM tiles, whatever the host);
cases named dw* (depthwise) also with --disable-pass=dw-channels (the row-vector path instead of
the channel-vector one, where the lowering would choose that); cases named few* (few input
channels) also with --disable-pass=few-channels (im2col instead of the direct phase-row path)
and with --gemm-tile-rows=6 (the direct path's 4-channel x 1-vector tiles, as on AVX2); cases
named cv* (strided, many channels) also with --disable-pass=chan-vec (the phase-row path or
im2col instead of output-channel vectors) and with --gemm-tile-rows=6 (the half-block tiles of
16-register targets, AVX2's); cases with "large_u" in their name (stride-1 3x3 convs that
Winograd leaves: output-channel vectors with 32 vector registers) also with
--disable-pass=chan-vec.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

TOL = {np.dtype(np.float32): (1e-4, 1e-5), np.dtype(np.float64): (1e-10, 1e-12)}  # rtol, atol


def compile_model(onnxc, model, lib, extra):
    r = subprocess.run([onnxc, "compile", model, "-o", lib] + extra, capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc compile {' '.join(extra)} exited {r.returncode}:\n{r.stderr}")


def run_model(onnxc, lib, data, out, threads):
    r = subprocess.run([onnxc, "run", lib, data, "-o", out, "--threads", str(threads)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc run {lib} exited {r.returncode}:\n{r.stderr}")
    return numpy_helper.to_array(onnx.load_tensor(os.path.join(out, "output_0.pb")))


def compare(what, got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        sys.exit(f"FAIL: {what}: {got.dtype}{got.shape} != {want.dtype}{want.shape}")
    rtol, atol = TOL[want.dtype]
    scale = np.max(np.abs(want))
    bad = ~np.isclose(got, want, rtol=rtol, atol=atol * scale)
    if bad.any():
        i = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
        sys.exit(f"FAIL: {what}: {bad.sum()} of {got.size} elements differ; worst at {i}: "
                 f"{got[i]} vs {want[i]}")
    print(f"ok: {what}: max abs diff {np.max(np.abs(got - want)):.3g}")


def main(onnxc, case_dir, work):
    os.makedirs(work, exist_ok=True)
    model, data = os.path.join(case_dir, "model.onnx"), os.path.join(case_dir, "test_data_set_0")
    want = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "output_0.pb")))
    case = os.path.basename(os.path.normpath(case_dir))
    libs = {"packed": [], "unpacked": ["--disable-pass=pack-weights"]}
    if any(n.op_type == "Conv" for n in onnx.load(model).graph.node):
        libs["im2col"] = ["--disable-pass=conv-paths"]  # the pass marks Conv nodes only
    if case.startswith("tile_"):
        for rows in (1, 2, 4, 6, 8):
            libs[f"tile_rows_{rows}"] = [f"--gemm-tile-rows={rows}"]
        libs["generic_bodies"] = ["--disable-pass=specialise-parallel"]
        libs["templates_first"] = ["--disable-pass=specialise-first"]
    if "wino" in case:
        libs["no_winograd"] = ["--disable-pass=winograd"]
        libs["winograd_2x2"] = ["--disable-pass=winograd-4x4"]
        libs["wino_6_rows"] = ["--gemm-tile-rows=6"]  # AVX2's GEMM tiles, on any host
    if "large_u" in case:  # not Winograd: output-channel vectors on 32 registers, else im2col
        libs["no_chan_vec"] = ["--disable-pass=chan-vec"]
    if case.startswith("dw"):
        libs["no_dw_channels"] = ["--disable-pass=dw-channels"]
    if case.startswith("cv"):
        libs["no_chan_vec"] = ["--disable-pass=chan-vec"]
        libs["cv_6_rows"] = ["--gemm-tile-rows=6"]  # the half-block tiles (AVX2's), on any host
    if case.startswith("few"):
        libs["no_few_channels"] = ["--disable-pass=few-channels"]
        libs["few_4x1"] = ["--gemm-tile-rows=6"]  # the 4-channel x 1-vector path (AVX2's)
    outs = {}
    for name, extra in libs.items():
        lib = os.path.join(work, f"{name}.so")
        compile_model(onnxc, model, lib, extra)
        for threads in (1, 2):
            got = run_model(onnxc, lib, data, os.path.join(work, f"out_{name}_{threads}"), threads)
            compare(f"{name}, {threads} thread(s) vs numpy", got, want)
            outs[name, threads] = got
    for threads in (1, 2):
        for name in libs:
            if name != "packed":
                compare(f"packed vs {name}, {threads} thread(s)", outs["packed", threads],
                        outs[name, threads])
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
