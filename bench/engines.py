"""The two engines the benchmark compares, behind one interface: `run()` runs the model once on
the inputs given at construction, `outputs()` returns the last outputs as numpy arrays.

- `OnnxcModel`: an onnxc-compiled library driven through the generic C ABI
  (runtime_stub/onnxc_runtime.h) with ctypes: dlopen, onnxc_create, onnxc_set_num_threads,
  onnxc_run on caller-owned numpy buffers (no copies, no allocation per run).
- `OrtModel`: an ONNX Runtime CPU session with the same intra-op thread count
  (onnxruntime is imported only here, so a process that uses only onnxc never loads it).

Both are timed by the same loop (`time_runs`), from Python, on the same input arrays.
"""
import ctypes
import json
import os
import time

import numpy as np

MAX_RANK = 8
# ONNX TensorProto.DataType numbers (onnxc's dtypes) <-> numpy.
DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
          7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32,
          13: np.uint64}
NP_TO_ONNX = {np.dtype(v): k for k, v in DTYPES.items()}


class EngineError(Exception):
    """A model that an engine cannot load or run; the message says why."""


class OnnxcTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size_bytes", ctypes.c_uint64),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK)]


def _declare(lib):
    vp, i32 = ctypes.c_void_p, ctypes.c_int32
    lib.onnxc_signature_json.restype = ctypes.c_char_p
    lib.onnxc_create.argtypes = [ctypes.POINTER(vp)]
    lib.onnxc_set_num_threads.argtypes = [vp, i32]
    lib.onnxc_run.argtypes = [vp, ctypes.POINTER(OnnxcTensor), i32, ctypes.POINTER(OnnxcTensor),
                              i32]
    lib.onnxc_destroy.argtypes = [vp]
    lib.onnxc_destroy.restype = None
    lib.onnxc_last_error.argtypes = [vp]
    lib.onnxc_last_error.restype = ctypes.c_char_p


def _tensor(array):
    t = OnnxcTensor()
    t.data = array.ctypes.data
    t.size_bytes = array.nbytes
    t.dtype = NP_TO_ONNX[array.dtype]
    t.rank = array.ndim
    for i, d in enumerate(array.shape):
        t.shape[i] = d
    return t


class OnnxcModel:
    """A compiled library, one context with `threads` threads, bound to `feeds` (name -> array).
    `out_shapes` gives the shape of outputs whose shape the library knows only at run time."""

    def __init__(self, lib_path, threads, feeds, out_shapes=None):
        self.lib = ctypes.CDLL(os.path.abspath(lib_path))
        _declare(self.lib)
        self.ctx = ctypes.c_void_p()
        if self.lib.onnxc_create(ctypes.byref(self.ctx)) != 0:
            raise EngineError(f"onnxc_create: {self.lib.onnxc_last_error(None).decode()}")
        self._check(self.lib.onnxc_set_num_threads(self.ctx, threads), "onnxc_set_num_threads")
        sig = json.loads(self.lib.onnxc_signature_json())
        try:
            self.inputs = [np.ascontiguousarray(feeds[i["name"]]) for i in sig["inputs"]]
        except KeyError as e:
            raise EngineError(f"no input data for {e}") from None
        self.names = [o["name"] for o in sig["outputs"]]
        self.outs = []
        for i, o in enumerate(sig["outputs"]):
            shape = o["shape"]
            if any(d < 0 for d in shape):
                shape = (out_shapes or [])[i] if i < len(out_shapes or []) else None
                if shape is None:
                    raise EngineError(f"output '{o['name']}' has a dynamic shape")
            self.outs.append(np.zeros(shape, dtype=DTYPES[_dtype_number(o["dtype"])]))
        self._in = (OnnxcTensor * len(self.inputs))(*[_tensor(a) for a in self.inputs])
        self._out = (OnnxcTensor * len(self.outs))(*[_tensor(a) for a in self.outs])
        self._args = (self.ctx, self._in, len(self.inputs), self._out, len(self.outs))
        self._run = self.lib.onnxc_run

    def _check(self, status, what):
        if status != 0:
            raise EngineError(f"{what}: {self.lib.onnxc_last_error(self.ctx).decode()}")

    def run(self):
        status = self._run(*self._args)
        if status != 0:
            self._check(status, "onnxc_run")

    def outputs(self):
        return [a.copy() for a in self.outs]

    def close(self):
        if self.ctx:
            self.lib.onnxc_destroy(self.ctx)
            self.ctx = None


_SIG_DTYPES = {"float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6,
               "int64": 7, "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13}


def _dtype_number(name):
    if isinstance(name, int):
        return name
    if name not in _SIG_DTYPES:
        raise EngineError(f"unsupported output dtype {name}")
    return _SIG_DTYPES[name]


class OrtModel:
    """An ONNX Runtime CPU session (all graph optimisations, `threads` intra-op threads)."""

    def __init__(self, model_path, threads, feeds):
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self.sess = ort.InferenceSession(model_path, so, providers=["CPUExecutionProvider"])
        except Exception as e:  # ORT raises its own exception types
            raise EngineError(f"ORT session: {str(e).splitlines()[0]}") from None
        self.feeds = feeds
        self.last = None

    def run(self):
        self.last = self.sess.run(None, self.feeds)

    def outputs(self):
        return list(self.last)

    def close(self):
        self.sess = None


def wait_quiet(limit_s=2.0, window_s=0.01):
    """Returns once this process's threads have been idle for a window (CPU time under a tenth
    of the wall time), or after limit_s: ORT's pool threads spin after a run, for more than 20 ms
    on a 2-vCPU Zen 3 (session 27: an onnxc LSTM run at 2 threads took 10-15 ms within 20 ms of
    ORT's runs and 3.1 ms 100 ms after them), and the engine timed next must not share the CPUs
    with them. Returns the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit_s:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        time.sleep(window_s)
        if time.process_time() - cpu0 < 0.1 * (time.perf_counter() - wall0):
            break
    return time.perf_counter() - start


def time_runs(engine, iters):
    """Latencies in milliseconds of `iters` back-to-back runs."""
    times = []
    run, clock = engine.run, time.perf_counter
    for _ in range(iters):
        t0 = clock()
        run()
        times.append((clock() - t0) * 1e3)
    return times


def synthetic_inputs(specs, seed=0):
    """Fixed-seed inputs for (name, ORT type, shape) specs: N(0,1) floats, integers in [0, 100)."""
    types = {"tensor(float)": np.float32, "tensor(double)": np.float64,
             "tensor(int64)": np.int64, "tensor(int32)": np.int32}
    rng = np.random.default_rng(seed)
    feeds = {}
    for name, ort_type, shape in specs:
        dtype = types.get(ort_type)
        if dtype is None:
            raise EngineError(f"input '{name}' has unsupported type {ort_type}")
        if any(not isinstance(d, int) for d in shape):
            raise EngineError(f"input '{name}' has unbound dims {shape}")
        if np.issubdtype(dtype, np.integer):
            feeds[name] = rng.integers(0, 100, size=shape).astype(dtype)
        else:
            feeds[name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def reference_inputs(model_path, dims):
    """(feeds, output shapes): synthetic inputs for the model with its symbolic dims bound from
    `dims`, and the shapes of ORT's outputs on them (for outputs onnxc sizes at run time)."""
    import onnxruntime as ort
    try:
        sess = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        specs = [(i.name, i.type, [dims.get(d, d) if isinstance(d, str) else d for d in i.shape])
                 for i in sess.get_inputs()]
        feeds = synthetic_inputs(specs)
        return feeds, [o.shape for o in sess.run(None, feeds)]
    except EngineError:
        raise
    except Exception as e:  # ORT raises its own exception types
        raise EngineError(f"ORT: {str(e).splitlines()[0]}") from None


def compare(got, want, rtol, atol_rel):
    """None if every output agrees (|g - w| <= atol + rtol |w|, atol = atol_rel * max |w|),
    else a one-line reason. Returns (reason, largest absolute error)."""
    if len(got) != len(want):
        return f"{len(got)} outputs, ORT has {len(want)}", float("inf")
    worst = 0.0
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        if g.shape != w.shape:
            return f"output {k}: shape {g.shape}, ORT {w.shape}", float("inf")
        finite = np.isfinite(w)
        scale = float(np.max(np.abs(w[finite]))) if finite.any() else 1.0
        err = np.abs(g - w)
        err[np.isnan(g) & np.isnan(w)] = 0.0
        err[(g == w) & ~finite] = 0.0
        worst = max(worst, float(np.max(err)) if err.size else 0.0)
        bad = err > atol_rel * scale + rtol * np.abs(w)
        if bad.any():
            return (f"output {k}: {int(bad.sum())} of {bad.size} elements differ from ORT "
                    f"(max abs error {float(np.max(err)):.3g}, output scale {scale:.3g})"), worst
    return None, worst
