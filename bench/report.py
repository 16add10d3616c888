"""The markdown report of bench/run.py's results (the JSON document it writes)."""
import math


def _f(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}"


def _mib(kib):
    return None if kib is None else kib / 1024.0


def _header(doc):
    m, peak = doc["machine"], doc["fma_peak_gflops"]
    threads = sorted(peak["peak"], key=int)
    wall = ", ".join(f"{t} thread(s) {peak['peak'][t]:.1f}" for t in threads)
    cpu = ", ".join(f"{t}: {peak['peak_cpu_time'][t]:.1f}" for t in threads)
    lines = [
        f"Run {m['date']} on {m['cpu']} ({m['cores']} logical cores, Linux {m['kernel']}); "
        f"ONNX Runtime {m['ort_version']}, models exported by PyTorch {m['torch']} at opset "
        f"{m['opset']}; load average {m['loadavg_start']:.1f} at the start, "
        f"{m['loadavg_end']:.1f} at the end." + (" **Quick (smoke) run.**" if m["quick"] else ""),
        "",
        f"FMA peak measured in this run (bench/fma_peak.c, fp32, wall clock): {wall} GFLOP/s "
        f"(per CPU time of the probe threads, i.e. when not preempted: {cpu}). % peak is the "
        "effective GFLOP/s over the wall-clock peak at the same thread count.",
        "",
    ]
    return lines


def _latency_table(doc):
    peak = doc["fma_peak_gflops"]["peak"]
    lines = ["| model | threads | onnxc ms | ORT ms | ORT/onnxc | GFLOP | onnxc GFLOP/s | "
             "onnxc % peak | ORT GFLOP/s | ORT % peak | note |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in doc["models"]:
        gflop = r["flops"] / 1e9 if r.get("flops") else None
        runs = r.get("runs") or [{"threads": None, "error": r.get("error", "not run")}]
        for run in runs:
            t = run["threads"]
            cells = [r["name"], str(t) if t else "—"]
            if "error" in run:
                cells += ["—"] * 3 + [_f(gflop)] + ["—"] * 4 + [run["error"].replace("|", "/")]
            else:
                p = peak.get(str(t))
                rate = [gflop / (ms / 1e3) if gflop else None
                        for ms in (run["onnxc_ms"], run["ort_ms"])]
                pct = [100 * g / p if g and p else None for g in rate]
                cells += [_f(run["onnxc_ms"], 3), _f(run["ort_ms"], 3), _f(run["ratio"]),
                          _f(gflop), _f(rate[0], 1), _f(pct[0], 1), _f(rate[1], 1),
                          _f(pct[1], 1), ""]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def _geomeans(doc):
    by_threads = {}
    for r in doc["models"]:
        for run in r.get("runs") or []:
            if "ratio" in run:
                by_threads.setdefault(run["threads"], []).append(run["ratio"])
    out = []
    for t, ratios in sorted(by_threads.items()):
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        out.append(f"- Geometric mean of ORT/onnxc at {t} thread(s): **{g:.2f}** over "
                   f"{len(ratios)} models (above 1: onnxc is faster).")
    return out or ["- No model was timed."]


def _cold(r, kind, key):
    c = (r.get("cold") or {}).get(kind) or {}
    return c.get(key)


def _startup(r):
    """(onnxc, ORT) start-up ms: cold start minus the 1-thread median latency (None if either
    is missing)."""
    one = next((run for run in r.get("runs") or [] if run.get("threads") == 1 and
                "onnxc_ms" in run), None)
    out = []
    for kind, key in (("onnxc", "onnxc_ms"), ("ort", "ort_ms")):
        cold = _cold(r, kind, "cold_ms")
        out.append(None if cold is None or one is None else max(cold - one[key], 0.0))
    return out


def _resource_table(doc):
    base = None
    for r in doc["models"]:
        base = base or _cold(r, "baseline", "maxrss_kib")
    runs = doc["machine"].get("cold_runs", 1)
    lines = [f"Cold start (median of {runs} fresh process{'es' if runs > 1 else ''}, inputs "
             "loaded): onnxc = dlopen + create + first result, "
             "ORT = session create + first result (`import onnxruntime` not included, its time "
             "is in results.json). Start-up: the cold start minus the engine's 1-thread median "
             "latency of the same run, i.e. what loading and preparing the model cost before "
             "an inference of usual speed. Peak RSS: that process's peak resident memory"
             + (f", minus the {base / 1024:.0f} MiB of the same process doing nothing "
                "(Python + numpy + inputs)" if base else "") + ". One thread.",
             "",
             "| model | compile s | compile peak RSS MiB | onnxc cold ms | ORT cold ms | "
             "onnxc start-up ms | ORT start-up ms | start-up ORT/onnxc | "
             "onnxc RSS MiB | ORT RSS MiB | max abs err vs ORT |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in doc["models"]:
        rss = [_cold(r, k, "maxrss_kib") for k in ("onnxc", "ort")]
        rss = [_mib(x - base) if x is not None and base else _mib(x) for x in rss]
        errs = [run["max_abs_err"] for run in r.get("runs") or [] if "max_abs_err" in run]
        failed = "error" in r
        startup = _startup(r)
        ratio = (startup[1] / startup[0] if None not in startup and startup[0] > 0 else None)
        cells = [r["name"], _f(r.get("compile_s")) if not failed else "failed",
                 _f(_mib(r.get("compile_maxrss_kib")), 0),
                 _f(_cold(r, "onnxc", "cold_ms"), 1), _f(_cold(r, "ort", "cold_ms"), 1),
                 _f(startup[0], 1), _f(startup[1], 1), _f(ratio, 0 if ratio and ratio >= 10 else 1),
                 _f(rss[0], 0), _f(rss[1], 0), f"{max(errs):.2g}" if errs else "—"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _symbolic_table(doc):
    """Run-time dims (bench/run.py --symbolic): the build without --dim against the specialised
    one at the same shape, timed alternately."""
    rows = []
    for r in doc["models"]:
        if r.get("symbolic_error"):
            rows.append(f"| {r['name']} | | | | {r['symbolic_error']} |")
        for run in r.get("runs", []):
            if "symbolic_ms" in run:
                rows.append(f"| {r['name']} | {run['threads']} | {_f(run['specialised_ms'], 3)} | "
                            f"{_f(run['symbolic_ms'], 3)} | "
                            f"{_f(run['symbolic_ms'] / run['specialised_ms'])} |")
    if not rows:
        return []
    return ["", "Run-time dims (compiled without `--dim`) against the specialised build, same "
            "shape (symbolic/specialised: 1.10 is 10% slower):", "",
            "| model | threads | specialised ms | run-time dims ms | symbolic/specialised |",
            "|---|---:|---:|---:|---:|"] + rows


def markdown(doc):
    lines = _header(doc) + _latency_table(doc) + [""] + _geomeans(doc) + [""]
    lines += _resource_table(doc) + _symbolic_table(doc)
    return "\n".join(lines) + "\n"
