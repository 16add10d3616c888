#!/usr/bin/python3
"""GroupNormalization, TensorScatter, the training optimizers and the bit ops beyond the ONNX
backend cases, against float64 / exact numpy references computed here.

Writes OUT/<case>/model.onnx and OUT/<case>/test_data_set_0/{input,output}_N.pb (the backend-test
layout) and runs `onnxc verify --threads 2` on each. Covered: GroupNormalization at opset 18
(scale/bias per group) and 21 (per channel), 3-D and 5-D, float and double, large groups;
TensorScatter linear (per-batch write indices, a non-default axis, int8 data) and circular
(wrapping), with the cache also read afterwards (so it cannot be updated in place); Adam with
several tensors and norm_coefficient_post, nesterov Momentum at T = 0; BitShift and the Bitwise
ops on broadcast uint64 / int16 tensors, including shifts by the full width; binary ops
broadcasting over flattened trailing dims (float, int64), in place on intermediates. Then invalid
models, which `onnxc compile` must reject with exit status 1 and a message naming the node.

Usage: make_cases.py OUT_DIR --onnxc ONNXC
Exits 1 if any case fails.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ELEM = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE,
        np.int64: TensorProto.INT64, np.int8: TensorProto.INT8, np.int16: TensorProto.INT16,
        np.uint64: TensorProto.UINT64, np.uint8: TensorProto.UINT8, np.int32: TensorProto.INT32}


def save_case(out_dir, name, nodes, inputs, outputs, opsets):
    """inputs/outputs: [(name, array)]; opsets: [(domain, version)]."""
    def info(nm, a):
        return helper.make_tensor_value_info(nm, ELEM[a.dtype.type], a.shape)
    graph = helper.make_graph(nodes, name, [info(k, v) for k, v in inputs],
                              [info(k, v) for k, v in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    data = os.path.join(out_dir, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, name, "model.onnx"))
    for prefix, items in (("input", inputs), ("output", outputs)):
        for i, (k, v) in enumerate(items):
            onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(data, f"{prefix}_{i}.pb"))


def group_norm_case(out, name, shape, groups, opset, dtype, eps=1e-5):
    rng = np.random.default_rng(len(name))
    x = rng.normal(1.0, 3.0, shape)
    c = shape[1]
    nparams = groups if opset < 21 else c
    scale, bias = rng.uniform(0.5, 2, nparams), rng.uniform(-1, 1, nparams)
    g = x.reshape(shape[0], groups, -1)
    xn = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(shape)
    per_channel = np.repeat(scale, c // groups) if opset < 21 else scale
    per_bias = np.repeat(bias, c // groups) if opset < 21 else bias
    bshape = (1, c) + (1,) * (len(shape) - 2)
    y = xn * per_channel.reshape(bshape) + per_bias.reshape(bshape)
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                            num_groups=groups, epsilon=eps)
    save_case(out, name, [node], [("x", x.astype(dtype)), ("scale", scale.astype(dtype)),
                                  ("bias", bias.astype(dtype))], [("y", y.astype(dtype))],
              [("", opset)])


def tensor_scatter_case(out, name, past, upd, idx, axis, mode):
    want = past.copy()
    ax = axis % past.ndim
    for b in range(past.shape[0]):
        for s in range(upd.shape[ax]):
            pos = idx[b] + s
            pos = pos % past.shape[ax] if mode == "circular" else pos
            src = [b] + [slice(None)] * (past.ndim - 1)
            dst = list(src)
            src[ax], dst[ax] = s, pos
            want[tuple(dst)] = upd[tuple(src)]
    # The cache is also an input of the Add after the scatter, so it stays live.
    nodes = [helper.make_node("TensorScatter", ["past", "upd", "idx"], ["present"], axis=axis,
                              mode=mode),
             helper.make_node("Sub", ["present", "past"], ["delta"])]
    save_case(out, name, nodes, [("past", past), ("upd", upd), ("idx", idx)],
              [("present", want), ("delta", (want - past).astype(past.dtype))], [("", 24)])


def optimizer_cases(out):
    rng = np.random.default_rng(3)
    xs = [rng.normal(size=s) for s in ((5,), (3, 4), (2, 2, 3))]
    gs = [rng.normal(size=x.shape) for x in xs]
    vs = [rng.normal(size=x.shape) for x in xs]
    hs = [rng.uniform(0.1, 1, size=x.shape) for x in xs]
    r, t = 0.05, 4
    alpha, beta, eps, nc, ncp = 0.85, 0.95, 1e-4, 0.02, 0.01
    outs_x, outs_v, outs_h = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs):
        gr = nc * x + g
        vn = alpha * v + (1 - alpha) * gr
        hn = beta * h + (1 - beta) * gr * gr
        ra = r * np.sqrt(1 - beta ** t) / (1 - alpha ** t)
        outs_x.append((1 - ncp) * (x - ra * vn / (np.sqrt(hn) + eps)))
        outs_v.append(vn)
        outs_h.append(hn)
    k = len(xs)
    names = lambda p: [f"{p}{i}" for i in range(k)]
    node = helper.make_node("Adam", ["R", "T"] + names("X") + names("G") + names("V") + names("H"),
                            names("Xn") + names("Vn") + names("Hn"),
                            domain="ai.onnx.preview.training", alpha=alpha, beta=beta,
                            epsilon=eps, norm_coefficient=nc, norm_coefficient_post=ncp)
    f = np.float64
    ins = [("R", np.array(r, f)), ("T", np.array(t, np.int64))]
    for p, arrs in (("X", xs), ("G", gs), ("V", vs), ("H", hs)):
        ins += [(f"{p}{i}", a) for i, a in enumerate(arrs)]
    outs = []
    for p, arrs in (("Xn", outs_x), ("Vn", outs_v), ("Hn", outs_h)):
        outs += [(f"{p}{i}", a) for i, a in enumerate(arrs)]
    save_case(out, "adam_three_tensors", [node], ins, outs, [("ai.onnx.preview.training", 1)])
    # Nesterov momentum at T = 0: beta is replaced by 1.
    x, g, v = (a[1].astype(np.float32) for a in (xs, gs, vs))
    gr = 0.1 * x.astype(f) + g
    vn = 0.9 * v + 1.0 * gr
    xn = x - 0.2 * (gr + 0.9 * vn)
    node = helper.make_node("Momentum", ["R", "T", "X", "G", "V"], ["Xn", "Vn"],
                            domain="ai.onnx.preview.training", alpha=0.9, beta=0.3,
                            mode="nesterov", norm_coefficient=0.1)
    save_case(out, "momentum_nesterov_t0", [node],
              [("R", np.array(0.2, np.float32)), ("T", np.array(0, np.int64)), ("X", x),
               ("G", g), ("V", v)],
              [("Xn", xn.astype(np.float32)), ("Vn", vn.astype(np.float32))],
              [("ai.onnx.preview.training", 1)])


def bit_cases(out):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2 ** 63, size=(3, 4, 50), dtype=np.uint64) * np.uint64(2)
    s = np.array([0, 1, 17, 63, 64, 200] * 8 + [5, 9], dtype=np.uint64)[:50]
    shifted = lambda op: np.array([[[0 if int(sh) >= 64 else op(int(v), int(sh)) & (2 ** 64 - 1)
                                     for v, sh in zip(row, s)] for row in blk] for blk in a],
                                  dtype=np.uint64)
    for d, op in (("LEFT", lambda v, sh: v << sh), ("RIGHT", lambda v, sh: v >> sh)):
        node = helper.make_node("BitShift", ["a", "s"], ["y"], direction=d)
        save_case(out, f"bitshift_{d.lower()}_u64_bcast", [node], [("a", a), ("s", s)],
                  [("y", shifted(op))], [("", 18)])
    x = rng.integers(-32768, 32767, size=(2, 3, 40), dtype=np.int16)
    m = rng.integers(-32768, 32767, size=(3, 1), dtype=np.int16)
    nodes = [helper.make_node("BitwiseAnd", ["x", "m"], ["and"]),
             helper.make_node("BitwiseOr", ["x", "m"], ["or"]),
             helper.make_node("BitwiseXor", ["x", "m"], ["xor"]),
             helper.make_node("BitwiseNot", ["x"], ["not"])]
    save_case(out, "bitwise_i16_bcast", nodes, [("x", x), ("m", m)],
              [("and", x & m), ("or", x | m), ("xor", x ^ m), ("not", ~x)], [("", 18)])


def broadcast_row_cases(out):
    """Binary ops whose inputs broadcast over trailing dims that the kernel runs as one flat row
    (a channel scale over H x W: rows of H * W), on intermediates that the ops may overwrite in
    place, row lengths below, at and above the 16-element chunks; float and int64."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(2, 5, 6, 7)).astype(np.float32)
    s = rng.normal(size=(1, 5, 1, 1)).astype(np.float32)
    t = rng.normal(size=(2, 1, 6, 7)).astype(np.float32)
    u = rng.normal(size=(7,)).astype(np.float32)
    v = rng.uniform(1, 2, size=(2, 5, 1, 7)).astype(np.float32)
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Mul", ["r", "s"], ["m"]),     # rows of 42, s per row
             helper.make_node("Add", ["m", "t"], ["a"]),     # t repeats over channels
             helper.make_node("Sub", ["a", "u"], ["d"]),     # rows of 7
             helper.make_node("Div", ["d", "v"], ["y"]),     # v repeats over H
             helper.make_node("Mul", ["s", "x"], ["z"])]     # the broadcast input first
    m = np.maximum(x, 0) * s
    y = ((m + t) - u) / v
    save_case(out, "broadcast_rows_f32", nodes,
              [("x", x), ("s", s), ("t", t), ("u", u), ("v", v)], [("y", y), ("z", s * x)],
              [("", 17)])
    xi = rng.integers(-1000, 1000, size=(3, 4, 5, 5), dtype=np.int64)
    si = rng.integers(-9, 9, size=(3, 4, 1, 1), dtype=np.int64)
    nodes = [helper.make_node("Neg", ["x"], ["n"]), helper.make_node("Mul", ["n", "s"], ["y"])]
    save_case(out, "broadcast_rows_i64", nodes, [("x", xi), ("s", si)], [("y", -xi * si)],
              [("", 17)])


def int_div_cases(out):
    """Regression (UBSan): integer Div of MIN by -1 wraps to MIN (0 - MIN overflowed as signed
    arithmetic for int32 and int64), x / 0 gives 0 (ONNX leaves it undefined), the others
    truncate; int32, int64 and int8 (which promotes)."""
    for dt in (np.int32, np.int64, np.int8):
        lo = np.iinfo(dt).min
        a = np.array([lo, lo, 7, -8, 9, 0], dt)
        b = np.array([-1, 1, 0, 2, -3, -1], dt)
        y = np.array([lo, lo, 0, -4, -3, 0], dt)
        save_case(out, f"div_min_by_minus_one_{np.dtype(dt).name}",
                  [helper.make_node("Div", ["a", "b"], ["y"])], [("a", a), ("b", b)],
                  [("y", y)], [("", 14)])
    # Integer Pow by squaring (regression, UBSan): 2^30 in int32 squared its base once past the
    # exponent's top bit (65536 * 65536 overflowed), int64 3^39 likewise; a power that overflows
    # wraps, as numpy's does; a negative exponent gives 0 (or +-1 for a base of +-1).
    for dt, base, exp in ((np.int32, [2, 3, -2, 5, 3, -1], [30, 4, 3, -1, 21, -3]),
                          (np.int64, [3, -3, 7, 2, 10, 1], [39, 3, 0, 62, 19, -2])):
        a, e = np.array(base, dt), np.array(exp, dt)
        with np.errstate(over="ignore"):
            y = np.array([int(p) ** int(q) if q >= 0 else
                          ((1 if p == 1 else (-1 if q % 2 else 1)) if abs(p) == 1 else 0)
                          for p, q in zip(base, exp)], dtype=object)
        y = np.array([int(v) & ((1 << (8 * np.dtype(dt).itemsize)) - 1) for v in y], np.uint64)
        y = y.astype(np.uint64).view(np.int64) if dt == np.int64 else \
            (y.astype(np.uint32).view(np.int32))
        save_case(out, f"pow_by_squaring_{np.dtype(dt).name}",
                  [helper.make_node("Pow", ["a", "e"], ["y"])], [("a", a), ("e", e)],
                  [("y", y.astype(dt))], [("", 15)])


def make_all(out):
    group_norm_case(out, "group_norm_opset21_3d", (2, 12, 500), 3, 21, np.float32)
    group_norm_case(out, "group_norm_opset18_5d", (3, 8, 3, 4, 5), 4, 18, np.float64)
    group_norm_case(out, "group_norm_one_group", (2, 6, 7, 7), 1, 21, np.float64, eps=0.1)
    rng = np.random.default_rng(9)
    past = rng.normal(size=(3, 2, 6, 4)).astype(np.float32)
    upd = rng.normal(size=(3, 2, 3, 4)).astype(np.float32)
    tensor_scatter_case(out, "tensor_scatter_linear", past, upd,
                        np.array([0, 2, 3], np.int64), -2, "linear")
    tensor_scatter_case(out, "tensor_scatter_circular", past, upd,
                        np.array([4, 5, 1], np.int64), 2, "circular")
    past8 = rng.integers(-100, 100, size=(2, 7, 3), dtype=np.int8)
    upd8 = rng.integers(-100, 100, size=(2, 2, 3), dtype=np.int8)
    tensor_scatter_case(out, "tensor_scatter_axis1_int8", past8, upd8,
                        np.array([5, 0], np.int64), 1, "linear")
    optimizer_cases(out)
    bit_cases(out)
    broadcast_row_cases(out)
    int_div_cases(out)


def error_models(out):
    """(name, model, expected message part) for models onnxc must refuse."""
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    vi = helper.make_tensor_value_info

    def model(node, x_shape, opset, x_type=f, inits=()):
        g = helper.make_graph([node], "bad", [vi("x", x_type, x_shape)], [vi("y", f, None)],
                              initializer=list(inits))
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    axis = helper.make_tensor("a", i64, [], [2])
    return [
        ("bitcast_width", model(helper.make_node("BitCast", ["x"], ["y"], to=i64), [3], 26),
         "must have the width of the input type"),
        ("dft_axis", model(helper.make_node("DFT", ["x", "", "a"], ["y"]), [2, 8, 2], 20,
                           inits=[axis]), "axis 2 is out of range"),
        ("group_norm_groups",
         model(helper.make_node("GroupNormalization", ["x", "x", "x"], ["y"], num_groups=3),
               [2, 4, 5], 21), "num_groups (3) must be positive and divide"),
        ("bitshift_direction",
         model(helper.make_node("BitShift", ["x", "x"], ["y"], direction="UP"), [4], 11,
               TensorProto.UINT8), "'direction' must be"),
    ]


def run_errors(onnxc, out):
    failed = []
    os.makedirs(out, exist_ok=True)
    for name, m, want in error_models(out):
        path = os.path.join(out, f"error_{name}.onnx")
        onnx.save(m, path)
        res = subprocess.run([onnxc, "compile", path, "-o", path + ".so"], capture_output=True,
                             text=True)
        ok = res.returncode == 1 and want in res.stderr and "node #0" in res.stderr \
            and not os.path.exists(path + ".so")
        print(f"{'ok' if ok else 'FAIL'} error_{name}")
        if not ok:
            print(res.stdout + res.stderr)
            failed.append(name)
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--onnxc", required=True)
    args = ap.parse_args()
    make_all(args.out)
    failed = run_errors(args.onnxc, args.out.rstrip("/") + "_errors")
    for case in sorted(os.listdir(args.out)):
        d = os.path.join(args.out, case)
        cmd = [args.onnxc, "verify", os.path.join(d, "model.onnx"),
               os.path.join(d, "test_data_set_0"), "--threads", "2"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        print(f"{'ok' if res.returncode == 0 else 'FAIL'} {case}")
        if res.returncode != 0:
            print(res.stdout + res.stderr)
            failed.append(case)
    print(f"{len(failed)} cases failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
