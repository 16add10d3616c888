#!/usr/bin/env python3
"""Compiles the ONNX backend node cases (and the shared real models) for --target cuda and
exports them with `onnxc verify --export`, for tests/cuda/run_exported.py on a GPU machine.

    export_cases.py --onnxc BIN --testdata DIR --out OUT [--jobs N] [--cuda-arch sm_90]
                    [--match REGEX]

Node cases that onnxc fails on the CPU (tests/conformance/known_failures.txt) are skipped.
OUT/compile.json records, per case, "exported" or the compile error's first line (an op the
CUDA target lacks...). Runs on any machine with onnxc and the test data; needs no GPU.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN = os.path.join(HERE, "..", "conformance", "known_failures.txt")

# Real models (tests/models/CMakeLists.txt): name, model file, data set directories' parent,
# extra verify arguments (the same tolerances as there).
MODELS = [
    ("mnist-8", "mnist-8/model.onnx", "mnist-8", []),
    ("ultraface-rfb-320", "ultraface-rfb-320/model.onnx", "ultraface-rfb-320/ort_ref", []),
    ("yolox-nano", "yolox-nano/yolox_nano_3class_DevonScott.onnx", "yolox-nano/ort_ref_3class",
     ["--atol", "1e-4"]),
    ("super-resolution-10", "super-resolution-10/model.onnx", "super-resolution-10", []),
    ("dtln-model_1", "dtln/model_1.onnx", "dtln/ort_ref_fp32/model_1", []),
    ("dtln-model_2", "dtln/model_2.onnx", "dtln/ort_ref_fp32/model_2", []),
    # float16 models: tests/models' tolerances in fp16 terms (two ulps, one ulp at magnitude 1)
    ("dtln-model_1_fp16", "dtln/model_1_fp16.onnx", "dtln/ort_ref_fp16/model_1",
     ["--rtol", "2e-3", "--atol", "1e-3"]),
    ("dtln-model_2_fp16", "dtln/model_2_fp16.onnx", "dtln/ort_ref_fp16/model_2",
     ["--rtol", "2e-3", "--atol", "1e-3"]),
    ("mnist-int8-dynamic", "mnist-int8-dynamic/model.onnx", "mnist-int8-dynamic/ort_ref", []),
    ("silero-vad-v5.silero_vad_op18_ifless", "silero-vad-v5/silero_vad_op18_ifless.onnx",
     "silero-vad-v5/ort_ref_silero_vad_op18_ifless", []),
    ("silero-vad-v5.silero_vad_16k_op15", "silero-vad-v5/silero_vad_16k_op15.onnx",
     "silero-vad-v5/ort_ref_silero_vad_16k_op15", []),
]


def cpu_failures():
    out = set()
    with open(KNOWN) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                out.add(line.split()[0])
    return out


def export(onnxc, model, data_dirs, dest, arch, extra=()):
    cmd = [onnxc, "verify", model, *data_dirs, "--target", "cuda", "--export", dest, *extra]
    if arch:
        cmd += ["--cuda-arch", arch]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "error: compile timed out"
    if r.returncode == 0:
        return "exported"
    msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
    return "error: " + (msg[-1] if msg else f"exit {r.returncode}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--testdata", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cuda-arch", default="")
    ap.add_argument("--match", default="", help="only the cases whose name this regex finds")
    ap.add_argument("--models-only", action="store_true")
    a = ap.parse_args()
    node_dir = os.path.join(a.testdata, "onnx-backend", "node")
    skip = cpu_failures()
    jobs = []
    for case in sorted(os.listdir(node_dir)):
        d = os.path.join(node_dir, case)
        sets = sorted(os.path.join(d, s) for s in os.listdir(d) if s.startswith("test_data_set"))
        if case in skip or not sets or not re.search(a.match, case) or a.models_only:
            continue
        jobs.append(("node/" + case, os.path.join(d, "model.onnx"), sets, []))
    models_dir = os.path.join(a.testdata, "models")
    for name, model, parent, extra in MODELS:
        p = os.path.join(models_dir, parent)
        if not re.search(a.match, name) or not os.path.isdir(p):
            continue
        sets = sorted(os.path.join(p, s) for s in os.listdir(p) if s.startswith("test_data_set"))
        if sets:
            jobs.append(("models/" + name, os.path.join(models_dir, model), sets, extra))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futs = {pool.submit(export, a.onnxc, m, s, os.path.join(a.out, n), a.cuda_arch, x): n
                for n, m, s, x in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "compile.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    ok = sum(1 for v in results.values() if v == "exported")
    print(f"exported {ok} of {len(results)} cases to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
