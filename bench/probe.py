#!/usr/bin/env python3
"""Cold start and peak memory of one engine, in a fresh process (bench/run.py starts it).

  probe.py onnxc LIB.so INPUTS.npz    dlopen + onnxc_create + first result
  probe.py ort MODEL.onnx INPUTS.npz  ORT session create + first result
  probe.py baseline - INPUTS.npz      nothing: the interpreter + numpy + inputs baseline

Prints one JSON object: {"cold_ms": .., "import_ms": ..}. cold_ms starts after the inputs are
loaded (and, for ORT, after `import onnxruntime`, reported as import_ms); one thread in every
case. run.py starts it under bench/maxrss.c, which measures the process's peak RSS.
"""
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402  (imports onnxruntime only when OrtModel is used)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("onnxc", "ort", "baseline"):
        print("probe.py: error: usage: probe.py onnxc|ort|baseline PATH INPUTS.npz",
              file=sys.stderr)
        return 1
    kind, path, inputs = sys.argv[1:]
    with np.load(inputs) as data:
        feeds = {k: data[k] for k in data.files}
    result = {"import_ms": 0.0}
    if kind == "ort":
        t0 = time.perf_counter()
        import onnxruntime  # noqa: F401
        result["import_ms"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    try:
        if kind == "onnxc":
            engine = engines.OnnxcModel(path, 1, feeds)
        elif kind == "ort":
            engine = engines.OrtModel(path, 1, feeds)
        if kind != "baseline":
            engine.run()
    except engines.EngineError as e:
        print(f"probe.py: error: {e}", file=sys.stderr)
        return 1
    result["cold_ms"] = (time.perf_counter() - t0) * 1e3
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
