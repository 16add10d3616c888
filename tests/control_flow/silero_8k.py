#!/usr/bin/env python3
"""silero_vad.onnx compiled for its 16 kHz chunk (input 1x576) branches on `sr` at run time; its
8 kHz branch cannot run on that shape, so it is compiled as a run-time error:

  silero_8k.py ONNXC MODEL DATA_SET WORK_DIR

runs DATA_SET (sr = 16000) and a copy with sr = 8000 through one library: the first must
succeed, the second must fail with the message naming the uncompiled branch."""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def run(onnxc, lib, data, out):
    return subprocess.run([onnxc, "run", lib, data, "-o", out], capture_output=True, text=True)


def main(onnxc, model, data, work):
    os.makedirs(work, exist_ok=True)
    lib = os.path.join(work, "libsilero.so")
    r = subprocess.run([onnxc, "compile", model, "-o", lib, "--shape", "input=1x576",
                        "--shape", "state=2x1x128"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: compile exited {r.returncode}:\n{r.stderr}")
    r = run(onnxc, lib, data, os.path.join(work, "out16k"))
    if r.returncode != 0:
        sys.exit(f"FAIL: sr=16000 run exited {r.returncode}:\n{r.stderr}")
    data8k = os.path.join(work, "data8k")
    shutil.rmtree(data8k, ignore_errors=True)
    os.makedirs(data8k)
    for i in range(3):
        shutil.copy(os.path.join(data, f"input_{i}.pb"), data8k)
    sr = onnx.load_tensor(os.path.join(data8k, "input_2.pb"))
    if sr.name != "sr" or int(numpy_helper.to_array(sr)) != 16000:
        sys.exit(f"FAIL: input_2.pb is '{sr.name}', expected sr = 16000")
    with open(os.path.join(data8k, "input_2.pb"), "wb") as f:
        f.write(numpy_helper.from_array(np.array(8000, np.int64), "sr").SerializeToString())
    r = run(onnxc, lib, data8k, os.path.join(work, "out8k"))
    want = "else_branch was not compiled for these input shapes"
    if r.returncode == 0 or want not in r.stderr or "onnxc: error:" not in r.stderr:
        sys.exit(f"FAIL: sr=8000 run: exit {r.returncode}, expected an error containing "
                 f"'{want}':\n{r.stderr}")
    print(f"ok: sr=16000 runs; sr=8000 fails: {r.stderr.strip()}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: silero_8k.py ONNXC MODEL DATA_SET WORK_DIR")
    main(*sys.argv[1:])
