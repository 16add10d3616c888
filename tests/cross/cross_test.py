#!/usr/bin/python3
"""Cross-target test: compiles a model with `onnxc compile --target TRIPLE`, runs the library
under qemu-user through tests/cross/run_model.c (built with the target's gcc) and compares every
output with the reference at `onnxc verify`'s tolerances (|got - want| <= atol + rtol * |want|).

    cross_test.py --onnxc ONNXC --src SRC_DIR --work DIR --target TRIPLE
                  (--sample NAME | --model MODEL.onnx --data DATA_DIR...) [--rtol R] [--atol A]

--sample NAME generates samples/make_sample_model.py's model NAME and its numpy reference
(test_data_set_0). Each data set runs with 1 and with 3 threads. Needs Debian's /usr/bin/python3
(python3-onnx, python3-numpy). Exits 77 (ctest SKIP_RETURN_CODE) naming the Debian package
when the cross gcc, qemu or the target's libc is missing; 1 on any failure.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

SKIP = 77
# triple -> (gcc, gcc package, qemu, sysroot, libc package, ELF e_machine)
TARGETS = {
    "aarch64-unknown-linux-gnu": ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu",
                                  "qemu-aarch64", "/usr/aarch64-linux-gnu",
                                  "libc6-dev-arm64-cross", 183),
    "armv7-unknown-linux-gnueabihf": ("arm-linux-gnueabihf-gcc", "gcc-arm-linux-gnueabihf",
                                      "qemu-arm", "/usr/arm-linux-gnueabihf",
                                      "libc6-dev-armhf-cross", 40),
}
THREADS = (1, 3)


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        fail(f"{os.path.basename(cmd[0])} exited with status {r.returncode}")
    return r.stdout


def check_tools(target):
    """Returns (gcc, qemu, sysroot) or exits with SKIP naming the missing Debian package."""
    gcc, gcc_pkg, qemu, sysroot, libc_pkg, _ = TARGETS[target]
    for tool, pkg in [(gcc, gcc_pkg), (qemu, "qemu-user")]:
        if not shutil.which(tool):
            print(f"SKIP: {tool} not found; install the Debian package {pkg}", flush=True)
            sys.exit(SKIP)
    if not os.path.exists(os.path.join(sysroot, "lib", "libc.so.6")):
        print(f"SKIP: {sysroot}/lib/libc.so.6 not found; install the Debian package {libc_pkg}",
              flush=True)
        sys.exit(SKIP)
    return shutil.which(gcc), shutil.which(qemu), sysroot


def elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    if head[:4] != b"\x7fELF":
        fail(f"{path} is not an ELF file")
    return int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")


def model_inputs(model_path):
    """Names of the model's real inputs (graph inputs that are not initializers), in order."""
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits]


def read_pbs(data_dir, kind):
    files = sorted(glob.glob(os.path.join(data_dir, f"{kind}_*.pb")),
                   key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    out = []
    for path in files:
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        out.append((t.name, numpy_helper.to_array(t)))
    if not out:
        fail(f"{data_dir} has no {kind}_*.pb files")
    return out


def order_inputs(names, tensors, data_dir):
    """The data set's inputs in the model's input order (by name, else by position)."""
    by_name = dict(tensors)
    if all(n in by_name for n in names):
        return [by_name[n] for n in names]
    if len(tensors) != len(names):
        fail(f"{data_dir}: {len(tensors)} inputs for a model with {len(names)}")
    return [a for _, a in tensors]


def compare(got, want, rtol, atol, what):
    """onnxc verify's rule; returns True if every element is within tolerance."""
    if got.shape != want.shape:
        fail(f"{what}: shape {got.shape} but expected {want.shape}")
    if not np.issubdtype(want.dtype, np.floating):  # exact, in the integer type itself
        bad = int(np.count_nonzero(got != want))
        print(f"{'PASS' if not bad else 'FAIL'} {what}: {bad} of {want.size} elements differ")
        return bad == 0
    g, w = got.astype(np.float64), want.astype(np.float64)
    err = np.abs(g - w)
    both_nan = np.isnan(g) & np.isnan(w)
    err[both_nan | (np.isinf(g) & np.isinf(w) & (np.sign(g) == np.sign(w)))] = 0
    bad = int(np.count_nonzero(~(err <= atol + rtol * np.abs(w))))
    rel = np.max(err[w != 0] / np.abs(w[w != 0])) if np.any(w != 0) else 0.0
    print(f"{'PASS' if not bad else 'FAIL'} {what}: max abs error {err.max():.3g}, max rel "
          f"error {rel:.3g}, {bad} of {w.size} elements outside rtol={rtol} atol={atol}",
          flush=True)
    return bad == 0


def run_data_set(args, tools, lib, runner, names, data_dir, index):
    gcc, qemu, sysroot = tools
    inputs = order_inputs(names, read_pbs(data_dir, "input"), data_dir)
    expected = read_pbs(data_dir, "output")
    ok = True
    for threads in THREADS:
        io = os.path.join(args.work, f"io{index}_t{threads}")
        os.makedirs(io, exist_ok=True)
        for old in glob.glob(os.path.join(io, "*.bin")):
            os.remove(old)
        for i, a in enumerate(inputs):
            a.astype(a.dtype.newbyteorder("<")).tofile(os.path.join(io, f"input_{i}.bin"))
        run([qemu, "-L", sysroot, runner, lib, io, str(threads)])
        for i, (name, want) in enumerate(expected):
            got = np.fromfile(os.path.join(io, f"output_{i}.bin"),
                              dtype=want.dtype.newbyteorder("<"))
            if got.size != want.size:
                fail(f"output {i} has {got.size} elements, the reference {want.size}")
            what = f"{data_dir} output {i} '{name}' ({threads} thread(s))"
            ok &= compare(got.reshape(want.shape), want, args.rtol, args.atol, what)
    return ok


def prepare_model(args):
    """(model path, data dirs): a generated sample model or the given ones."""
    if not args.sample:
        return args.model, args.data
    ref = os.path.join(args.work, "reference")
    model = os.path.join(args.work, f"{args.sample}.onnx")
    run([sys.executable, os.path.join(args.src, "samples", "make_sample_model.py"), model,
         "--model", args.sample, "--reference", ref])
    return model, [os.path.join(ref, "test_data_set_0")]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnxc", required=True)
    p.add_argument("--src", required=True, help="repository root")
    p.add_argument("--work", required=True, help="scratch directory (created)")
    p.add_argument("--target", required=True, choices=sorted(TARGETS))
    p.add_argument("--sample", help="a model of samples/make_sample_model.py")
    p.add_argument("--model", help="an .onnx file (with --data)")
    p.add_argument("--data", nargs="+", default=[], help="test_data_set directories")
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-7)
    args = p.parse_args()
    if bool(args.sample) == bool(args.model) or (args.model and not args.data):
        p.error("give --sample NAME, or --model and --data")
    tools = check_tools(args.target)
    os.makedirs(args.work, exist_ok=True)
    runner = os.path.join(args.work, "run_model")
    run([tools[0], "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", args.src,
         os.path.join(args.src, "tests", "cross", "run_model.c"), "-o", runner, "-ldl"])
    model, data_dirs = prepare_model(args)
    lib = os.path.join(args.work, f"lib{args.sample or 'model'}.so")
    run([args.onnxc, "compile", model, "--target", args.target, "-o", lib])
    if elf_machine(lib) != TARGETS[args.target][5]:
        fail(f"{lib} is not an ELF file for {args.target}")
    names = model_inputs(model)
    results = [run_data_set(args, tools, lib, runner, names, d, i)
               for i, d in enumerate(data_dirs)]
    print(f"{model} on {args.target} under qemu: {sum(results)} of {len(results)} data sets "
          "passed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
