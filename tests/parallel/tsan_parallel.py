#!/usr/bin/python3
"""parallel.tsan: the thread tests' models under ThreadSanitizer, at sizes where every kernel's
parallel loop really splits its work (tests/sanitize covers only the 8x8 sample).

    tsan_parallel.py ONNXC CLANG SRC_DIR MODELS_DIR WORK_DIR CASE...

Each CASE (a directory of make_parallel_models.py) is compiled with `onnxc compile
--sanitize=thread`, so the kernels, the runtime and the thread pool are instrumented, and run by
tests/cross/run_model.c built with `CLANG -fsanitize=thread`, at 2 and 4 threads. Any data race
fails the run (TSAN_OPTIONS halt_on_error=1, exit code 66); the outputs must match the numpy
reference at onnxc verify's tolerances (rtol 1e-3, atol 1e-5).
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cross"))
from cross_test import compare, model_inputs, order_inputs, read_pbs  # noqa: E402


def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode != 0:
        print(r.stdout[-6000:])
        print(f"FAIL: {' '.join(cmd)} exited with {r.returncode}")
        sys.exit(1)
    return r.stdout


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    onnxc, clang, src, models, work = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    runner = os.path.join(work, "run_model_tsan")
    run([clang, "-std=c11", "-O1", "-g", "-fsanitize=thread", "-I", src,
         os.path.join(src, "tests", "cross", "run_model.c"), "-ldl", "-o", runner])
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1 exitcode=66")
    ok = True
    for case in sys.argv[6:]:
        model = os.path.join(models, case, "model.onnx")
        data = os.path.join(models, case, "test_data_set_0")
        lib = os.path.join(work, f"lib{case}.so")
        run([onnxc, "compile", model, "-o", lib, "--sanitize=thread"])
        if "__tsan_" not in run(["readelf", "--dyn-syms", "-W", lib]):  # really instrumented
            print(f"FAIL: {lib} imports no __tsan_* symbols")
            return 1
        inputs = order_inputs(model_inputs(model), read_pbs(data, "input"), data)
        expected = read_pbs(data, "output")
        for threads in (2, 4):
            io = os.path.join(work, f"{case}_t{threads}")
            os.makedirs(io, exist_ok=True)
            for i, a in enumerate(inputs):
                a.tofile(os.path.join(io, f"input_{i}.bin"))
            run([runner, lib, io, str(threads)], env)
            for i, (name, want) in enumerate(expected):
                got = np.fromfile(os.path.join(io, f"output_{i}.bin"), dtype=want.dtype)
                ok &= compare(got.reshape(want.shape), want, 1e-3, 1e-5,
                              f"{case} output {i} '{name}' ({threads} threads, TSan)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
