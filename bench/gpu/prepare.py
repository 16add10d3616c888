#!/usr/bin/env python3
"""Builds what bench/gpu/run_gpu.py needs on a GPU machine that has no onnxc: the bench models
compiled with `onnxc compile --target cuda`, fixed-seed inputs and ORT's outputs on them.

    python3 bench/gpu/prepare.py --onnxc build/bin/onnxc --models build/bench/models \
        --out build/gpu_bench [--cuda-arch sm_90]

Models with real weights get input_0.npy / expected_0.npy (ONNX Runtime CPU's output, the
correctness reference) and a manifest for tests/cuda/run_exported.py. Large models (resnet50,
resnet18) are timing-only: their weights are replaced by a repeating pattern (same shapes, so
the same kernels and speed) so that the library compresses to a few MiB for the trip to the GPU
machine; their outputs are not compared. Two probes are built too: an element-wise model (Add +
Relu on 64 MiB, memory-bound) and a 4096^3 MatMul (compute-bound).

--precisions tf32,fp16,bf16 also builds each model and the MatMul probe with `--precision P`
(products on tensor cores) as entries NAME.P; a real-weights model's variant is checked against
ONNX Runtime's float32 output with a tolerance of 2% of the output's scale.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

# name -> (bench model file, dims, real weights?)
MODELS = {
    "resnet50": ("resnet50.onnx", {"batch": 1}, False),
    "resnet18": ("resnet18.onnx", {"batch": 1}, False),
    "mobilenet_v2": ("mobilenet_v2.onnx", {"batch": 1}, True),
    "squeezenet1_1": ("squeezenet1_1.onnx", {"batch": 1}, True),
    "efficientnet_style": ("efficientnet_style.onnx", {"batch": 1}, False),
    "bert_style": ("bert_style.onnx", {"batch": 1, "seq": 128}, True),
    "gpt_style": ("gpt_style.onnx", {"batch": 1, "seq": 128}, False),
}


def patterned(src, dst):
    """src with every large initializer replaced by its first 1024 values repeated."""
    m = onnx.load(src)
    for init in m.graph.initializer:
        a = numpy_helper.to_array(init)
        if a.size > 4096 and a.dtype == np.float32:
            flat = a.reshape(-1)
            b = np.resize(flat[:1024], a.shape).astype(np.float32)
            init.CopyFrom(numpy_helper.from_array(b, init.name))
    onnx.save(m, dst)


def probe_models(out):
    n = 16 << 20  # 64 MiB of float
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])
    one = numpy_helper.from_array(np.array([1.0], np.float32), "one")
    g = helper.make_graph([helper.make_node("Add", ["x", "one"], ["t"]),
                           helper.make_node("Relu", ["t"], ["y"])], "ew", [x], [y], [one])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, "probe_elementwise.onnx"))
    k = 4096
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [k, k])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, [k, k])
    w = numpy_helper.from_array(np.resize(np.linspace(-1, 1, 1024, dtype=np.float32), (k, k)) / 64,
                                "w")
    g = helper.make_graph([helper.make_node("MatMul", ["a", "w"], ["c"])], "mm", [a], [c], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, "probe_matmul.onnx"))


def compile_model(onnxc, src, dims, lib, arch, precision=None):
    cmd = [onnxc, "compile", src, "--target", "cuda", "-o", lib]
    if precision:
        cmd += ["--precision", precision]
    for k, v in dims.items():
        cmd += ["--dim", f"{k}={v}"]
    if arch:
        cmd += ["--cuda-arch", arch]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return r.stderr.strip().splitlines()[-1]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cuda-arch", default="")
    ap.add_argument("--precisions", default="", help="e.g. tf32,fp16: also these variants")
    ap.add_argument("--precision-models", default="",
                    help="NAME or NAME.P entries to build the variants of (default: all)")
    ap.add_argument("--patterned", default="",
                    help="models to build with patterned weights although theirs are real "
                         "(timing only: a smaller trip to the GPU machine)")
    a = ap.parse_args()
    precisions = [p for p in a.precisions.split(",") if p]
    os.makedirs(a.out, exist_ok=True)
    probe_models(a.out)
    index = {}
    import onnxruntime as ort
    rng = np.random.default_rng(0)
    for name, (file, dims, real) in MODELS.items():
        real = real and name not in a.patterned.split(",")
        src = os.path.join(a.models, file)
        if not os.path.exists(src):
            print(f"skip {name}: {src} not found")
            continue
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        model = src
        if not real:
            model = os.path.join(d, "patterned.onnx")
            patterned(src, model)
        err = compile_model(a.onnxc, model, dims, os.path.join(d, "lib.so"), a.cuda_arch)
        entry = {"dims": dims, "real_weights": real, "error": err}
        variants = {}
        wanted = a.precision_models.split(",") if a.precision_models else None
        for prec in precisions:
            if wanted and name not in wanted and f"{name}.{prec}" not in wanted:
                continue
            pd = os.path.join(a.out, f"{name}.{prec}")
            os.makedirs(pd, exist_ok=True)
            variants[f"{name}.{prec}"] = {
                "dims": dims, "real_weights": real, "precision": prec,
                "error": compile_model(a.onnxc, model, dims, os.path.join(pd, "lib.so"),
                                       a.cuda_arch, prec)}
        sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        feeds = {}
        for i in sess.get_inputs():
            shape = [dims.get(s, s) if isinstance(s, str) else s for s in i.shape]
            if i.type == "tensor(int64)":
                feeds[i.name] = rng.integers(0, 1000, size=shape).astype(np.int64)
            else:
                feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
        outs = sess.run(None, feeds)
        for dd, prec in [(d, None)] + [(os.path.join(a.out, k), v["precision"])
                                       for k, v in variants.items()]:
            for k, v in enumerate(feeds.values()):
                np.save(os.path.join(dd, f"input_{k}.npy"), v)
            if not real or not os.path.exists(os.path.join(dd, "lib.so")):
                continue
            for k, v in enumerate(outs):
                np.save(os.path.join(dd, f"expected_{k}.npy"), v)
            scale = max(float(np.max(np.abs(o))) for o in outs)
            with open(os.path.join(dd, "manifest.json"), "w") as f:
                json.dump({"source": name + (f" --precision {prec}" if prec else ""),
                           "rtol": 2e-2 if prec else 1e-3,
                           "atol": (2e-2 if prec else 1e-4) * scale,
                           "inputs": [f"input_{k}.npy" for k in range(len(feeds))],
                           "outputs": [f"expected_{k}.npy" for k in range(len(outs))]}, f)
        if not real:
            os.remove(model)
        index[name] = entry
        index.update(variants)
        print(name, "error: " + err if err else "ok", flush=True)
    for probe, prec in [("probe_elementwise", None), ("probe_matmul", None)] + [
            ("probe_matmul", p) for p in precisions]:
        key = probe + (f".{prec}" if prec else "")
        d = os.path.join(a.out, key)
        os.makedirs(d, exist_ok=True)
        err = compile_model(a.onnxc, os.path.join(a.out, probe + ".onnx"), {},
                            os.path.join(d, "lib.so"), a.cuda_arch, prec)
        index[key] = {"dims": {}, "real_weights": False, "error": err, "precision": prec}
        print(key, "error: " + err if err else "ok", flush=True)
    for probe in ("probe_elementwise", "probe_matmul"):
        os.remove(os.path.join(a.out, probe + ".onnx"))
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
