#!/usr/bin/env python3
"""Run-time shapes against ONNX Runtime (issue 8's acceptance): each model is compiled ONCE with
its dims left to run time, then run at several shapes, each result compared with ORT's.

- super-resolution-10 (../shared/testdata/models), no --dim: batch 1, 3 and 8;
- bench's bert_style (symbolic batch and sequence, bench/models.py), --dim seq=1..128:
  (batch, seq) = (1, 16), (2, 128), (4, 77);
- a detector-style model ending in NonMaxSuppression and TopK (tests/runtime_dims/
  make_models.py's detector_nms): the score threshold, a run-time input, decides how many boxes
  come out (4 thresholds, from many boxes to none).

Prints one line per run and a markdown table (also written to OUT/run_time_shapes.md); exits 1
if any result differs from ORT's. Needs onnxruntime (bench/setup.sh) and, for bert_style, the
bench models (python3 bench/run.py exports them to build/bench/models).

  python3 bench/run_time_shapes.py --onnxc build/bin/onnxc [--models build/bench/models]
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "runtime_dims"))
import engines  # noqa: E402


class Onnxc:
    """A compiled library with one context; run(feeds) returns its outputs, each trimmed to the
    shape the run reported (outputs whose shape the run decides get buffers of `room` shapes)."""

    def __init__(self, lib_path, threads=1):
        self.lib = ctypes.CDLL(os.path.abspath(lib_path))
        engines._declare(self.lib)
        self.ctx = ctypes.c_void_p()
        if self.lib.onnxc_create(ctypes.byref(self.ctx)) != 0:
            raise engines.EngineError(self.lib.onnxc_last_error(None).decode())
        self.lib.onnxc_set_num_threads(self.ctx, threads)
        self.sig = json.loads(self.lib.onnxc_signature_json())

    def run(self, feeds, room):
        ins = [np.ascontiguousarray(feeds[i["name"]]) for i in self.sig["inputs"]]
        outs = [np.zeros(room[k], dtype=engines.DTYPES[engines._dtype_number(o["dtype"])])
                for k, o in enumerate(self.sig["outputs"])]
        t_in = (engines.OnnxcTensor * len(ins))(*[engines._tensor(a) for a in ins])
        t_out = (engines.OnnxcTensor * len(outs))(*[engines._tensor(a) for a in outs])
        status = self.lib.onnxc_run(self.ctx, t_in, len(ins), t_out, len(outs))
        if status != 0:
            raise engines.EngineError(self.lib.onnxc_last_error(self.ctx).decode())
        got = []
        for k, a in enumerate(outs):
            shape = tuple(t_out[k].shape[d] for d in range(t_out[k].rank))
            n = int(np.prod(shape)) if shape else 1
            got.append(a.reshape(-1)[:n].reshape(shape))
        return got

    def close(self):
        self.lib.onnxc_destroy(self.ctx)


def compile_once(onnxc, model, lib, flags):
    t0 = time.perf_counter()
    subprocess.run([onnxc, "compile", model, "-o", lib] + flags, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def ort_outputs(model, feeds):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]).run(None, feeds)


def check(rows, name, lib, model, feeds, label, room=None):
    want = ort_outputs(model, feeds)
    got = lib.run(feeds, room or [w.shape for w in want])
    reason, worst = engines.compare(got, want, rtol=1e-3, atol_rel=1e-4)
    shapes = ", ".join("x".join(map(str, g.shape)) for g in got)
    rows.append((name, label, shapes, worst, reason))
    print(f"{'FAIL' if reason else 'ok'}: {name} {label}: outputs {shapes}, max abs error vs ORT "
          f"{worst:.3g}{' — ' + reason if reason else ''}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--models", default=os.path.join(HERE, "..", "build", "bench", "models"))
    ap.add_argument("--testdata", default=os.path.join(HERE, "..", "..", "shared", "testdata"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", "build", "bench", "run_time_shapes"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(7)
    rows, notes = [], []

    sr = os.path.join(args.testdata, "models", "super-resolution-10", "model.onnx")
    lib_path = os.path.join(args.out, "libsuper_resolution.so")
    secs = compile_once(args.onnxc, sr, lib_path, [])
    notes.append(f"super-resolution-10: one library, no --dim ({secs:.1f} s to compile)")
    lib = Onnxc(lib_path)
    for n in (1, 3, 8):
        x = rng.random((n, 1, 224, 224), dtype=np.float32)
        check(rows, "super-resolution-10", lib, sr, {"input": x}, f"batch {n}")
    lib.close()

    bert = os.path.join(args.models, "bert_style.onnx")
    if os.path.exists(bert):
        lib_path = os.path.join(args.out, "libbert_style.so")
        secs = compile_once(args.onnxc, bert, lib_path, ["--dim", "seq=1..128"])
        notes.append(f"bert_style: one library, --dim seq=1..128 ({secs:.1f} s to compile)")
        lib = Onnxc(lib_path)
        for b, s in ((1, 16), (2, 128), (4, 77)):
            ids = rng.integers(0, 1000, size=(b, s)).astype(np.int64)
            check(rows, "bert_style", lib, bert, {"input": ids}, f"(batch, seq) = ({b}, {s})")
        lib.close()
    else:
        notes.append(f"bert_style: {bert} not found (python3 bench/run.py exports it); skipped")

    import make_models  # tests/runtime_dims: the detector with NMS and TopK
    from onnx import helper, save
    g, inputs, outputs, _, make_input = make_models.detector_nms()
    det = os.path.join(args.out, "detector_nms.onnx")
    save(helper.make_model(helper.make_graph(g.nodes, "detector", inputs, outputs, g.inits),
                           opset_imports=[helper.make_opsetid("", 17)]), det)
    lib_path = os.path.join(args.out, "libdetector_nms.so")
    secs = compile_once(args.onnxc, det, lib_path, [])
    notes.append(f"detector_nms: one library, no flags ({secs:.1f} s to compile)")
    lib = Onnxc(lib_path)
    room = [(64, 4), (64,), (64,)]
    x = make_input(0.3)[0]
    for thr in (0.3, 0.9, 0.93, 2.0):
        feeds = {i.name: a for i, a in zip(inputs, [x] + make_input(thr)[1:])}
        check(rows, "detector_nms", lib, det, feeds, f"score threshold {thr}", room)
    lib.close()

    table = ["| model | run | outputs | max abs error vs ORT | result |",
             "|---|---|---|---:|---|"]
    for name, label, shapes, worst, reason in rows:
        table.append(f"| {name} | {label} | {shapes} | {worst:.2g} | "
                     f"{'differs: ' + reason if reason else 'matches'} |")
    text = "\n".join(["- " + n for n in notes] + [""] + table) + "\n"
    with open(os.path.join(args.out, "run_time_shapes.md"), "w") as f:
        f.write(text)
    print("\n" + text)
    sys.exit(1 if any(r[4] for r in rows) else 0)


if __name__ == "__main__":
    main()
