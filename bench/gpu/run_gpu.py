#!/usr/bin/env python3
"""The GPU benchmark: onnxc-cuda libraries (bench/gpu/prepare.py) against PyTorch eager and
torch.compile on the same architectures, batch 1, fp32, plus rooflines (device-to-device copy
bandwidth; cuBLAS GEMM through torch) and per-kernel times of the onnxc libraries (CUPTI through
torch.profiler). Needs a CUDA GPU, PyTorch with CUDA and numpy; not onnxc.

    python3 bench/gpu/run_gpu.py DIR [--json OUT] [--iters N] [--no-compile]

onnxc is timed through its C ABI twice: onnxc_run on host numpy buffers (onnxc_ms: the time
includes copying the inputs to the GPU and the outputs back) and onnxc_run_device on PyTorch's
device tensors and current stream (onnxc_dev_ms: as PyTorch is timed), each synchronised after
every run; the device run's outputs must equal the host run's. PyTorch runs on device tensors.
Medians of `iters` runs after warm-up. An entry NAME.P (bench/gpu/prepare.py --precisions) is the
library compiled with --precision P; PyTorch then runs with TF32 allowed (tf32) or under autocast
to float16 / bfloat16 (fp16 / bf16), and torch.compile is skipped.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

from engines import DTYPES as NP, OnnxcTensor as Tensor, _tensor as tensor  # noqa: E402


class Info(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("size_bytes", ctypes.c_uint64),
                ("dim_symbols", ctypes.c_void_p)]


class Onnxc:
    def __init__(self, lib_dir):
        self.lib = lib = ctypes.CDLL(os.path.join(lib_dir, "lib.so"))
        vp = ctypes.c_void_p
        lib.onnxc_create.argtypes = [ctypes.POINTER(vp)]
        lib.onnxc_last_error.restype = ctypes.c_char_p
        lib.onnxc_last_error.argtypes = [vp]
        lib.onnxc_run.argtypes = [vp, ctypes.POINTER(Tensor), ctypes.c_int32,
                                  ctypes.POINTER(Tensor), ctypes.c_int32]
        lib.onnxc_backend.restype = ctypes.c_char_p
        lib.onnxc_backend.argtypes = [vp]
        lib.onnxc_input_info.argtypes = [ctypes.c_int32, ctypes.POINTER(Info)]
        lib.onnxc_output_info.argtypes = [ctypes.c_int32, ctypes.POINTER(Info)]
        self.ctx = vp()
        t0 = time.perf_counter()
        if lib.onnxc_create(ctypes.byref(self.ctx)) != 0:
            raise RuntimeError(lib.onnxc_last_error(None).decode())
        self.create_ms = (time.perf_counter() - t0) * 1e3
        self.backend = lib.onnxc_backend(self.ctx).decode()
        rng = np.random.default_rng(0)
        self.ins, self.outs = [], []
        for i in range(lib.onnxc_num_inputs()):
            info = Info()
            lib.onnxc_input_info(i, ctypes.byref(info))
            shape = [info.shape[k] for k in range(info.rank)]
            f = os.path.join(lib_dir, f"input_{i}.npy")
            if os.path.exists(f):
                self.ins.append(np.ascontiguousarray(np.load(f)))
            elif info.dtype == 1:
                self.ins.append(rng.standard_normal(shape).astype(np.float32))
            else:
                self.ins.append(rng.integers(0, 100, size=shape).astype(NP[info.dtype]))
        for i in range(lib.onnxc_num_outputs()):
            info = Info()
            lib.onnxc_output_info(i, ctypes.byref(info))
            self.outs.append(np.zeros([info.shape[k] for k in range(info.rank)], NP[info.dtype]))
        self.tin = (Tensor * len(self.ins))(*[tensor(a) for a in self.ins])
        self.tout = (Tensor * len(self.outs))(*[tensor(a) for a in self.outs])

    def run(self):
        st = self.lib.onnxc_run(self.ctx, self.tin, len(self.ins), self.tout, len(self.outs))
        if st != 0:
            raise RuntimeError(self.lib.onnxc_last_error(self.ctx).decode())

    def device_setup(self):
        """Device copies of the inputs and device outputs for run_device (PyTorch's memory)."""
        self.lib.onnxc_run_device.argtypes = [ctypes.c_void_p] * 4
        self.d_ins = [torch.from_numpy(a).cuda() for a in self.ins]
        self.d_outs = [torch.from_numpy(np.zeros_like(o)).cuda() for o in self.outs]
        self.p_ins = (ctypes.c_void_p * max(len(self.d_ins), 1))(
            *[t.data_ptr() for t in self.d_ins])
        self.p_outs = (ctypes.c_void_p * max(len(self.d_outs), 1))(
            *[t.data_ptr() for t in self.d_outs])

    def run_device(self):
        st = self.lib.onnxc_run_device(self.ctx, torch.cuda.current_stream().cuda_stream,
                                       self.p_ins, self.p_outs)
        if st != 0:
            raise RuntimeError(self.lib.onnxc_last_error(self.ctx).decode())


def torch_net(name):
    try:
        import torchvision
        tv = {"resnet50": torchvision.models.resnet50, "resnet18": torchvision.models.resnet18,
              "mobilenet_v2": torchvision.models.mobilenet_v2,
              "squeezenet1_1": torchvision.models.squeezenet1_1}
        if name in tv:
            return tv[name](weights=None), "torchvision"
    except ImportError:
        pass
    import tv_nets
    if hasattr(tv_nets, name):
        return getattr(tv_nets, name)(), "bench/gpu/tv_nets.py"
    import zoo_nets
    cls = {"bert_style": zoo_nets.BertStyle, "gpt_style": zoo_nets.GptStyle,
           "efficientnet_style": zoo_nets.EfficientNetStyle}[name]
    return cls(), "bench/zoo_nets.py"


def torch_input(name, ins):
    return [torch.from_numpy(a).cuda() for a in ins]


def timed(fn, iters, sync):
    out = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        if sync:
            torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def rooflines():
    r = {}
    n = 256 << 20
    a = torch.empty(n // 4, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    t = timed(lambda: b.copy_(a), 20, True)
    r["copy_GBps"] = 2 * n / (statistics.median(t) * 1e-3) / 1e9
    k = 4096
    for dt, tf32 in ((torch.float32, False), (torch.float32, True), (torch.float16, False),
                     (torch.bfloat16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        x = torch.randn(k, k, device="cuda", dtype=dt)
        y = torch.randn(k, k, device="cuda", dtype=dt)
        for _ in range(3):
            x @ y
        torch.cuda.synchronize()
        t = timed(lambda: x @ y, 10, True)
        key = {torch.float32: "fp32", torch.float16: "fp16",
               torch.bfloat16: "bf16"}[dt] + ("_tf32" if tf32 else "")
        r[f"cublas_{key}_TFLOPs"] = 2 * k ** 3 / (statistics.median(t) * 1e-3) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = False
    return r


def kernel_profile(model):
    """GPU time per onnxc kernel of one run (CUPTI through torch.profiler)."""
    from torch.profiler import profile, ProfilerActivity
    model.run()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        model.run()
        torch.cuda.synchronize()
    ks = {}
    for e in prof.events():
        if e.device_type.name == "CUDA" and "onnxc_cuda" in e.name:
            ks[e.name] = ks.get(e.name, 0.0) + e.device_time_total / 1e3  # ms
    return ks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--json")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--compile-models", default="resnet50,mobilenet_v2,bert_style")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "models": {}}
    res["rooflines"] = rooflines()
    print(json.dumps(res["rooflines"]), flush=True)
    with open(os.path.join(a.dir, "index.json")) as f:
        index = json.load(f)
    cublas = {"tf32": "cublas_fp32_tf32_TFLOPs", "fp16": "cublas_fp16_TFLOPs",
              "bf16": "cublas_bf16_TFLOPs", None: "cublas_fp32_TFLOPs"}
    for name, entry in index.items():
        if entry.get("error"):
            res["models"][name] = {"error": entry["error"]}
            continue
        base, prec = name.split(".")[0], entry.get("precision")
        r = {"precision": prec or "fp32"}
        try:
            m = Onnxc(os.path.join(a.dir, name))
            r["backend"], r["create_ms"] = m.backend, m.create_ms
            for _ in range(5):
                m.run()
            r["onnxc_ms"] = statistics.median(timed(m.run, a.iters, False))
            m.device_setup()
            for _ in range(3):
                m.run_device()
            torch.cuda.synchronize()
            same = all(np.array_equal(d.cpu().numpy(), o, equal_nan=True)
                       for d, o in zip(m.d_outs, m.outs))
            if not same:
                raise RuntimeError("onnxc_run_device's outputs differ from onnxc_run's")
            r["onnxc_dev_ms"] = statistics.median(timed(m.run_device, a.iters, True))
            ks = kernel_profile(m)
            r["kernel_ms_total"] = sum(ks.values())
            r["top_kernels"] = sorted(ks.items(), key=lambda kv: -kv[1])[:8]
            if name == "probe_elementwise":
                k = max(ks.values())
                r["elementwise_GBps"] = 2 * m.ins[0].nbytes / (k * 1e-3) / 1e9
            if base == "probe_matmul":
                r["matmul_TFLOPs"] = 2 * 4096 ** 3 / (max(ks.values()) * 1e-3) / 1e12
                r["of_cublas"] = r["matmul_TFLOPs"] / res["rooflines"][cublas[prec]]
        except Exception as e:
            r["onnxc_error"] = str(e)[:500]
        if not name.startswith("probe"):
            try:
                net, src = torch_net(base)
                net = net.cuda().eval()
                xs = torch_input(base, m.ins)
                r["torch_src"] = src
                torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
                torch.backends.cudnn.allow_tf32 = prec == "tf32"
                cast = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(prec)
                with torch.no_grad(), torch.autocast("cuda", dtype=cast or torch.float16,
                                                     enabled=cast is not None):
                    for _ in range(5):
                        net(*xs)
                    torch.cuda.synchronize()
                    r["eager_ms"] = statistics.median(timed(lambda: net(*xs), a.iters, True))
                    if not a.no_compile and not prec and name in a.compile_models.split(","):
                        t0 = time.perf_counter()
                        cnet = torch.compile(net)
                        for _ in range(3):
                            cnet(*xs)
                        torch.cuda.synchronize()
                        r["compile_s"] = time.perf_counter() - t0
                        r["compiled_ms"] = statistics.median(
                            timed(lambda: cnet(*xs), a.iters, True))
            except Exception as e:
                r["torch_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        for key in ("onnxc_ms", "onnxc_dev_ms"):
            sfx = "" if key == "onnxc_ms" else "_dev"
            if key in r and "eager_ms" in r:
                r["eager_over_onnxc" + sfx] = r["eager_ms"] / r[key]
            if key in r and "compiled_ms" in r:
                r["compiled_over_onnxc" + sfx] = r["compiled_ms"] / r[key]
        res["models"][name] = r
        print(name, json.dumps({k: v for k, v in r.items() if k != "top_kernels"}), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
