#!/usr/bin/python3
"""Tests of the benchmark harness (bench/) that need neither torch nor onnxruntime: Debian's
/usr/bin/python3 with python3-onnx and python3-numpy, onnxc and cc.

  test_bench.py CASE ONNXC CC WORK_DIR      CASE: flops, abi_driver, tools, report, cli,
                                            gemm_study (CC: the C++ compiler for that one),
                                            compare_nodes

Each case prints what it checked and exits 0, or raises (non-zero exit) on a failed assertion.
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "bench"))
import compare_nodes  # noqa: E402
import engines  # noqa: E402
import flops  # noqa: E402
import report  # noqa: E402

RNG = np.random.default_rng(7)


def weight(name, shape):
    return numpy_helper.from_array(RNG.standard_normal(shape).astype(np.float32), name)


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def case_flops(work):
    """Every counted operator, with the MACs worked out by hand from the shapes below."""
    f32 = TensorProto.FLOAT
    nodes = [
        # Conv: X[n,4,8,8] * W[6,2,3,3], group 2, pads 1 -> Y[n,6,8,8]; MACs 6*8*8 * 2*3*3 = 6912/n
        helper.make_node("Conv", ["x", "wc"], ["c"], group=2, pads=[1, 1, 1, 1]),
        # ConvTranspose: X[n,6,8,8], W[6,3,2,2] stride 2 -> [n,3,16,16]; MACs 6*8*8 * 3*2*2 = 4608/n
        helper.make_node("ConvTranspose", ["c", "wt"], ["t"], strides=[2, 2]),
        helper.make_node("Reshape", ["t", "shape"], ["r"]),  # [n, 768]
        # Gemm with transB: r[n,768] x wg[10,768]^T -> [n,10]; MACs 10*768 = 7680/n
        helper.make_node("Gemm", ["r", "wg"], ["g"], transB=1),
        # MatMul: g[n,10] x wm[10,4] -> [n,4]; MACs 4*10 = 40/n
        helper.make_node("MatMul", ["g", "wm"], ["m"]),
        # LSTM over seq 3, batch 1, input 2, hidden 5, one direction: 3 * 4*5*(2+5) = 420 MACs
        helper.make_node("LSTM", ["seq", "lw", "lr"], ["ly"], hidden_size=5),
        helper.make_node("Relu", ["m"], ["out"]),  # not counted
    ]
    inits = [weight("wc", [6, 2, 3, 3]), weight("wt", [6, 3, 2, 2]), weight("wg", [10, 768]),
             weight("wm", [10, 4]), weight("lw", [1, 20, 2]), weight("lr", [1, 20, 5]),
             numpy_helper.from_array(np.array([-1, 768], np.int64), "shape")]
    graph = helper.make_graph(
        nodes, "flops", [helper.make_tensor_value_info("x", f32, ["n", 4, 8, 8]),
                         helper.make_tensor_value_info("seq", f32, [3, 1, 2])],
        [helper.make_tensor_value_info("out", f32, None),
         helper.make_tensor_value_info("ly", f32, None)], inits)
    path = save(graph, os.path.join(work, "flops.onnx"))
    for n in (1, 3):
        got, note = flops.count_flops(path, {"n": n})
        want = 2 * (n * (6912 + 4608 + 7680 + 40) + 420)
        assert note is None and got == want, (n, got, want, note)
    got, note = flops.count_flops(path, {})  # n unbound: no static shapes, a reason instead
    assert got is None and "no static shapes" in note, (got, note)
    print("flops: counts match the hand-computed MACs at n=1 and n=3; unbound dims give a reason")


def abi_model(work):
    """Gather (int64 ids) -> MatMul -> Add -> Relu, and a Softmax second output."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    nodes = [helper.make_node("Gather", ["table", "ids"], ["e"]),
             helper.make_node("MatMul", ["e", "w"], ["m"]),
             helper.make_node("Add", ["m", "bias"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"]),
             helper.make_node("Softmax", ["a"], ["p"], axis=-1)]
    inits = [weight("table", [100, 16]), weight("w", [16, 8]), weight("bias", [8])]
    graph = helper.make_graph(nodes, "abi", [helper.make_tensor_value_info("ids", i64, [2, 5])],
                              [helper.make_tensor_value_info("y", f32, [2, 5, 8]),
                               helper.make_tensor_value_info("p", f32, [2, 5, 8])], inits)
    return save(graph, os.path.join(work, "abi.onnx")), [numpy_helper.to_array(t) for t in inits]


def abi_reference(ids, table, w, bias):
    """The model of abi_model() in numpy (float64)."""
    a = table.astype(np.float64)[ids] @ w.astype(np.float64) + bias
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return [np.maximum(a, 0.0), e / e.sum(axis=-1, keepdims=True)]


def case_abi_driver(onnxc, work):
    """engines.OnnxcModel drives a compiled library through the generic ABI correctly."""
    model, weights = abi_model(work)
    lib = os.path.join(work, "libabi.so")
    subprocess.run([onnxc, "compile", model, "-o", lib], check=True, capture_output=True)
    ids = RNG.integers(0, 100, size=(2, 5)).astype(np.int64)
    want = abi_reference(ids, *weights)
    for threads in (1, 2):
        eng = engines.OnnxcModel(lib, threads, {"ids": ids})
        eng.run()
        got = eng.outputs()
        assert [g.shape for g in got] == [(2, 5, 8), (2, 5, 8)], [g.shape for g in got]
        reason, err = engines.compare(got, want, 1e-5, 1e-6)
        assert reason is None and err < 1e-4, (reason, err)
        # The comparison must catch a real difference, and report the largest error.
        bad = [got[0], got[1].copy()]
        bad[1][1, 2, 3] += 0.5
        reason, err = engines.compare(bad, want, 1e-5, 1e-6)
        assert reason and "1 of 80 elements" in reason and abs(err - 0.5) < 1e-3, (reason, err)
        assert len(engines.time_runs(eng, 4)) == 4
        eng.close()
    try:
        engines.OnnxcModel(lib, 1, {"wrong": ids})
        raise AssertionError("missing input accepted")
    except engines.EngineError as e:
        assert "ids" in str(e), e
    print("abi_driver: outputs match a numpy reference at 1 and 2 threads; mismatches are caught")


def case_tools(cc, work):
    """bench/maxrss.c reports a child's own peak RSS; bench/fma_peak.c reports sane rates;
    bench/cpu_distance.c a round trip between two CPUs (when there are two) and refuses bad
    arguments."""
    exe = {}
    for name in ("maxrss", "fma_peak", "cpu_distance"):
        exe[name] = os.path.join(work, name)
        subprocess.run([cc, "-O2", "-pthread", os.path.join(SRC, "bench", name + ".c"), "-o",
                        exe[name]], check=True)
    out = os.path.join(work, "rss.txt")
    grow = "b = bytearray(300 << 20); b[::4096] = b'x' * len(b[::4096])"
    subprocess.run([exe["maxrss"], out, sys.executable, "-c", grow], check=True)
    rss_mib = int(open(out).read()) / 1024
    assert 300 <= rss_mib < 400, rss_mib
    subprocess.run([exe["maxrss"], out, sys.executable, "-c", "pass"], check=True)
    small = int(open(out).read()) / 1024
    assert small < 100, small  # not inherited from this (or any) parent
    status = subprocess.run([exe["maxrss"], out, "false"]).returncode
    assert status == 1, status
    peak = json.loads(subprocess.run([exe["fma_peak"], "2"], check=True, capture_output=True,
                                     text=True).stdout)
    for key in ("peak", "peak_cpu_time"):
        for t in ("1", "2"):
            assert 0.5 < peak[key][t] < 1e5, (key, t, peak)
    assert peak["peak"]["1"] == max(peak["avx512"]["1"], peak["avx2"]["1"]), peak
    bad = subprocess.run([exe["fma_peak"], "0"], capture_output=True, text=True)
    assert bad.returncode == 1 and "error" in bad.stderr, bad
    for args in (["0"], ["x"], ["0.1", "0", "0"], ["0.1", "0"], ["0.1", "0", "99999"]):
        bad = subprocess.run([exe["cpu_distance"]] + args, capture_output=True, text=True)
        assert bad.returncode == 1 and "error" in bad.stderr, (args, bad)
    distance = "not measured (one CPU)"
    if len(os.sched_getaffinity(0)) >= 2:
        ns = float(subprocess.run([exe["cpu_distance"], "0.2"], check=True, capture_output=True,
                                  text=True).stdout)
        assert 1 <= ns < 1e9, ns  # a loaded host (ctest -j) may deschedule either thread
        distance = f"{ns:.0f} ns"
    print(f"tools: maxrss {rss_mib:.0f} MiB for a 300 MiB child, {small:.0f} MiB for an idle "
          f"one; FMA peak {peak['peak']} GFLOP/s; CPU round trip {distance}")


def case_gemm_study(cxx, work):
    """bench/gemm_study.cpp: its four GEMM variants agree with its float64 reference (exit 0,
    one line per variant with times and rates), and bad arguments are refused (exit 2)."""
    exe = os.path.join(work, "gemm_study")
    subprocess.run([cxx, "-O2", "-std=c++17", os.path.join(SRC, "bench", "gemm_study.cpp"), "-o",
                    exe], check=True)
    # K 300: two K blocks (256 + 44), N 96: two 48-column panels, a 192-column item cut short
    done = subprocess.run([exe, "12", "300", "96", "2"], capture_output=True, text=True)
    assert done.returncode == 0, (done.stdout, done.stderr)
    lines = [l for l in done.stdout.splitlines() if "GFLOP/s" in l]
    assert len(lines) == 4 and "onnxc" in lines[0], done.stdout
    for args in (["5", "300", "96", "2"], ["12", "300", "50", "2"], ["12", "0", "96", "2"],
                 ["12", "300", "96"]):
        bad = subprocess.run([exe, *args], capture_output=True, text=True)
        assert bad.returncode == 2 and "error" in bad.stderr, (args, bad)
    print("gemm_study: the four variants agree with the reference; bad arguments refused")


def report_doc():
    machine = {"date": "D", "cpu": "C", "cores": 2, "kernel": "K", "ort_version": "1",
               "torch": "T", "opset": 17, "loadavg_start": 1.0, "loadavg_end": 2.0,
               "quick": False}
    runs_a = [{"threads": 1, "onnxc_ms": 2.0, "ort_ms": 4.0, "ratio": 2.0, "max_abs_err": 0.0},
              {"threads": 2, "onnxc_ms": 1.0, "ort_ms": 1.0, "ratio": 1.0, "max_abs_err": 0.0}]
    runs_b = [{"threads": 1, "onnxc_ms": 4.0, "ort_ms": 2.0, "ratio": 0.5, "max_abs_err": 1e-6},
              {"threads": 2, "error": "outputs disagree: output 0", "max_abs_err": 3.0}]
    cold = {"onnxc": {"cold_ms": 5.0, "maxrss_kib": 30 * 1024},
            "ort": {"cold_ms": 50.0, "maxrss_kib": 90 * 1024},
            "baseline": {"cold_ms": 0.0, "maxrss_kib": 20 * 1024}}
    models = [{"name": "a", "flops": 4e9, "runs": runs_a, "compile_s": 1.5,
               "compile_maxrss_kib": 2048, "cold": cold},
              {"name": "b", "flops": None, "runs": runs_b, "compile_s": 2.0,
               "compile_maxrss_kib": 1024},
              {"name": "c", "flops": 1e9, "error": "onnxc compile failed: LSTM",
               "compile_s": 0.1, "compile_maxrss_kib": 1024}]
    return {"machine": machine, "models": models,
            "fma_peak_gflops": {"peak": {"1": 10.0, "2": 20.0},
                                "peak_cpu_time": {"1": 11.0, "2": 22.0}}}


def table_rows(md, first_cell):
    rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in md.splitlines()
            if l.startswith("| " + first_cell + " |")]
    return rows


def case_report():
    md = report.markdown(report_doc())
    a1, a2 = table_rows(md, "a")[:2]
    # 4 GFLOP in 2 ms = 2000 GFLOP/s = 20000% of the 10 GFLOP/s 1-thread peak; ORT at 4 ms half.
    assert a1[:10] == ["a", "1", "2.000", "4.000", "2.00", "4.00", "2000.0", "20000.0",
                       "1000.0", "10000.0"], a1
    assert a2[7] == str(100 * 4000.0 / 20.0), a2
    b1, b2 = table_rows(md, "b")[:2]
    assert b1[5:10] == ["—"] * 5, b1  # no FLOP count: no rates
    assert b2[2:5] == ["—"] * 3 and "outputs disagree" in b2[10], b2  # no time when wrong
    c1 = table_rows(md, "c")[0]
    assert c1[2] == "—" and "LSTM" in c1[10], c1
    # geomean of 2.0 and 0.5 is 1; at 2 threads only model a (1.0) is timed.
    assert "at 1 thread(s): **1.00** over 2 models" in md, md
    assert "at 2 thread(s): **1.00** over 1 models" in md, md
    res = table_rows(md, "a")[2]  # the resource table: RSS above the 20 MiB baseline
    # Start-up = cold - 1-thread median: onnxc 5 - 2 = 3 ms, ORT 50 - 4 = 46 ms, 15x.
    assert res[1:10] == ["1.50", "2", "5.0", "50.0", "3.0", "46.0", "15", "10", "70"], res
    assert table_rows(md, "b")[2][5:8] == ["—"] * 3  # no cold start measured: no start-up
    assert table_rows(md, "c")[1][1] == "failed"
    print("report: rates, % peak, geomeans, RSS above baseline and failure rows are right")


def case_cli(onnxc, work):
    """run.py refuses bad arguments and missing tools with a clear message, exit 1 / 2."""
    run = [sys.executable, os.path.join(SRC, "bench", "run.py"), "--work-dir", work]
    bad = subprocess.run(run + ["--threads", "x"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--threads" in bad.stderr, bad
    bad = subprocess.run(run + ["--onnxc", os.path.join(work, "nope")], capture_output=True,
                         text=True)
    assert bad.returncode == 1 and "run.py: error: onnxc binary" in bad.stderr, bad
    if importlib.util.find_spec("onnxruntime") is None:
        bad = subprocess.run(run + ["--onnxc", onnxc], capture_output=True, text=True)
        assert bad.returncode == 1 and "no onnxruntime" in bad.stderr, bad
    print("cli: bad --threads, a missing onnxc and a missing onnxruntime are reported")


def case_compare_nodes(onnxc, work):
    """compare_nodes.py groups onnxc's trace (a real one of a --profile library) and ORT's
    profile events by name prefix, ORT's by the median of each node after the warm-up runs."""
    assert compare_nodes.group_key("/a/b/c/Conv", 2) == "/a/b"
    assert compare_nodes.group_key("/a/b/c/Conv", 9) == "/a/b/c/Conv"
    assert compare_nodes.group_key("node", 3) == "node"
    model, _ = abi_model(work)
    lib, trace = os.path.join(work, "libabi_prof.so"), os.path.join(work, "trace.json")
    subprocess.run([onnxc, "compile", model, "--profile", "-o", lib], check=True,
                   capture_output=True)
    subprocess.run([onnxc, "profile", lib, "--iters", "5", "-o", trace], check=True,
                   capture_output=True)
    with open(trace) as f:
        events = json.load(f)
    names = [e["name"] for e in events["traceEvents"] if e.get("ph") == "X"]
    got = compare_nodes.onnxc_groups(events, 9)
    assert sorted(got) == sorted(set(names)) and all(v >= 0 for v in got.values()), got
    total = sum(e["dur"] for e in events["traceEvents"] if e.get("ph") == "X") / 1e3
    assert abs(sum(compare_nodes.onnxc_groups(events, 0).values()) - total) < 1e-9
    ort = [{"cat": "Node", "name": "/x/conv.1/conv.1.0/Conv_kernel_time", "dur": d}
           for d in (900, 800, 700, 600, 500, 10, 40, 20)]  # 5 warm-up runs, then 10..40 us
    ort += [{"cat": "Node", "name": "/x/conv.1/conv.1.2/Clip_kernel_time", "dur": 4},
            {"cat": "Node", "name": "/x/conv.2/Conv_fence_before", "dur": 99},
            {"cat": "Session", "name": "model_run", "dur": 5000}]
    g = compare_nodes.ort_groups(ort, 2)
    assert set(g) == {"/x/conv.1"}, g  # the fence and session events are not kernel times
    # the median (not the mean) of 10, 40 and 20 us, plus the Clip's 4
    assert abs(g["/x/conv.1"] - (0.020 + 0.004)) < 1e-12, g
    print("compare_nodes: onnxc trace and ORT events grouped by prefix, medians after warm-up")


def main():
    case, onnxc, cc, work = sys.argv[1:5]
    work = os.path.join(work, case)
    os.makedirs(work, exist_ok=True)
    cases = {"flops": lambda: case_flops(work), "abi_driver": lambda: case_abi_driver(onnxc, work),
             "tools": lambda: case_tools(cc, work), "report": case_report,
             "cli": lambda: case_cli(onnxc, work),
             "gemm_study": lambda: case_gemm_study(cc, work),
             "compare_nodes": lambda: case_compare_nodes(onnxc, work)}
    cases[case]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
