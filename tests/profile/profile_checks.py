#!/usr/bin/python3
"""Checks of `onnxc compile --profile` and `onnxc profile` on a real model (tests/profile).

Usage: profile_checks.py CASE ONNXC WORK_DIR MODEL DATA_DIR [--dim PARAM=N ...]
  (DATA_DIR "-": synthetic inputs, trace only; --dim flags are passed to onnxc compile)
  trace     compile MODEL with --profile, run `onnxc profile`, validate the Chrome trace (one
            well-formed "X" event per kernel call, ordered, non-overlapping, FLOPs of Conv/MatMul
            nodes recomputed from the model) and that node times sum to within 10% of the run
            time the command measured
  abi       profile and plain builds: identical outputs on DATA_DIR; the plain library reports
            "not a profile build" and imports no clock; onnxc_profile_* on the profile build
  progress  compile progress: silent when stderr is not a terminal, phases with node and
            kernel-call counts on a terminal (util-linux `script`)
Needs Debian's python3-onnx and python3-numpy. Exit 0 = pass.
"""
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference

ONNXC_ERROR_INVALID_ARGUMENT = 1
ONNXC_ERROR_INDEX_OUT_OF_RANGE = 6
ONNXC_ERROR_UNSUPPORTED = 9
SKIP = 77


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def run(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        fail(f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


COMPILE_FLAGS = []  # --dim PARAM=N from the command line


def compile_model(onnxc, model, out, *flags):
    return run([onnxc, "compile", model, "-o", out, *flags, *COMPILE_FLAGS])


def dim_bindings():
    return dict(COMPILE_FLAGS[i + 1].split("=") for i in range(0, len(COMPILE_FLAGS), 2))


class ProfileInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("op_type", ctypes.c_char_p),
                ("input_shapes", ctypes.c_char_p), ("output_shapes", ctypes.c_char_p),
                ("flops", ctypes.c_uint64), ("start_ns", ctypes.c_uint64),
                ("duration_ns", ctypes.c_uint64), ("total_ns", ctypes.c_uint64),
                ("count", ctypes.c_uint64)]


def load(path):
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.onnxc_profile_node.argtypes = [ctypes.c_void_p, ctypes.c_int32,
                                       ctypes.POINTER(ProfileInfo)]
    lib.onnxc_profile_reset.argtypes = [ctypes.c_void_p]
    lib.onnxc_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.onnxc_destroy.argtypes = [ctypes.c_void_p]
    lib.onnxc_run_buffers.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    return lib


def inferred_shapes(model_path):
    """Name -> static shape of every value ONNX shape inference knows."""
    m = onnx.load(model_path)
    bindings = dim_bindings()
    for vi in m.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.dim_param in bindings:
                d.dim_value = int(bindings[d.dim_param])
    m = shape_inference.infer_shapes(m)
    shapes = {}
    for vi in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        if dims and all(d > 0 for d in dims):
            shapes[vi.name] = dims
    for init in m.graph.initializer:
        shapes[init.name] = list(init.dims)
    return m, shapes


def node_label(node, index):
    """How onnxc names a node in profiles: its name, else "node #<index> (<op>)"."""
    return node.name or f"node #{index} ({node.op_type})"


def expected_flops(model_path):
    """ONNX node name -> FLOPs (2·MACs) of its Conv and MatMul nodes, from shape inference."""
    m, shapes = inferred_shapes(model_path)
    out = {}
    for i, n in enumerate(m.graph.node):
        name = node_label(n, i)
        if n.op_type == "Conv" and n.input[1] in shapes and n.output[0] in shapes:
            out[name] = 2 * int(np.prod(shapes[n.output[0]])) * int(np.prod(shapes[n.input[1]][1:]))
        elif n.op_type == "MatMul" and n.input[0] in shapes and n.output[0] in shapes:
            out[name] = 2 * int(np.prod(shapes[n.output[0]])) * shapes[n.input[0]][-1]
    return out


def check_events(events, lib_path, model_path):
    lib = load(lib_path)
    count = lib.onnxc_profile_num_nodes()
    check(len(events) == count, f"{len(events)} trace events, library has {count} kernel calls")
    node_names = {node_label(n, i) for i, n in enumerate(onnx.load(model_path).graph.node)}
    end = 0.0
    for i, e in enumerate(events):
        for key in ("name", "cat", "ph", "ts", "dur", "pid", "tid", "args"):
            check(key in e, f"event {i} lacks '{key}': {e}")
        check(e["ph"] == "X", f"event {i} is not a complete event: {e}")
        check(isinstance(e["name"], str) and e["name"], f"event {i} has no name")
        check(e["dur"] >= 0 and e["ts"] >= 0, f"event {i} has negative time: {e}")
        check(e["args"]["index"] == i, f"event {i} has index {e['args']['index']}")
        check(e["ts"] + 1e-3 >= end, f"event {i} starts at {e['ts']} before the previous end {end}")
        end = e["ts"] + e["dur"]
        # A fused call is named after each node it runs: "A fused with B[, C]".
        parts = e["name"].replace(" fused with ", ", ").split(", ")
        check(e["args"]["op"] == "Copy" or all(p in node_names for p in parts),
              f"event {i} names '{e['name']}', not nodes of the model")
    want = expected_flops(model_path)
    # Keyed by the call's first node: a Conv fused with its activation is still that Conv.
    got = {e["name"].split(" fused with ")[0]: e["args"]["flops"] for e in events}
    check(want, "the model has no Conv/MatMul node to check FLOPs on")
    for name, flops in want.items():
        check(got.get(name) == flops, f"node {name}: FLOPs {got.get(name)}, expected {flops}")


def case_trace(onnxc, work, model, data):
    lib = os.path.join(work, "prof.so")
    trace = os.path.join(work, "trace.json")
    compile_model(onnxc, model, lib, "--profile")
    data_args = [] if data == "-" else [data] # "-": synthetic inputs
    out = run([onnxc, "profile", lib, *data_args, "--iters", "20", "--warmup", "3",
               "-o", trace]).stdout
    print(out)
    with open(trace) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    check_events(events, lib, model)
    m = re.search(r"representative run \(iteration (\d+)\): node sum ([\d.]+) ms, measured "
                  r"([\d.]+) ms", out)
    check(m, "no 'representative run' line in the output")
    node_sum_ms, measured_ms = float(m.group(2)), float(m.group(3))
    trace_sum_ms = sum(e["dur"] for e in events) / 1e3
    check(abs(trace_sum_ms - node_sum_ms) <= 1e-3 + 1e-3 * node_sum_ms,
          f"trace durations sum to {trace_sum_ms} ms, the command reports {node_sum_ms} ms")
    check(abs(doc["otherData"]["measured_run_us"] / 1e3 - measured_ms) <= 1e-3,
          "otherData.measured_run_us disagrees with the printed run time")
    ratio = trace_sum_ms / measured_ms
    print(f"node sum {trace_sum_ms:.4f} ms / measured {measured_ms:.4f} ms = {ratio:.3f}")
    check(0.9 <= ratio <= 1.1, f"node times sum to {ratio:.1%} of the measured run time")
    rows = [l for l in out.splitlines() if re.match(r"\s+\d+\s", l)]
    check(len(rows) == min(20, len(events)), f"{len(rows)} table rows for {len(events)} nodes")
    times = [float(r.split()[-3]) for r in rows]
    check(times == sorted(times, reverse=True), "table rows are not sorted by time")


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("size_bytes", ctypes.c_uint64)]


def read_outputs(directory):
    outs = []
    i = 0
    while os.path.exists(os.path.join(directory, f"output_{i}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(directory, f"output_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        outs.append(numpy_helper.to_array(t))
        i += 1
    return outs


def check_differential(onnxc, work, plain, prof, data):
    results = []
    for lib in (plain, prof):
        out_dir = os.path.join(work, os.path.basename(lib) + ".out")
        run([onnxc, "run", lib, data, "-o", out_dir])
        results.append(read_outputs(out_dir))
    check(len(results[0]) > 0 and len(results[0]) == len(results[1]), "output counts differ")
    for a, b in zip(*results):
        check(a.shape == b.shape and np.array_equal(a, b, equal_nan=True),
              "a --profile build computes different outputs than a plain build")


def dynamic_symbols(lib):
    p = run(["readelf", "-W", "--dyn-syms", lib])
    return {line.split()[7].split("@")[0] for line in p.stdout.splitlines()
            if len(line.split()) >= 8 and line.split()[0].rstrip(":").isdigit()}


def check_plain(onnxc, plain):
    lib = load(plain)
    check(lib.onnxc_profile_num_nodes() == -1, "plain build: onnxc_profile_num_nodes() != -1")
    info = ProfileInfo()
    check(lib.onnxc_profile_node(None, 0, ctypes.byref(info)) == ONNXC_ERROR_UNSUPPORTED,
          "plain build: onnxc_profile_node is not UNSUPPORTED")
    check(lib.onnxc_profile_reset(None) == ONNXC_ERROR_UNSUPPORTED,
          "plain build: onnxc_profile_reset is not UNSUPPORTED")
    check("clock_gettime" not in dynamic_symbols(plain), "plain build imports clock_gettime")
    p = subprocess.run([onnxc, "profile", plain], capture_output=True, text=True)
    check(p.returncode == 1 and "onnxc: error:" in p.stderr and "--profile" in p.stderr,
          f"onnxc profile on a plain build: exit {p.returncode}, stderr {p.stderr!r}")


def io_buffers(lib, data):
    ins, outs = [], []
    for i in range(lib.onnxc_num_inputs()):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"input_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        ins.append(np.ascontiguousarray(numpy_helper.to_array(t)))
    for i in range(lib.onnxc_num_outputs()):
        ti = TensorInfo()
        lib.onnxc_output_info(i, ctypes.byref(ti))
        outs.append(np.zeros(ti.size_bytes, np.uint8))
    ptrs = lambda arrs: (ctypes.c_void_p * len(arrs))(*[a.ctypes.data for a in arrs])
    return ins, outs, ptrs(ins), ptrs(outs)


def profile_infos(lib, ctx, n):
    infos = []
    for i in range(n):
        info = ProfileInfo()
        check(lib.onnxc_profile_node(ctx, i, ctypes.byref(info)) == 0, f"profile_node({i})")
        infos.append(info)
    return infos


def check_profile_abi(prof, data, name):
    lib = load(prof)
    n = lib.onnxc_profile_num_nodes()
    check(n > 0 and getattr(lib, name + "_profile_num_nodes")() == n, "num_nodes / alias")
    check("clock_gettime" in dynamic_symbols(prof), "profile build does not read the clock")
    ctx = ctypes.c_void_p()
    check(lib.onnxc_create(ctypes.byref(ctx)) == 0, "onnxc_create failed")
    info = ProfileInfo()
    check(lib.onnxc_profile_node(ctx, n, ctypes.byref(info)) == ONNXC_ERROR_INDEX_OUT_OF_RANGE
          and lib.onnxc_profile_node(ctx, -1, ctypes.byref(info)) == ONNXC_ERROR_INDEX_OUT_OF_RANGE,
          "a bad index is not INDEX_OUT_OF_RANGE")
    check(lib.onnxc_profile_node(ctx, 0, None) == ONNXC_ERROR_INVALID_ARGUMENT
          and lib.onnxc_profile_node(None, 0, ctypes.byref(info)) == ONNXC_ERROR_INVALID_ARGUMENT
          and lib.onnxc_profile_reset(None) == ONNXC_ERROR_INVALID_ARGUMENT, "NULL arguments")
    check(all(i.count == 0 for i in profile_infos(lib, ctx, n)), "a new context has timings")
    keep = io_buffers(lib, data)
    for _ in range(3):
        check(lib.onnxc_run_buffers(ctx, keep[2], keep[3]) == 0, "run failed")
    infos = profile_infos(lib, ctx, n)
    check(infos[0].start_ns == 0, "the first call does not start the run")
    for i, info in enumerate(infos):
        check(info.count == 3 and info.total_ns >= info.duration_ns, f"node {i}: count/total")
        check(info.op_type and info.output_shapes, f"node {i}: no op type or shape")
        if i + 1 < n:
            check(infos[i + 1].start_ns == info.start_ns + info.duration_ns,
                  f"node {i + 1} does not start where node {i} ended")
    check(lib.onnxc_profile_reset(ctx) == 0, "reset failed")
    check(all(i.count == 0 and i.total_ns == 0 for i in profile_infos(lib, ctx, n)),
          "reset left timings")
    lib.onnxc_destroy(ctx)


def case_abi(onnxc, work, model, data):
    plain, prof = os.path.join(work, "plain.so"), os.path.join(work, "prof.so")
    compile_model(onnxc, model, plain)
    compile_model(onnxc, model, prof, "--profile")
    check_differential(onnxc, work, plain, prof, data)
    check_plain(onnxc, plain)
    check_profile_abi(prof, data, "prof")


def case_progress(onnxc, work, model, data):
    lib = os.path.join(work, "progress.so")
    env = dict(os.environ, ONNXC_PROGRESS_DELAY_MS="0")
    err_path = os.path.join(work, "stderr.txt")
    with open(err_path, "w") as err:
        p = subprocess.run([onnxc, "compile", model, "-o", lib], stdout=subprocess.PIPE,
                           stderr=err, text=True, env=env)
    check(p.returncode == 0, f"compile failed: {p.stdout}")
    with open(err_path) as f:
        err_text = f.read()
    check(err_text == "", f"stderr is a file, yet onnxc wrote to it: {err_text!r}")
    lines = p.stdout.splitlines()
    pattern = [r"wrote \S+ and \S+\.h", r"arena size: \d+ bytes",
               r"intermediates: \d+ bytes if no buffer shared memory \(\d+ computed in place\)",
               r"weights: \d+ bytes",
               r"code size: \d+ bytes \(beyond the weights\)",
               r"stack size: \d+ bytes \(estimate, per thread\)", r"kernel calls: \d+",
               r"compile time: [\d.]+ s"]
    check(len(lines) == len(pattern) and all(re.fullmatch(r, l) for r, l in zip(pattern, lines)),
          f"unexpected compile output: {p.stdout!r}")
    kernel_calls = int(lines[6].split(": ")[1])
    if not shutil.which("script"):
        print("SKIP: the terminal half needs util-linux `script`")
        sys.exit(SKIP)
    import shlex
    cmd = " ".join(shlex.quote(a) for a in [onnxc, "compile", model, "-o", lib])
    t = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL)
    print(t.stdout)
    check(t.returncode == 0, f"compile under script failed: {t.returncode}")
    nodes = len(onnx.load(model).graph.node)
    for want in ["loading...", f"optimising the graph: {nodes} nodes...",
                 f"generating machine code: {kernel_calls} kernel calls...", ": done"]:
        check(want in t.stdout, f"terminal output lacks {want!r}")


def case_run_time_batch(onnxc, work, model, data):
    """A library compiled with a run-time batch (no --dim), profiled with --dim: at batch 1 the
    node times cover the run; at batch 2 the samples run one after the other and the node
    times (the last sample's) cover only part of it (about half on a quiet machine; the check
    does not depend on timing), which the output notes."""
    lib = os.path.join(work, "prof_batch.so")
    out = compile_model(onnxc, model, lib, "--profile", "--batch-tile", "0").stdout
    check("run-time batch" in out, f"not compiled with a run-time batch: {out}")
    note = "node times are those of its last tile or sample"
    for batch, lo, hi in ((1, 0.9, 1.1), (2, 0.0, 1.0)):
        out = run([onnxc, "profile", lib, "--iters", "5", "--warmup", "1",
                   "--dim", f"{dim_bindings_name(model)}={batch}"]).stdout
        print(out)
        check(note in out, f"batch {batch}: the output does not note the per-sample times")
        m = re.search(r"representative run \(iteration \d+\): node sum ([\d.]+) ms, measured "
                      r"([\d.]+) ms", out)
        check(m, "no 'representative run' line in the output")
        ratio = float(m.group(1)) / float(m.group(2))
        check(lo <= ratio <= hi and (batch == 1 or ratio < 1.0),
              f"batch {batch}: node times are {ratio:.1%} of the run")
    bad = subprocess.run([onnxc, "profile", lib, "--dim", "nope=2"], capture_output=True,
                         text=True)
    check(bad.returncode == 1 and "the library has no run-time dim 'nope'" in bad.stderr,
          f"--dim of an unknown dim: exit {bad.returncode}, {bad.stderr!r}")


def dim_bindings_name(model):
    """The name of the first symbolic dim of the model's first input."""
    dims = onnx.load(model).graph.input[0].type.tensor_type.shape.dim
    return next(d.dim_param for d in dims if d.dim_param)


def main():
    if len(sys.argv) < 6 or len(sys.argv) % 2 != 0:
        fail(__doc__)
    case, onnxc, work, model, data = sys.argv[1:6]
    COMPILE_FLAGS.extend(sys.argv[6:])
    check(all(f == "--dim" for f in COMPILE_FLAGS[::2]), "only --dim flags are supported")
    if not os.path.exists(model):
        print(f"SKIP: {model} not found")
        sys.exit(SKIP)
    os.makedirs(work, exist_ok=True)
    {"trace": case_trace, "abi": case_abi, "progress": case_progress,
     "run_time_batch": case_run_time_batch}[case](
        onnxc, work, model, data)
    print("PASS")


if __name__ == "__main__":
    main()
