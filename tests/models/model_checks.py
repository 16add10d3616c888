#!/usr/bin/python3
"""Checks on real models for ctest (tests/models/CMakeLists.txt). Standard library only.

  model_checks.py fix-dims SRC_SET DST_SET FILE=DIMS...
      Recreates test data set SRC_SET as DST_SET (in the build tree; files are symlinked) with the
      dims of the TensorProto FILE replaced by DIMS (e.g. input_0.pb=1x1x224x224, same element
      count). For data shipped with wrong dims (super-resolution-10, see its SOURCE.md).
  model_checks.py arena-size ONNXC ARENA_SIZE_EXE MODEL WORKDIR
      Compiles MODEL and checks that the arena size `onnxc compile` prints equals what the library
      reports through the C ABI (onnxc_arena_size() and the signature JSON), read by ARENA_SIZE_EXE.
  model_checks.py run-time-batch ONNXC MODEL DATA_SET WORKDIR --symbol S --batches N...
      Compiles MODEL once with the batch symbol S left symbolic, runs that one library at each
      batch N (input_0.pb of DATA_SET stacked N times, each sample scaled differently) and
      compares it with a build specialised by --dim S=N; then checks that a library compiled
      for S=1..2 refuses batch 3 with a message naming the input, the dim and the range.
  model_checks.py compile-time ONNXC MODEL WORKDIR --limit SECONDS [--attempts N] [--pause S]
      Checks that `onnxc compile MODEL` takes under SECONDS of CPU time (user + system); as a
      VM's speed moves, it tries up to N times, S seconds apart, and judges the fastest attempt.
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import time


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


# --- fix-dims: a minimal protobuf rewriter for TensorProto.dims (field 1) -----------------------

def read_varint(buf, pos):
    value, shift = 0, 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def write_varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def replace_dims(data, dims):
    """TensorProto bytes `data` with its dims replaced by `dims`, and the old dims."""
    rest, old, pos = bytearray(), [], 0
    while pos < len(data):
        start = pos
        key, pos = read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(data, pos)
            if field == 1:
                old.append(value)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = read_varint(data, pos)
            if field == 1:  # packed dims
                inner = pos
                while inner < pos + length:
                    value, inner = read_varint(data, inner)
                    old.append(value)
            pos += length
        elif wire == 5:
            pos += 4
        else:
            fail(f"unsupported protobuf wire type {wire}")
        if field != 1:
            rest += data[start:pos]
    new = b"".join(b"\x08" + write_varint(d) for d in dims)
    return new + bytes(rest), old


def product(values):
    result = 1
    for v in values:
        result *= v
    return result


def fix_dims(args):
    changes = {}
    for spec in args.changes:
        name, _, dims = spec.partition("=")
        changes[name] = [int(d) for d in dims.split("x")]
    os.makedirs(args.dst, exist_ok=True)
    for name in sorted(os.listdir(args.src)):
        if not re.match(r"^(input|output)_\d+\.pb$", name):
            continue
        src, dst = os.path.join(args.src, name), os.path.join(args.dst, name)
        if os.path.lexists(dst):
            os.remove(dst)
        if name not in changes:
            os.symlink(src, dst)
            continue
        with open(src, "rb") as f:
            data, old = replace_dims(f.read(), changes[name])
        if product(old) != product(changes[name]):
            fail(f"{src}: dims {old} and {changes[name]} hold different element counts")
        with open(dst, "wb") as f:
            f.write(data)
        print(f"{dst}: dims {old} -> {changes[name]}")
    missing = set(changes) - set(os.listdir(args.dst))
    if missing:
        fail(f"{args.src} has no {', '.join(sorted(missing))}")


# --- arena-size ---------------------------------------------------------------------------------

def compile_model(onnxc, model, workdir):
    os.makedirs(workdir, exist_ok=True)
    lib = os.path.join(workdir, "model.so")
    # CPU time (user + system) of the compile, not wall time: the budget is about onnxc's work,
    # and must not depend on what else the machine runs at the same time (ctest -j, CI).
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([onnxc, "compile", model, "-o", lib], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, errors="replace")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(proc.stdout, end="")
    if proc.returncode != 0:
        fail(f"onnxc compile exited with {proc.returncode}")
    return lib, proc.stdout, seconds


def arena_size(args):
    lib, out, _ = compile_model(args.onnxc, args.model, args.workdir)
    m = re.search(r"^arena size: (\d+) bytes$", out, re.M)
    if not m:
        fail("onnxc compile did not print 'arena size: N bytes'")
    printed = int(m.group(1))
    proc = subprocess.run([args.arena_size_exe, lib], stdout=subprocess.PIPE, errors="replace")
    if proc.returncode != 0:
        fail(f"{args.arena_size_exe} {lib} exited with {proc.returncode}")
    from_abi, from_json = (int(v) for v in proc.stdout.split())
    print(f"printed by onnxc compile: {printed}, onnxc_arena_size(): {from_abi}, "
          f"signature JSON: {from_json}")
    if not printed == from_abi == from_json:
        fail("the arena sizes differ")
    print("PASS")


# --- run-time-batch -----------------------------------------------------------------------------

def parse_float_tensor(data):
    """(dims, floats) of a float TensorProto (raw_data or float_data)."""
    import struct
    dims, raw, floats, pos = [], None, [], 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(data, pos)
            if field == 1:
                dims.append(value)
        elif wire == 2:
            length, pos = read_varint(data, pos)
            chunk = data[pos:pos + length]
            if field == 1:
                inner = 0
                while inner < len(chunk):
                    value, inner = read_varint(chunk, inner)
                    dims.append(value)
            elif field == 9:
                raw = chunk
            elif field == 4:
                floats.extend(struct.unpack(f"<{len(chunk) // 4}f", chunk))
            pos += length
        elif wire == 5:
            if field == 4:
                floats.append(struct.unpack("<f", data[pos:pos + 4])[0])
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            fail(f"unsupported protobuf wire type {wire}")
    if raw is not None:
        floats = list(struct.unpack(f"<{len(raw) // 4}f", raw))
    return dims, floats


def float_tensor_bytes(dims, floats):
    """A float TensorProto (dims, data_type 1, raw_data)."""
    import struct
    raw = struct.pack(f"<{len(floats)}f", *floats)
    out = b"".join(b"\x08" + write_varint(d) for d in dims) + b"\x10\x01"
    return out + b"\x4a" + write_varint(len(raw)) + raw


def run_library(onnxc, lib, data_dir, out_dir, expect_ok=True):
    proc = subprocess.run([onnxc, "run", lib, data_dir, "-o", out_dir], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, errors="replace")
    print(proc.stdout, end="")
    if expect_ok and proc.returncode != 0:
        fail(f"onnxc run {lib} exited with {proc.returncode}")
    return proc


def compile_with(onnxc, model, lib, flags):
    proc = subprocess.run([onnxc, "compile", model, "-o", lib, *flags], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, errors="replace")
    print(proc.stdout, end="")
    if proc.returncode != 0:
        fail(f"onnxc compile {' '.join(flags)} exited with {proc.returncode}")


def run_time_batch(args):
    os.makedirs(args.workdir, exist_ok=True)
    dyn = os.path.join(args.workdir, "dynamic.so")
    compile_with(args.onnxc, args.model, dyn, [])
    with open(os.path.join(args.data_set, "input_0.pb"), "rb") as f:
        dims, sample = parse_float_tensor(f.read())
    for n in args.batches:
        data = os.path.join(args.workdir, f"batch{n}")
        os.makedirs(data, exist_ok=True)
        stacked = []
        for k in range(n):  # distinct samples: a mix-up of samples cannot go unnoticed
            scale = 1.0 + 0.25 * k
            stacked.extend(v * scale for v in (sample if k % 2 == 0 else sample[::-1]))
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(float_tensor_bytes([n] + dims[1:], stacked))
        spec = os.path.join(args.workdir, f"batch{n}.so")
        compile_with(args.onnxc, args.model, spec, ["--dim", f"{args.symbol}={n}"])
        outs = {}
        for name, lib in (("dynamic", dyn), ("specialised", spec)):
            out_dir = os.path.join(args.workdir, f"out_{name}_{n}")
            run_library(args.onnxc, lib, data, out_dir)
            with open(os.path.join(out_dir, "output_0.pb"), "rb") as f:
                outs[name] = parse_float_tensor(f.read())
        (gd, got), (wd, want) = outs["dynamic"], outs["specialised"]
        if gd != wd or gd[0] != n:
            fail(f"batch {n}: output dims {gd}, the specialised build's {wd}")
        worst = max(abs(a - b) - (1e-4 + 1e-3 * abs(b)) for a, b in zip(got, want))
        if worst > 0:
            fail(f"batch {n}: outputs differ beyond atol 1e-4 + rtol 1e-3 (by {worst:g})")
        print(f"batch {n}: {len(got)} outputs match the --dim {args.symbol}={n} build")
    ranged = os.path.join(args.workdir, "ranged.so")
    compile_with(args.onnxc, args.model, ranged, ["--dim", f"{args.symbol}=1..2"])
    proc = run_library(args.onnxc, ranged, os.path.join(args.workdir, f"batch{max(args.batches)}"),
                       os.path.join(args.workdir, "out_ranged"), expect_ok=False)
    if proc.returncode == 0 or "outside the range 1..2" not in proc.stdout:
        fail("a batch outside the compiled range was not refused with its range")
    print("PASS")


# --- compile-time -------------------------------------------------------------------------------

def compile_time(args):
    times = []
    for attempt in range(args.attempts):
        if attempt:  # a pause, so that the attempts do not all fall in one of the VM's slow spells
            time.sleep(args.pause)
        _, _, seconds = compile_model(args.onnxc, args.model, args.workdir)
        times.append(seconds)
        print(f"attempt {attempt + 1}: {seconds:.3f} s CPU")
        if seconds < args.limit:
            print(f"PASS: compiled in {seconds:.3f} s of CPU time < {args.limit:g} s")
            return
    fail(f"compile took {min(times):.3f} s of CPU time at best ({len(times)} attempts), "
         f"limit {args.limit:g} s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fix-dims")
    f.add_argument("src")
    f.add_argument("dst")
    f.add_argument("changes", nargs="+", metavar="FILE=DIMS")
    f.set_defaults(run=fix_dims)
    a = sub.add_parser("arena-size")
    for name in ("onnxc", "arena_size_exe", "model", "workdir"):
        a.add_argument(name)
    a.set_defaults(run=arena_size)
    r = sub.add_parser("run-time-batch")
    for name in ("onnxc", "model", "data_set", "workdir"):
        r.add_argument(name)
    r.add_argument("--symbol", required=True)
    r.add_argument("--batches", type=int, nargs="+", required=True)
    r.set_defaults(run=run_time_batch)
    t = sub.add_parser("compile-time")
    for name in ("onnxc", "model", "workdir"):
        t.add_argument(name)
    t.add_argument("--limit", type=float, required=True)
    t.add_argument("--attempts", type=int, default=3)
    t.add_argument("--pause", type=float, default=0, help="seconds between attempts")
    t.set_defaults(run=compile_time)
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
