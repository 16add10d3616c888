#!/usr/bin/env python3
"""Per-node times of onnxc and ONNX Runtime on one model, interleaved, grouped by name prefix.

    python3 bench/compare_nodes.py LIB.so MODEL.onnx INPUTS.npz [--threads 1] [--depth 4]
                                   [--rounds 5] [--iters 40] [--top 25] [--onnxc build/bin/onnxc]

LIB.so must be compiled with `onnxc compile --profile` (and the same --dim bindings as the
inputs); INPUTS.npz holds the input arrays by name (bench/run.py writes one per model in
WORK/libs). Each round runs `onnxc profile LIB.so -o trace.json` and then an ORT session with
profiling on, in turn, so machine load hits both alike: on a 2-vCPU VM single profiles move a
node by up to 5x from one run to the next (docs/performance.md, session 35); the table gives the
median over rounds. Nodes are grouped by the first DEPTH components of their ONNX name
('/features/features.14/conv/conv.1' at depth 4), because ORT renames what it fuses (a Conv with
its Clip becomes '.../conv.1.2/Clip_output_0_nchwc') and onnxc reports the fused group under its
first node; ORT's layout reorders appear under their own names. Rows are sorted by how much
slower onnxc is. Writes only the trace it reads back (in a temporary directory).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def group_key(name, depth):
    """The first `depth` components of a '/'-separated node name (the whole name if shorter)."""
    return "/".join(name.split("/")[: depth + 1])


def onnxc_groups(trace, depth):
    """Milliseconds per group from an `onnxc profile -o` Chrome trace (one run's events)."""
    out = collections.defaultdict(float)
    for e in trace["traceEvents"]:
        if e.get("ph") == "X":
            out[group_key(e["name"], depth)] += e["dur"] / 1e3
    return out


def ort_groups(events, depth, skip=5):
    """Milliseconds per group from ORT's profile: each node's median kernel time over the runs
    after the first `skip`, summed by group."""
    per_node = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[e["name"][: -len("_kernel_time")]].append(e["dur"])
    out = collections.defaultdict(float)
    for name, durs in per_node.items():
        out[group_key(name, depth)] += float(np.median(durs[skip:] or durs)) / 1e3
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lib")
    ap.add_argument("model")
    ap.add_argument("inputs")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=40)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--onnxc", default="build/bin/onnxc")
    a = ap.parse_args()
    import onnxruntime as ort  # a benchmark tool only

    with np.load(a.inputs) as d:
        feeds = {k: d[k] for k in d.files}
    rows_a, rows_b = collections.defaultdict(list), collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        trace_path = os.path.join(tmp, "trace.json")
        for r in range(a.rounds):
            subprocess.run([a.onnxc, "profile", a.lib, "--threads", str(a.threads), "--iters",
                            str(a.iters), "-o", trace_path], check=True, capture_output=True)
            with open(trace_path) as f:
                ga = onnxc_groups(json.load(f), a.depth)
            so = ort.SessionOptions()
            so.intra_op_num_threads = a.threads
            so.enable_profiling = True
            so.profile_file_prefix = os.path.join(tmp, "ort")
            sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
            for _ in range(a.iters):
                sess.run(None, feeds)
            prof = sess.end_profiling()
            with open(prof) as f:
                gb = ort_groups(json.load(f), a.depth)
            os.remove(prof)
            for k in set(ga) | set(gb):
                rows_a[k].append(ga.get(k, 0.0))
                rows_b[k].append(gb.get(k, 0.0))
            print(f"round {r}: onnxc {sum(ga.values()):.3f} ms, ORT {sum(gb.values()):.3f} ms",
                  file=sys.stderr)
    ma = {k: float(np.median(v)) for k, v in rows_a.items()}
    mb = {k: float(np.median(v)) for k, v in rows_b.items()}
    print(f"sum of group medians: onnxc {sum(ma.values()):.3f} ms, ORT {sum(mb.values()):.3f} ms"
          f" ({a.threads} thread(s), {a.rounds} rounds)")
    print(f"{'group':<52} {'onnxc ms':>9} {'ORT ms':>9} {'diff':>8}")
    for k in sorted(ma, key=lambda k: -(ma[k] - mb[k]))[: a.top]:
        print(f"{k:<52} {ma[k]:9.3f} {mb[k]:9.3f} {ma[k] - mb[k]:+8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
