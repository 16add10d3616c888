#!/usr/bin/env python3
"""Runs libraries exported by `onnxc verify --export DIR` and compares their outputs.

For a machine that has the libraries' hardware (a GPU) but not onnxc: needs only Python 3 and
numpy. Each case directory holds lib.so, input_N.npy, expected_N.npy and manifest.json; the
comparison is onnxc verify's (|got - want| <= atol + rtol * |want| for floats, NaN equal to NaN,
exact for the others).

    run_exported.py ROOT [--json OUT] [--backend cuda] [--jobs N] [--device-api]

walks ROOT for manifest.json files, prints one PASS/FAIL/ERROR line per data set, and with
--json writes {case: {"status": ..., "detail": ...}}. --backend: fail a case whose context does
not run there (onnxc_backend), so a CUDA library that fell back to the CPU does not count.
--device-api (GPU): each case also runs through onnxc_run_device on device buffers and a stream
of its own, and its outputs must equal onnxc_run's bit for bit.
Each case runs in a process of its own (--jobs at a time), so a case that crashes or leaves the
GPU in an error state fails alone.
"""
import argparse
import concurrent.futures
import ctypes
import json
import os
import subprocess
import sys

import numpy as np

MAX_RANK = 8
DTYPES = {np.dtype("float32"): 1, np.dtype("uint8"): 2, np.dtype("int8"): 3,
          np.dtype("uint16"): 4, np.dtype("int16"): 5, np.dtype("int32"): 6,
          np.dtype("int64"): 7, np.dtype("bool"): 9, np.dtype("float16"): 10,
          np.dtype("float64"): 11, np.dtype("uint32"): 12, np.dtype("uint64"): 13}


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size_bytes", ctypes.c_uint64),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK)]


class Raw:
    """A tensor of a type numpy lacks (float8, int4, bfloat16...): its bytes, ONNX dtype and
    shape; compared bit for bit."""

    def __init__(self, data, dtype, shape):
        self.data, self.dtype_code, self.shape = data, dtype, tuple(shape)


def load(case_dir, entry):
    if isinstance(entry, str):
        return np.require(np.load(os.path.join(case_dir, entry)), requirements="C")
    with open(os.path.join(case_dir, entry["raw"]), "rb") as f:
        data = np.frombuffer(f.read(), np.uint8).copy()
    return Raw(data, entry["dtype"], entry["shape"])


def tensor(a):
    t = Tensor()
    if isinstance(a, Raw):
        t.data, t.size_bytes, t.dtype = a.data.ctypes.data, a.data.nbytes, a.dtype_code
    else:
        t.data, t.size_bytes, t.dtype = a.ctypes.data, a.nbytes, DTYPES[a.dtype]
    t.rank = len(a.shape)
    for i, d in enumerate(a.shape):
        t.shape[i] = d
    return t


def empty_like(w):
    if isinstance(w, Raw):
        return Raw(np.zeros_like(w.data), w.dtype_code, w.shape)
    return np.zeros(w.shape, w.dtype)


def _minifloat_table(bits, exp_bits, bias, kind):
    """Values of every code of a small float type: kind "ieee" (inf and NaN at the top
    exponent), "fn" (NaN: all exponent and mantissa bits set; no inf), "fnuz" (NaN: the
    negative-zero code; no inf, no -0), "none" (no NaN/inf)."""
    man_bits = bits - 1 - exp_bits
    out = np.zeros(1 << bits, np.float64)
    for code in range(1 << bits):
        sign = -1.0 if code >> (bits - 1) else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        top = e == (1 << exp_bits) - 1
        if kind == "fnuz" and code == 1 << (bits - 1):
            v = np.nan
        elif kind == "ieee" and top:
            v = np.inf * sign if m == 0 else np.nan
        elif kind == "fn" and top and m == (1 << man_bits) - 1:
            v = np.nan
        elif e == 0:
            v = sign * m / (1 << man_bits) * 2.0 ** (1 - bias)
        else:
            v = sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        out[code] = v
    return out


# ONNX dtype -> (bits per element, decoder of the codes to values)
_RAW = {
    17: (8, _minifloat_table(8, 4, 7, "fn")),       # float8e4m3fn
    18: (8, _minifloat_table(8, 4, 8, "fnuz")),     # float8e4m3fnuz
    19: (8, _minifloat_table(8, 5, 15, "ieee")),    # float8e5m2
    20: (8, _minifloat_table(8, 5, 16, "fnuz")),    # float8e5m2fnuz
    23: (4, _minifloat_table(4, 2, 1, "none")),     # float4e2m1
    24: (8, np.array([np.nan if c == 255 else 2.0 ** (c - 127) for c in range(256)])),  # e8m0
    21: (4, np.arange(16, dtype=np.float64)),       # uint4
    22: (4, np.array([c - 16 if c >= 8 else c for c in range(16)], np.float64)),  # int4
    16: (16, None),                                 # bfloat16: decoded below
}


def decode(raw):
    """Values of a Raw tensor as float64, or None for a type without a decoder."""
    n = int(np.prod(raw.shape)) if raw.shape else 1
    if raw.dtype_code == 16:
        u = raw.data.view(np.uint16).astype(np.uint32) << 16
        return u.view(np.float32).astype(np.float64)[:n]
    if raw.dtype_code not in _RAW:
        return None
    bits, table = _RAW[raw.dtype_code]
    codes = raw.data if bits == 8 else np.stack([raw.data & 15, raw.data >> 4], 1).reshape(-1)
    return table[codes[:n]]


def compare(got, want, rtol, atol):
    if isinstance(want, Raw):
        g, w = decode(got), decode(want)
        if g is None:  # no decoder: bit for bit
            bad = int(np.count_nonzero(got.data != want.data))
            return bad == 0, f"{bad} of {want.data.size} bytes differ"
        with np.errstate(invalid="ignore"):
            ok = (np.isnan(g) & np.isnan(w)) | (g == w) | (np.abs(g - w) <= atol + rtol * np.abs(w))
        bad = int(np.count_nonzero(~ok))
        return bad == 0, f"{bad} of {g.size} elements differ"
    if got.dtype != want.dtype:
        return False, f"dtype {got.dtype} but expected {want.dtype}"
    if got.shape != want.shape:
        return False, f"shape {got.shape} but expected {want.shape}"
    if got.dtype.kind != "f":
        bad = int(np.count_nonzero(got != want))
        return bad == 0, f"{bad} of {got.size} elements differ"
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    same_inf = np.isinf(g) & np.isinf(w) & (np.sign(g) == np.sign(w))
    with np.errstate(invalid="ignore"):
        err = np.where(same_inf, 0.0, np.abs(g - w))
        ok = both_nan | (err <= atol + rtol * np.abs(w))
    bad = int(np.count_nonzero(~ok))
    finite = err[~both_nan]
    worst = float(np.nanmax(finite)) if finite.size else 0.0
    return bad == 0, f"max abs error {worst:.3g}, {bad} of {got.size} elements outside"


def run_device_api(lib, ins, outs):
    """On a context of its own (whose first run, this one, captures the graph): onnxc_run_device
    on copies of `ins` in device memory, on a new stream, twice without waiting, then onnxc_run
    (which must wait for them on the GPU), then onnxc_run_device again and onnxc_destroy
    without waiting (which must wait). Every result must equal `outs` (onnxc_run's on another
    context) bit for bit. Returns an error message or None."""
    cu = DRIVER
    vp = ctypes.c_void_p
    lib.onnxc_run_device.argtypes = [vp, vp, vp, vp]
    cu.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    cu.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, vp, ctypes.c_size_t]
    cu.cuMemcpyDtoH_v2.argtypes = [vp, ctypes.c_uint64, ctypes.c_size_t]
    cu.cuMemFree_v2.argtypes = [ctypes.c_uint64]
    cu.cuStreamSynchronize.argtypes = [vp]
    cu.cuStreamDestroy_v2.argtypes = [vp]
    raw = lambda a: a.data if isinstance(a, Raw) else a
    bufs, stream, ctx = [], vp(), vp()

    def fetched(k, p):
        got = np.zeros_like(raw(outs[k]))
        cu.cuMemcpyDtoH_v2(got.ctypes.data, p, got.nbytes)
        return got.tobytes() == raw(outs[k]).tobytes()

    try:
        for a in ins + outs:
            p = ctypes.c_uint64(0)
            if cu.cuMemAlloc_v2(ctypes.byref(p), max(raw(a).nbytes, 1)) != 0:
                return "cuMemAlloc failed"
            bufs.append(p.value)
        for a, p in zip(ins, bufs):
            cu.cuMemcpyHtoD_v2(p, raw(a).ctypes.data, raw(a).nbytes)
        cu.cuCtxSynchronize()  # a pageable upload may return before it lands
        if cu.cuStreamCreate(ctypes.byref(stream), 1) != 0:
            return "cuStreamCreate failed"
        if lib.onnxc_create(ctypes.byref(ctx)) != 0:
            return f"onnxc_create: {lib.onnxc_last_error(None).decode()}"
        din = (ctypes.c_uint64 * max(len(ins), 1))(*bufs[:len(ins)])
        dout = (ctypes.c_uint64 * max(len(outs), 1))(*bufs[len(ins):])
        for _ in range(2):  # the first captures the graph, the second replays it
            st = lib.onnxc_run_device(ctx, stream, din, dout)
            if st != 0:
                return f"onnxc_run_device: status {st}: {lib.onnxc_last_error(ctx).decode()}"
        host = [empty_like(o) for o in outs]  # onnxc_run right after, not synchronised
        tin = (Tensor * max(len(ins), 1))(*[tensor(a) for a in ins])
        tout = (Tensor * max(len(host), 1))(*[tensor(a) for a in host])
        if lib.onnxc_run(ctx, tin, len(ins), tout, len(host)) != 0:
            return f"onnxc_run after onnxc_run_device: {lib.onnxc_last_error(ctx).decode()}"
        if cu.cuStreamSynchronize(stream) != 0:
            return "cuStreamSynchronize failed"
        for k, p in enumerate(bufs[len(ins):]):
            if not fetched(k, p):
                return f"onnxc_run_device: output {k} differs from onnxc_run's"
            if raw(host[k]).tobytes() != raw(outs[k]).tobytes():
                return f"onnxc_run after onnxc_run_device: output {k} differs"
        cu.cuMemsetD8_v2.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t]
        for o, p in zip(outs, bufs[len(ins):]):  # destroy right after a run it must wait for
            cu.cuMemsetD8_v2(p, 0xff, max(raw(o).nbytes, 1))
        cu.cuCtxSynchronize()
        if lib.onnxc_run_device(ctx, stream, din, dout) != 0:
            return f"onnxc_run_device (third): {lib.onnxc_last_error(ctx).decode()}"
        lib.onnxc_destroy(ctx)
        ctx = vp()
        if cu.cuStreamSynchronize(stream) != 0:
            return "cuStreamSynchronize after onnxc_destroy failed"
        for k, p in enumerate(bufs[len(ins):]):
            if not fetched(k, p):
                return f"onnxc_run_device before onnxc_destroy: output {k} differs"
        return None
    finally:
        if ctx:
            lib.onnxc_destroy(ctx)
        if stream:
            cu.cuStreamSynchronize(stream)
            cu.cuStreamDestroy_v2(stream)
        for p in bufs:
            cu.cuMemFree_v2(p)


def run_case(case_dir, backend, device_api=False):
    with open(os.path.join(case_dir, "manifest.json")) as f:
        m = json.load(f)
    lib = ctypes.CDLL(os.path.abspath(os.path.join(case_dir, "lib.so")))
    lib.onnxc_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.onnxc_last_error.restype = ctypes.c_char_p
    lib.onnxc_last_error.argtypes = [ctypes.c_void_p]
    lib.onnxc_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_int32,
                              ctypes.POINTER(Tensor), ctypes.c_int32]
    lib.onnxc_destroy.argtypes = [ctypes.c_void_p]
    lib.onnxc_output_info.argtypes = [ctypes.c_int32, ctypes.c_void_p]
    ctx = ctypes.c_void_p()
    if lib.onnxc_create(ctypes.byref(ctx)) != 0:
        return "ERROR", lib.onnxc_last_error(None).decode()
    try:
        if backend:
            lib.onnxc_backend.restype = ctypes.c_char_p
            lib.onnxc_backend.argtypes = [ctypes.c_void_p]
            got_backend = lib.onnxc_backend(ctx).decode()
            if got_backend != backend:
                return "ERROR", f"the context runs on {got_backend}, not {backend}"
        ins = [load(case_dir, e) for e in m["inputs"]]
        want = [load(case_dir, e) for e in m["outputs"]]
        outs = [empty_like(w) for w in want]
        tin = (Tensor * max(len(ins), 1))(*[tensor(a) for a in ins])
        tout = (Tensor * max(len(outs), 1))(*[tensor(a) for a in outs])
        st = lib.onnxc_run(ctx, tin, len(ins), tout, len(outs))
        if st != 0:
            return "ERROR", f"onnxc_run: status {st}: {lib.onnxc_last_error(ctx).decode()}"
        details = []
        ok = True
        for i, (g, w) in enumerate(zip(outs, want)):
            good, detail = compare(g, w, m["rtol"], m["atol"])
            ok = ok and good
            details.append(f"output {i}: {detail}")
        if device_api:
            why = run_device_api(lib, ins, outs)
            if why:
                return "FAIL", why
            details.append("onnxc_run_device: same outputs")
        return ("PASS" if ok else "FAIL"), "; ".join(details)
    finally:
        lib.onnxc_destroy(ctx)


DRIVER = None  # libcuda, once keep_gpu_context found a GPU


def keep_gpu_context():
    """Holds the GPU's primary context for the process (if there is a GPU), so that the cases
    do not each create and destroy it (onnxc_destroy releases its reference), and makes it
    current (for --device-api's allocations)."""
    global DRIVER
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    if cu.cuInit(0) != 0 or cu.cuDeviceGet(ctypes.byref(dev), 0) != 0:
        return None
    cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    cu.cuCtxSetCurrent(ctx)
    DRIVER = cu
    return cu


def isolated(case_dirs, backend, timeout, device_api=False):
    """Runs the cases in one child process; {case_dir: (status, detail)}. A case the child did
    not report (it crashed or timed out there) runs again alone, so one bad case cannot fail
    the others."""
    cmd = [sys.executable, os.path.abspath(__file__), "--one", *case_dirs]
    if backend:
        cmd += ["--backend", backend]
    if device_api:
        cmd += ["--device-api"]
    out, why = {}, ""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * len(case_dirs))
        why = f"crashed (exit {r.returncode}): {r.stderr.strip()[-300:]}"
        stdout = r.stdout
    except subprocess.TimeoutExpired as e:
        why = f"timed out after {timeout} s"
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    for line in stdout.splitlines():
        d, _, rest = line.partition("\t")
        if d in case_dirs and rest:
            status, _, detail = rest.partition(" ")
            out[d] = (status, detail)
    missing = [d for d in case_dirs if d not in out]
    if len(case_dirs) == 1 and missing:
        return {missing[0]: ("ERROR", why)}
    for d in missing:
        out.update(isolated([d], backend, timeout, device_api))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?")
    ap.add_argument("--json")
    ap.add_argument("--backend")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--chunk", type=int, default=40, help="cases per child process")
    ap.add_argument("--device-api", action="store_true",
                    help="also run through onnxc_run_device (GPU) and compare with onnxc_run")
    ap.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:  # a child: "<case dir>\tSTATUS detail" per case
        gpu = keep_gpu_context()  # noqa: F841 (held for the process)
        for d in a.one:
            try:
                status, detail = run_case(d, a.backend, a.device_api)
            except Exception as e:
                status, detail = "ERROR", f"{type(e).__name__}: {e}"
            print(f"{d}\t{status} {detail}", flush=True)
        return 0
    results = {}
    cases = [d for d, _, files in sorted(os.walk(a.root)) if "manifest.json" in files]
    chunks = [cases[i:i + a.chunk] for i in range(0, len(cases), a.chunk)]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futs = [pool.submit(isolated, c, a.backend, a.timeout, a.device_api) for c in chunks]
        for f in concurrent.futures.as_completed(futs):
            for d, (status, detail) in sorted(f.result().items()):
                name = os.path.relpath(d, a.root)
                with open(os.path.join(d, "manifest.json")) as mf:
                    notes = json.load(mf).get("notes", [])
                host = any("run on the host" in n for n in notes)
                results[name] = {"status": status, "detail": detail, "host_regions": host}
                print(f"{status} {name}: {detail}{' (host regions)' if host else ''}",
                      flush=True)
    counts = {}
    for r in results.values():
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        if r["status"] == "PASS" and not r["host_regions"]:
            counts["PASS_all_on_gpu"] = counts.get("PASS_all_on_gpu", 0) + 1
    print("summary:", json.dumps(counts))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    return 0 if counts.get("PASS", 0) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
