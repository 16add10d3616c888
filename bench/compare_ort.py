#!/usr/bin/env python3
"""Latency of onnxc-compiled models against ONNX Runtime, side by side in one run.

For each model: compile it with onnxc, time `onnxc bench --json` and an ONNX Runtime session on
the same synthetic inputs with the same thread count, alternating the two `--rounds` times so
that load on the shared machine affects both alike. Prints medians and the ratio
onnxc/ORT (below 1 means onnxc is faster). Results vary with machine load: quote ratios and
medians, never single timings.

Needs `python3 -m pip install onnxruntime onnx numpy` (a benchmark tool, not a dependency of
onnxc or of compiled models).

  bench/compare_ort.py --onnxc build/bin/onnxc --threads 1 \
      ../shared/testdata/models/mnist-8/model.onnx ../shared/testdata/models/super-resolution-10/model.onnx
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

ORT_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64,
             "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(uint8)": np.uint8,
             "tensor(int8)": np.int8, "tensor(bool)": np.bool_}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="+")
    p.add_argument("--onnxc", default="build/bin/onnxc")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--iters", type=int, default=200, help="timed runs per round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--dim", action="append", default=[], help="PARAM=N for symbolic dims")
    p.add_argument("--json", action="store_true", help="print one JSON object per model")
    return p.parse_args()


def concrete_shape(shape, dims):
    return [d if isinstance(d, int) else dims.get(d, 1) for d in shape]


def ort_session(model, threads):
    so = ort.SessionOptions()
    so.log_severity_level = 3  # no warnings about initializers listed as inputs
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def ort_median_ms(sess, feeds, iters):
    for _ in range(10):
        sess.run(None, feeds)
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def onnxc_median_ms(onnxc, lib, threads, iters):
    out = subprocess.run([onnxc, "bench", lib, "--threads", str(threads), "--iters", str(iters),
                          "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def bench_model(args, model, dims, tmp):
    sess = ort_session(model, args.threads)
    feeds = {}
    shapes = []
    for i in sess.get_inputs():
        shape = concrete_shape(i.shape, dims)
        shapes.append(f"--shape={i.name}={'x'.join(map(str, shape)) or 'scalar'}")
        feeds[i.name] = np.zeros(shape, dtype=ORT_TYPES.get(i.type, np.float32))
    lib = os.path.join(tmp, "libbench.so")
    subprocess.run([args.onnxc, "compile", model, "-o", lib, *shapes], check=True,
                   capture_output=True)
    ours, theirs = [], []
    for _ in range(args.rounds):
        ours.append(onnxc_median_ms(args.onnxc, lib, args.threads, args.iters))
        theirs.append(ort_median_ms(sess, feeds, args.iters))
    a, b = statistics.median(ours), statistics.median(theirs)
    return {"model": model, "threads": args.threads, "onnxc_median_ms": a, "ort_median_ms": b,
            "ratio": a / b, "ort_version": ort.__version__}


def main():
    args = parse_args()
    dims = dict(d.split("=", 1) for d in args.dim)
    dims = {k: int(v) for k, v in dims.items()}
    with tempfile.TemporaryDirectory(prefix="onnxc-bench-") as tmp:
        if not args.json:
            print(f"{'model':<60} {'threads':>7} {'onnxc ms':>10} {'ORT ms':>10} {'ratio':>7}")
        for model in args.models:
            r = bench_model(args, model, dims, tmp)
            if args.json:
                print(json.dumps(r))
            else:
                print(f"{model[-60:]:<60} {r['threads']:>7} {r['onnxc_median_ms']:>10.4f} "
                      f"{r['ort_median_ms']:>10.4f} {r['ratio']:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
