#!/usr/bin/env python3
"""onnxc against ONNX Runtime on the benchmark model zoo: latency, effective GFLOP/s against the
measured FMA peak, cold start, peak memory, compile time and memory. One tool; see
bench/README.md.

  bench/run.py --onnxc build/bin/onnxc                       # the whole zoo, 1 and 2 threads
  bench/run.py --quick --models mlp,resnet18 --threads 1     # smoke run

Steps: export the zoo with Debian's PyTorch (bench/models.py under --torch-python, cached in
WORK/models), measure the FMA peak (bench/fma_peak.c, built with cc), then per model: compile
with onnxc (time, peak RSS), count FLOPs, and for each thread count run both engines on the same
fixed-seed inputs, compare their outputs (a model whose outputs disagree gets no time), then time
them in alternating rounds. Cold start and peak RSS come from fresh processes (bench/probe.py).
Writes WORK/results.json and WORK/results.md and prints the markdown.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

# numpy's OpenBLAS starts a pool thread per CPU at import, and they spin for a while after
# any call that reaches BLAS: on a 2-vCPU VM that is the CPU the timed engine's second thread
# needs (session 47: blas_thread_server took 5.8% of a 1-thread onnxc timing loop's samples).
# Neither engine uses numpy's BLAS; the fresh processes of the cold-start probe inherit this.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engines  # noqa: E402
import flops  # noqa: E402
import report  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--onnxc", default="build/bin/onnxc", help="the onnxc binary")
    p.add_argument("--work-dir", default="build/bench", help="models, libraries and results")
    p.add_argument("--models", default="", help="comma-separated entries (default: all)")
    p.add_argument("--threads", default="1,2", help="comma-separated intra-op thread counts")
    p.add_argument("--iters", type=int, default=50, help="most timed runs per engine per round")
    p.add_argument("--rounds", type=int, default=5, help="alternating rounds per thread count")
    p.add_argument("--round-seconds", type=float, default=0.5,
                   help="aim of each engine's timed block per round (fewer runs if slower)")
    p.add_argument("--cold-runs", type=int, default=3,
                   help="fresh processes per cold-start / peak-RSS measurement (median)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 2 rounds of 3 runs, one cold-start process")
    p.add_argument("--rtol", type=float, default=1e-3, help="relative tolerance vs ORT")
    p.add_argument("--atol", type=float, default=1e-4,
                   help="absolute tolerance vs ORT, times the output's largest magnitude")
    p.add_argument("--symbolic", action="store_true",
                   help="also compile each model with its dims left to run time (no --dim) and "
                        "time it against the specialised build at the same shape")
    p.add_argument("--torch-python", default="/usr/bin/python3",
                   help="Python with torch + torchvision for bench/models.py")
    args = p.parse_args()
    if args.quick:
        args.iters, args.rounds, args.round_seconds, args.cold_runs = 3, 2, 0.1, 1
    try:
        args.threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        p.error(f"--threads: expected numbers like 1,2, got '{args.threads}'")
    if not args.threads or min(min(args.threads), args.iters, args.rounds, args.cold_runs) < 1:
        p.error("--threads, --iters, --rounds and --cold-runs must be positive")
    return args


def fail(msg):
    print(f"run.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def export_models(args, model_dir):
    cmd = [args.torch_python, os.path.join(HERE, "models.py"), "--out", model_dir]
    if args.models:
        cmd += ["--models", args.models]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        fail(f"cannot run {args.torch_python}: {e} (see bench/setup.sh)")
    if done.returncode != 0:
        fail(f"exporting the models failed:\n{done.stderr.strip()[-2000:]}\n"
             "(bench/setup.sh installs python3-torch and python3-torchvision)")
    with open(os.path.join(model_dir, "manifest.json")) as f:
        return json.load(f)


def build_tools(work):
    """Builds bench/fma_peak.c and bench/maxrss.c with cc; returns {name: path}."""
    tools = {}
    for name in ("fma_peak", "maxrss"):
        src, exe = os.path.join(HERE, name + ".c"), os.path.join(work, name)
        done = subprocess.run(["cc", "-O2", "-pthread", src, "-o", exe], capture_output=True,
                              text=True)
        if done.returncode != 0:
            fail(f"building {src} with cc failed:\n{done.stderr.strip()}")
        tools[name] = exe
    return tools


def fma_peak(tools, max_threads):
    out = subprocess.run([tools["fma_peak"], str(max_threads)], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout)


def run_measured(tools, cmd):
    """(exit status, stdout, stderr, wall seconds, the command's own peak RSS in KiB)."""
    rss_file = os.path.join(os.path.dirname(tools["maxrss"]), "maxrss.out")
    t0 = time.perf_counter()
    done = subprocess.run([tools["maxrss"], rss_file, *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    try:
        with open(rss_file) as f:
            rss = int(f.read())
        os.remove(rss_file)
    except (OSError, ValueError):
        rss = None
    return done.returncode, done.stdout, done.stderr, wall, rss


def compile_error(status, stderr):
    """The gist of onnxc's error message: its first line without the model path, plus one."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    if not lines or status > 128:
        return f"onnxc compile failed with exit status {status}, no message"
    first = lines[0].removeprefix("onnxc: error: ")
    first = first.split(".onnx: ", 1)[-1]
    return "onnxc compile failed: " + " ".join([first] + lines[1:2])[:240]


def compile_model(args, tools, entry, model, lib, bind=True):
    """Compiles `model` into `lib`, binding the entry's dims (bind=False: leaves them run-time)."""
    cmd = [args.onnxc, "compile", model, "-o", lib]
    cmd += [f"--dim={k}={v}" for k, v in entry["dims"].items() if bind]
    cmd += [f"--dim={k}={v}" for k, v in entry.get("ranges", {}).items() if not bind]
    status, _, err, wall, rss = run_measured(tools, cmd)
    res = {"compile_s": wall, "compile_maxrss_kib": rss}
    if status != 0:
        res["error"] = compile_error(status, err)
    return res


def probe(tools, kind, path, inputs):
    """Cold start (ms) and peak RSS (KiB) of a fresh process running the engine once."""
    status, out, err, _, rss = run_measured(
        tools, [sys.executable, os.path.join(HERE, "probe.py"), kind, path, inputs])
    if status != 0:
        return {"error": err.strip()[-300:]}
    res = json.loads(out)
    res["maxrss_kib"] = rss
    return res


def cold_start(args, tools, kind, path, inputs):
    """Medians of --cold-runs probes (each a fresh process); every cold time is kept too."""
    runs = [probe(tools, kind, path, inputs) for _ in range(args.cold_runs)]
    errors = [r["error"] for r in runs if "error" in r]
    if errors:
        return {"error": errors[0]}
    res = {k: statistics.median(r[k] for r in runs) for k in ("cold_ms", "import_ms")}
    res["maxrss_kib"] = statistics.median(r["maxrss_kib"] or 0 for r in runs) or None
    res["cold_ms_all"] = [r["cold_ms"] for r in runs]
    return res


def time_pair(args, ours, theirs):
    """Medians (ms) of both engines, timed in alternating rounds."""
    warm = 1 if args.quick else 3
    est = []
    for eng in (ours, theirs):
        est.append(statistics.median(engines.time_runs(eng, warm)))
    iters = max(2, min(args.iters, int(args.round_seconds * 1e3 / max(max(est), 1e-3))))
    times = {0: [], 1: []}
    for r in range(args.rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for k in order:
            times[k] += engines.time_runs((ours, theirs)[k], iters)
            engines.wait_quiet()  # the other engine's spinning pool threads go idle first
    return statistics.median(times[0]), statistics.median(times[1]), iters * args.rounds


def bench_threads(args, lib, model, feeds, ref_shapes, threads, sym_lib=None):
    """Check that both engines agree at `threads` threads, then time them. With `sym_lib` (the
    model compiled with its dims left to run time), also time it against `lib`, alternating."""
    res, engs = {"threads": threads}, []
    try:
        engs.append(engines.OrtModel(model, threads, feeds))
        engs.append(engines.OnnxcModel(lib, threads, feeds, ref_shapes))
        theirs, ours = engs
        ours.run()
        theirs.run()
        reason, err = engines.compare(ours.outputs(), theirs.outputs(), args.rtol, args.atol)
        res["max_abs_err"] = err
        if reason:
            res["error"] = "outputs disagree: " + reason
        else:
            res["onnxc_ms"], res["ort_ms"], res["timed_runs"] = time_pair(args, ours, theirs)
            res["ratio"] = res["ort_ms"] / res["onnxc_ms"]
        if sym_lib and not reason:
            engs.append(engines.OnnxcModel(sym_lib, threads, feeds, ref_shapes))
            engs[-1].run()
            reason, _ = engines.compare(engs[-1].outputs(), theirs.outputs(), args.rtol, args.atol)
            if reason:
                res["error"] = "run-time-dims build disagrees: " + reason
            else:
                res["symbolic_ms"], res["specialised_ms"], _ = time_pair(args, engs[-1], ours)
    except engines.EngineError as e:
        res["error"] = str(e)
    finally:
        for eng in engs:
            eng.close()
    return res


def bench_entry(args, tools, work, entry):
    name = entry["name"]
    model = os.path.join(work, "models", entry["model"])
    lib = os.path.join(work, "libs", f"lib{name}.so")
    print(f"[{name}] compiling", file=sys.stderr, flush=True)
    res = {"name": name, "model": entry["model"], "dims": entry["dims"]}
    res.update(compile_model(args, tools, entry, model, lib))
    res["flops"], res["flops_note"] = flops.count_flops(model, entry["dims"])
    if "error" in res:
        return res
    try:
        feeds, ref_shapes = engines.reference_inputs(model, entry["dims"])
    except engines.EngineError as e:
        res["error"] = str(e)
        return res
    npz = os.path.join(work, "libs", f"{name}.inputs.npz")
    np.savez(npz, **feeds)
    sym_lib = None
    if args.symbolic and entry["dims"]:  # the same model with its dims left to run time
        sym_lib = os.path.join(work, "libs", f"lib{name}_symbolic.so")
        sym = compile_model(args, tools, entry, model, sym_lib, bind=False)
        if "error" in sym:
            res["symbolic_error"] = sym["error"]
            sym_lib = None
    res["runs"] = []
    for t in args.threads:
        print(f"[{name}] timing, {t} thread(s)", file=sys.stderr, flush=True)
        res["runs"].append(bench_threads(args, lib, model, feeds, ref_shapes, t, sym_lib))
    if all("error" not in r for r in res["runs"]):
        res["cold"] = {k: cold_start(args, tools, k, p, npz)
                       for k, p in (("onnxc", lib), ("ort", model), ("baseline", "-"))}
    return res


def machine_info():
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import onnxruntime as ort
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "ort_version": ort.__version__, "loadavg_start": os.getloadavg()[0],
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def main():
    args = parse_args()
    if not os.access(args.onnxc, os.X_OK):
        fail(f"onnxc binary '{args.onnxc}' not found (build onnxc, or pass --onnxc)")
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        fail(f"{sys.executable} has no onnxruntime (see bench/setup.sh)")
    work = os.path.abspath(args.work_dir)
    os.makedirs(os.path.join(work, "libs"), exist_ok=True)
    manifest = export_models(args, os.path.join(work, "models"))
    info = machine_info()
    info.update(torch=manifest["torch"], opset=manifest["opset"], quick=args.quick,
                cold_runs=args.cold_runs)
    tools = build_tools(work)
    peak = fma_peak(tools, max(args.threads))
    results = [bench_entry(args, tools, work, e) for e in manifest["entries"]]
    peak_end = fma_peak(tools, max(args.threads))
    for key in ("peak", "peak_cpu_time"):  # the best rate seen before or after the models
        peak[key] = {t: max(peak[key][t], peak_end[key][t]) for t in peak[key]}
    info["loadavg_end"] = os.getloadavg()[0]
    doc = {"machine": info, "fma_peak_gflops": peak, "models": results}
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    md = report.markdown(doc)
    with open(os.path.join(work, "results.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
