#!/usr/bin/python3
"""Single-node cases for the loss, sampling and miscellaneous ops beyond the ONNX backend suite.

Writes OUT/<case>/model.onnx and OUT/<case>/test_data_set_0/{input,output}_N.pb (the backend-test
layout) with references computed here in float64 numpy, independently of onnxc, and runs
`onnxc verify` on each (--threads as the case says). Covered: GridSample on larger inputs in
every mode / padding / align_corners combination with out-of-range coordinates, 2-D and 3-D, at
2 threads; NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss with ignore_index hitting many
or all targets (mean over no targets is 0/0 = NaN), weights, int32 targets, double, log_prob;
Einsum with three operands, broadcast ellipsis, diagonals and implicit output; TopK with ties,
largest/smallest, k = axis length, an unused Indices output; Det with a singular matrix;
CumProd exclusive/reverse; BatchNormalization in training mode (float 3-D, double 5-D,
default and given momentum); RoiAlign with several channels, images and regions (partly or
wholly outside), adaptive and fixed sampling, avg and max, both coordinate modes, 2 threads;
Col2Im's image/block shapes, MaxUnpool's output_shape and SplitToSequence's 1-D sizes given at
run time (one library, a data set per shape); float MaxPool on the shapes of real networks
(ResNet's and SqueezeNet's stems, U-Net's 2x2) and edge geometries, with NaN and infinities
among the values, at 1 and 2 threads; bilinear Resize with pytorch_half_pixel and half_pixel
(and that it runs the separable kernel). Then invalid attribute/shape combinations, which `onnxc compile`
must reject with exit status 1 and a message naming the node.

Usage: make_cases.py OUT_DIR --onnxc ONNXC [--group GROUP]
Exits 1 if any case fails.
"""
import argparse
import itertools
import os
import re
import subprocess
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ELEM = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE,
        np.int32: TensorProto.INT32, np.int64: TensorProto.INT64}


def save_case(out_dir, name, node, inputs, outputs, opset):
    """inputs/outputs: lists of (name, array). Writes the model and its one data set."""
    def info(nm, a):
        return helper.make_tensor_value_info(nm, ELEM[a.dtype.type], a.shape)
    graph = helper.make_graph([node], name, [info(k, v) for k, v in inputs],
                              [info(k, v) for k, v in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    data = os.path.join(out_dir, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, name, "model.onnx"))
    for prefix, items in (("input", inputs), ("output", outputs)):
        for i, (k, v) in enumerate(items):
            onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(data, f"{prefix}_{i}.pb"))


# ---- GridSample ----------------------------------------------------------------------------

def reflect(x, lo, hi):
    rng = hi - lo
    if rng <= 0:
        return np.full_like(x, lo)
    below = x < lo
    dx = np.where(below, lo - x, x - hi)
    k = np.floor(dx / rng)
    r = dx - k * rng
    even = (k % 2) == 0
    res = np.where(below, np.where(even, lo + r, hi - r), np.where(even, hi - r, lo + r))
    return np.where((x < lo) | (x > hi), res, x)


def cubic_weights(t):
    a = -0.75
    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1
    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def dim_taps(g, size, mode, pad, ac):
    """(indices, weights, valid) per tap for normalised coordinates g along a dim of `size`."""
    x = (g + 1) / 2 * (size - 1) if ac else ((g + 1) * size - 1) / 2
    if mode == "nearest":
        x = np.rint(x)  # ties to even in every dim (the backend suite's 3-D cases expect it)
    lo, hi = (0.0, size - 1.0) if ac else (-0.5, size - 0.5)
    outside = (x < lo) | (x > hi)
    if pad == "border":
        x = np.where(outside, np.clip(x, 0, size - 1), x)
    elif pad == "reflection":
        x = np.where(outside, reflect(x, lo, hi), x)
    if mode == "nearest":
        base, ws, offs = x, [np.ones_like(x)], [0]
    elif mode == "bilinear":
        base = np.floor(x)
        ws, offs = [1 - (x - base), x - base], [0, 1]
    else:
        base = np.floor(x)
        ws, offs = cubic_weights(x - base), [-1, 0, 1, 2]
    taps = []
    for w, o in zip(ws, offs):
        i = base.astype(np.int64) + o
        if pad == "zeros":
            valid = (i >= 0) & (i < size)
        elif pad == "border":
            i, valid = np.clip(i, 0, size - 1), np.ones(i.shape, bool)
        else:
            i, valid = np.trunc(reflect(i.astype(np.float64), lo, hi)).astype(np.int64), \
                np.ones(i.shape, bool)
        taps.append((np.where(valid, i, 0), w, valid))
    return taps


def grid_sample_ref(X, grid, mode, pad, ac):
    N, C, sp = X.shape[0], X.shape[1], X.shape[2:]
    nd = len(sp)
    out_sp = grid.shape[1:-1]
    Y = np.zeros((N, C, int(np.prod(out_sp))))
    for n in range(N):
        g = grid[n].reshape(-1, nd).astype(np.float64)
        per_dim = [dim_taps(g[:, nd - 1 - d], sp[d], mode, pad, ac) for d in range(nd)]
        for combo in itertools.product(*per_dim):
            w = np.prod([t[1] for t in combo], axis=0)
            valid = np.all([t[2] for t in combo], axis=0)
            vals = X[n][(slice(None),) + tuple(t[0] for t in combo)].astype(np.float64)
            Y[n] += np.where(valid, w * vals, 0.0)
    return Y.reshape((N, C) + tuple(out_sp))


def gridsample_cases(out_dir, rng):
    cases = []
    for mode, pad, ac in itertools.product(("bilinear", "nearest", "bicubic"),
                                           ("zeros", "border", "reflection"), (0, 1)):
        name = f"gridsample_2d_{mode}_{pad}_ac{ac}"
        X = rng.uniform(-2, 2, (2, 3, 9, 11)).astype(np.float32)
        G = rng.uniform(-1.4, 1.4, (2, 13, 7, 2)).astype(np.float32)
        Y = grid_sample_ref(X, G, mode, pad, ac).astype(np.float32)
        node = helper.make_node("GridSample", ["X", "G"], ["Y"], mode=mode, padding_mode=pad,
                                align_corners=ac)
        save_case(out_dir, name, node, [("X", X), ("G", G)], [("Y", Y)], 16)
        cases.append((name, 2))
    for pad in ("zeros", "border", "reflection"):  # 3-D: opset 20 names, written by hand
        name = f"gridsample_3d_linear_{pad}"
        X = rng.uniform(-2, 2, (2, 2, 4, 5, 6)).astype(np.float64)
        G = rng.uniform(-1.3, 1.3, (2, 3, 4, 5, 3)).astype(np.float64)
        Y = grid_sample_ref(X, G, "bilinear", pad, 0)
        node = helper.make_node("GridSample", ["X", "G"], ["Y"], mode="linear", padding_mode=pad)
        save_case(out_dir, name, node, [("X", X), ("G", G)], [("Y", Y)], 20)
        cases.append((name, 2))
    return cases


# ---- Losses --------------------------------------------------------------------------------

def nll_ref(logp, target, weight, reduction, ignore_index):
    N, C = logp.shape[:2]
    lp = logp.reshape(N, C, -1).astype(np.float64)
    t = target.reshape(N, -1)
    ignored = t == ignore_index if ignore_index is not None else np.zeros(t.shape, bool)
    tc = np.where(ignored, 0, t)
    w = (weight.astype(np.float64)[tc] if weight is not None else np.ones(t.shape))
    w = np.where(ignored, 0.0, w)
    picked = np.take_along_axis(lp, tc[:, None, :], axis=1)[:, 0, :]
    loss = -picked * w
    if reduction == "none":
        return loss.reshape(target.shape)
    if reduction == "sum":
        return np.array(loss.sum())
    with np.errstate(invalid="ignore"):
        return np.array(loss.sum() / w.sum())


def log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def loss_cases(out_dir, rng):
    cases = []
    specs = [  # name, op, dtype, target dtype, spatial dims, weight, ignore_index, all ignored
        ("nll_ii_many", "NegativeLogLikelihoodLoss", np.float32, np.int64, (3, 2), True, 1, False),
        ("nll_ii_all", "NegativeLogLikelihoodLoss", np.float32, np.int64, (4,), True, 2, True),
        ("nll_ii_all_noweight", "NegativeLogLikelihoodLoss", np.float64, np.int32, (), False, 0,
         True),
        ("sce_ii_many", "SoftmaxCrossEntropyLoss", np.float32, np.int32, (5,), True, 3, False),
        ("sce_ii_all", "SoftmaxCrossEntropyLoss", np.float64, np.int64, (2, 3), False, -1, True),
        ("sce_big", "SoftmaxCrossEntropyLoss", np.float32, np.int64, (17, 9), True, None, False),
    ]
    for base, op, dt, tdt, sp, has_w, ii, all_ignored in specs:
        for reduction in ("none", "sum", "mean"):
            name = f"{base}_{reduction}"
            N, C = 6, 5
            x = rng.uniform(-3, 3, (N, C) + sp).astype(dt)
            t = rng.integers(0, C, (N,) + sp)
            if ii is not None:
                t = np.where(rng.uniform(size=t.shape) < 0.5, ii, t)  # about half ignored
                if all_ignored:
                    t[...] = ii
            t = t.astype(tdt)
            w = rng.uniform(0.2, 2, (C,)).astype(dt) if has_w else None
            lp = log_softmax(x) if op == "SoftmaxCrossEntropyLoss" else x.astype(np.float64)
            y = nll_ref(lp, t, w, reduction, ii).astype(dt)
            ins = [("x", x), ("t", t)] + ([("w", w)] if has_w else [])
            outs = [("y", y)]
            if op == "SoftmaxCrossEntropyLoss":
                outs.append(("log_prob", lp.astype(dt)))
            attrs = {"reduction": reduction}
            if ii is not None:
                attrs["ignore_index"] = ii
            node = helper.make_node(op, [k for k, _ in ins], [k for k, _ in outs], **attrs)
            save_case(out_dir, name, node, ins, outs, 13)
            cases.append((name, 2 if base == "sce_big" else 1))
    return cases


# ---- Einsum, TopK, Det, CumProd ------------------------------------------------------------

def misc_cases(out_dir, rng):
    cases = []
    einsums = [("einsum_broadcast_batch", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)],
                np.float32),
               ("einsum_three_operands", "ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)], np.float64),
               ("einsum_diagonal_sum", "iij->j", [(4, 4, 3)], np.float64),
               ("einsum_implicit", "ba,ac", [(3, 4), (4, 2)], np.float32),
               ("einsum_int64_outer", "i,j->ij", [(5,), (3,)], np.int64)]
    for name, eq, shapes, dt in einsums:
        ops = [rng.integers(-5, 5, s).astype(dt) if dt == np.int64
               else rng.uniform(-1, 1, s).astype(dt) for s in shapes]
        y = np.einsum(eq, *[o.astype(np.float64) for o in ops]).astype(dt)
        names = [f"in{i}" for i in range(len(ops))]
        node = helper.make_node("Einsum", names, ["y"], equation=eq)
        save_case(out_dir, name, node, list(zip(names, ops)), [("y", np.asarray(y))], 12)
        cases.append((name, 2))
    for name, shape, axis, k, largest, dt in [("topk_ties_largest", (6, 50, 7), 1, 5, 1, np.float32),
                                              ("topk_ties_smallest", (6, 50, 7), 1, 5, 0, np.float32),
                                              ("topk_all_int32", (4, 9), -1, 9, 1, np.int32)]:
        x = rng.integers(0, 6, shape).astype(dt)  # many ties: lower index first
        order = np.argsort(-x if largest else x, axis=axis, kind="stable")
        idx = np.take(order, np.arange(k), axis=axis)
        vals = np.take_along_axis(x, idx, axis=axis)
        node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis, largest=largest)
        inits = [numpy_helper.from_array(np.array([k], np.int64), "k")]
        save_case(out_dir, name, node, [("x", x)], [("v", vals), ("i", idx.astype(np.int64))], 11)
        m = onnx.load(os.path.join(out_dir, name, "model.onnx"))
        m.graph.initializer.extend(inits)
        onnx.save(m, os.path.join(out_dir, name, "model.onnx"))
        cases.append((name, 2))
    x = rng.uniform(-1, 1, (4, 5, 5))
    x[2, 3] = 2 * x[2, 1]  # singular
    save_case(out_dir, "det_batch_singular", helper.make_node("Det", ["x"], ["y"]), [("x", x)],
              [("y", np.linalg.det(x))], 11)
    cases.append(("det_batch_singular", 1))
    x = rng.uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
    rev = np.flip(x, 1)
    y = np.flip(np.concatenate([np.ones((3, 1, 5)), np.cumprod(rev, 1)[:, :-1]], 1), 1)
    node = helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=1, reverse=1)
    save_case(out_dir, "cumprod_exclusive_reverse", node, [("x", x)],
              [("y", y.astype(np.float32))], 26)
    m = onnx.load(os.path.join(out_dir, "cumprod_exclusive_reverse", "model.onnx"))
    m.graph.initializer.append(numpy_helper.from_array(np.array(1, np.int64), "axis"))
    onnx.save(m, os.path.join(out_dir, "cumprod_exclusive_reverse", "model.onnx"))
    cases.append(("cumprod_exclusive_reverse", 1))
    # BatchNormalization in training mode: batch statistics, running statistics updated.
    for dt, shape, momentum in ((np.float32, (3, 4, 7), 0.8), (np.float64, (2, 3, 4, 3, 5), None)):
        C = shape[1]
        x = rng.normal(1.0, 2.0, shape).astype(dt)
        s, b = rng.uniform(0.5, 1.5, C).astype(dt), rng.uniform(-1, 1, C).astype(dt)
        mean, var = rng.uniform(-1, 1, C).astype(dt), rng.uniform(0.5, 2, C).astype(dt)
        axes = tuple(d for d in range(len(shape)) if d != 1)
        bm, bv = x.astype(np.float64).mean(axis=axes), x.astype(np.float64).var(axis=axes)
        bc = lambda a: a.reshape((1, C) + (1,) * (len(shape) - 2))  # noqa: E731
        y = (x - bc(bm)) / np.sqrt(bc(bv) + 1e-3) * bc(s) + bc(b)
        mom = 0.9 if momentum is None else momentum
        attrs = {"epsilon": 1e-3, "training_mode": 1}
        if momentum is not None:
            attrs["momentum"] = momentum
        node = helper.make_node("BatchNormalization", ["x", "s", "b", "mean", "var"],
                                ["y", "running_mean", "running_var"], **attrs)
        name = f"batchnorm_training_{np.dtype(dt).name}"
        save_case(out_dir, name, node, [("x", x), ("s", s), ("b", b), ("mean", mean), ("var", var)],
                  [("y", y.astype(dt)), ("running_mean", (mean * mom + bm * (1 - mom)).astype(dt)),
                   ("running_var", (var * mom + bv * (1 - mom)).astype(dt))], 15)
        cases.append((name, 2))
    return cases


# ---- RoiAlign ------------------------------------------------------------------------------

def roi_align_ref(X, rois, bidx, oh, ow, sr, scale, mode, half_pixel):
    N, C, H, W = X.shape
    Y = np.zeros((rois.shape[0], C, oh, ow))
    for r in range(rois.shape[0]):
        off = 0.5 if half_pixel else 0.0
        x0, y0, x1, y1 = rois[r].astype(np.float64) * scale - off
        rw, rh = x1 - x0, y1 - y0
        if not half_pixel:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = sr if sr > 0 else int(np.ceil(rh / oh))
        gw = sr if sr > 0 else int(np.ceil(rw / ow))
        img = X[bidx[r]].astype(np.float64)
        for ph, pw in itertools.product(range(oh), range(ow)):
            parts = []  # per sample: the four weighted corner values, per channel
            for iy, ix in itertools.product(range(gh), range(gw)):
                y = y0 + ph * bh + (iy + 0.5) * bh / gh
                x = x0 + pw * bw + (ix + 0.5) * bw / gw
                if y < -1 or y > H or x < -1 or x > W:
                    parts.append(np.zeros((4, C)))
                    continue
                y, x = max(y, 0.0), max(x, 0.0)
                yl, xl = min(int(y), H - 1), min(int(x), W - 1)
                yh, xh = min(yl + 1, H - 1), min(xl + 1, W - 1)
                y, x = (yl if yl == H - 1 else y), (xl if xl == W - 1 else x)
                ly, lx = y - yl, x - xl
                parts.append(np.stack([(1 - ly) * (1 - lx) * img[:, yl, xl],
                                       (1 - ly) * lx * img[:, yl, xh],
                                       ly * (1 - lx) * img[:, yh, xl], ly * lx * img[:, yh, xh]]))
            p = np.array(parts)
            Y[r, :, ph, pw] = (p.max(axis=(0, 1)) if mode == "max"
                               else p.sum(axis=(0, 1)) / max(gh * gw, 1))
    return Y


def roi_align_cases(out_dir, rng):
    cases = []
    X = rng.uniform(-1, 1, (2, 3, 12, 10)).astype(np.float32)
    rois = np.array([[0, 0, 9, 11], [2.5, 1.2, 7.7, 9.1], [-3, -2, 4, 5], [15, 18, 22, 30],
                     [4, 4, 4.5, 4.2]], np.float32) * 2  # full, inside, partly and fully outside
    bidx = np.array([0, 1, 1, 0, 1], np.int64)
    for mode, sr, ctm in [("avg", 0, "half_pixel"), ("avg", 2, "output_half_pixel"),
                          ("max", 0, "output_half_pixel"), ("max", 3, "half_pixel")]:
        name = f"roialign_{mode}_sr{sr}_{ctm}"
        Y = roi_align_ref(X, rois, bidx, 3, 4, sr, 0.5, mode, ctm == "half_pixel")
        node = helper.make_node("RoiAlign", ["X", "rois", "bi"], ["Y"], mode=mode,
                                output_height=3, output_width=4, sampling_ratio=sr,
                                spatial_scale=0.5, coordinate_transformation_mode=ctm)
        save_case(out_dir, name, node, [("X", X), ("rois", rois), ("bi", bidx)],
                  [("Y", Y.astype(np.float32))], 16)
        cases.append((name, 2))
    return cases


# ---- Invalid models ------------------------------------------------------------------------

ERRORS = [  # name, op, inputs (name, dtype, shape), attrs, opset, expected message part
    ("err_nll_target_shape", "NegativeLogLikelihoodLoss",
     [("x", np.float32, (2, 3, 4)), ("t", np.int64, (2, 5))], {}, 13, "target has shape 2x5"),
    ("err_nll_reduction", "NegativeLogLikelihoodLoss",
     [("x", np.float32, (2, 3)), ("t", np.int64, (2,))], {"reduction": "avg"}, 13,
     "reduction must be 'none', 'sum' or 'mean'"),
    ("err_sce_weight", "SoftmaxCrossEntropyLoss",
     [("x", np.float32, (2, 3)), ("t", np.int64, (2,)), ("w", np.float32, (4,))], {}, 13,
     r"weight must have shape \[3\]"),
    ("err_gridsample_grid", "GridSample",
     [("x", np.float32, (1, 2, 4, 4)), ("g", np.float32, (1, 3, 3, 3))], {}, 16,
     "grid must have shape"),
    ("err_gridsample_mode", "GridSample",
     [("x", np.float32, (1, 2, 4, 4)), ("g", np.float32, (1, 3, 3, 2))], {"mode": "area"}, 16,
     "mode must be"),
    ("err_einsum_mismatch", "Einsum", [("a", np.float32, (2, 3)), ("b", np.float32, (4, 5))],
     {"equation": "ij,jk->ik"}, 12, "index 'j' has size 3 in one place and 4"),
    ("err_det_square", "Det", [("x", np.float32, (2, 3, 4))], {}, 11, "square matrices"),
]


def error_cases(out_dir, onnxc):
    failed = []
    for name, op, ins, attrs, opset, want in ERRORS:
        x = [(k, np.zeros(s, dt)) for k, dt, s in ins]
        node = helper.make_node(op, [k for k, _ in x], ["y"], name=f"{name}_node", **attrs)
        save_case(out_dir, name, node, x, [("y", np.zeros((1,), np.float32))], opset)
        r = subprocess.run([onnxc, "compile", os.path.join(out_dir, name, "model.onnx"), "-o",
                            os.path.join(out_dir, name, "lib.so")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ok = (r.returncode == 1 and r.stdout.startswith("onnxc: error: ") and
              f"{name}_node" in r.stdout and re.search(want, r.stdout) is not None and
              not os.path.exists(os.path.join(out_dir, name, "lib.so")))
        print(f"{'PASS' if ok else 'FAIL'} {name}", flush=True)
        if not ok:
            print(f"  exit {r.returncode}, wanted /{want}/ naming {name}_node:\n{r.stdout}")
            failed.append(name)
    return failed


# ---- Shapes given at run time ---------------------------------------------------------------

def col2im_ref(x, image, block):
    """Col2Im with unit strides and dilations, no pads: sums the blocks back into the image."""
    n, ck, _ = x.shape
    k = int(np.prod(block))
    c = ck // k
    grid = [i - b + 1 for i, b in zip(image, block)]
    y = np.zeros((n, c) + tuple(image))
    cols = x.reshape(n, c, *block, *grid)
    for kk in itertools.product(*[range(b) for b in block]):
        sl = tuple(slice(k0, k0 + g) for k0, g in zip(kk, grid))
        y[(slice(None), slice(None)) + sl] += cols[(slice(None), slice(None)) + kk]
    return y


def save_data_sets(out_dir, name, node, inputs, output_type, data_sets, opset):
    """One model (inputs: (name, elem type, shape); the output's shape unknown), a data set
    per entry of data_sets: ([input arrays], output array)."""
    graph = helper.make_graph([node], name,
                              [helper.make_tensor_value_info(k, t, s) for k, t, s in inputs],
                              [helper.make_tensor_value_info("y", output_type, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    os.makedirs(os.path.join(out_dir, name), exist_ok=True)
    onnx.save(model, os.path.join(out_dir, name, "model.onnx"))
    for i, (ins, y) in enumerate(data_sets):
        data = os.path.join(out_dir, name, f"test_data_set_{i}")
        os.makedirs(data, exist_ok=True)
        for k, ((nm, _, _), v) in enumerate(zip(inputs, ins)):
            onnx.save_tensor(numpy_helper.from_array(v, nm), os.path.join(data, f"input_{k}.pb"))
        onnx.save_tensor(numpy_helper.from_array(y, "y"), os.path.join(data, "output_0.pb"))


def runtime_shape_cases(out_dir, rng):
    """Col2Im's image_shape / block_shape and MaxUnpool's output_shape given at run time: one
    library per model runs every data set (no input compiled in), the output shaped by the run."""
    I64 = TensorProto.INT64
    x = rng.standard_normal((1, 20, 16)).astype(np.float32)
    sets = []
    for image, block in (([5, 5], [2, 2]), ([5, 8], [2, 5]), ([17, 2], [2, 2])):
        sets.append(([x, np.array(image, np.int64), np.array(block, np.int64)],
                     col2im_ref(x.astype(np.float64), image, block).astype(np.float32)))
    save_data_sets(out_dir, "col2im_run_time_shapes",
                   helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"]),
                   [("x", TensorProto.FLOAT, x.shape), ("image_shape", I64, [2]),
                    ("block_shape", I64, [2])], TensorProto.FLOAT, sets, 18)
    # MaxUnpool 2x2 / 2 of a 1 x 2 x 2 x 3 input: the default output is 4 x 6 (indices are
    # flat over N x C x 4 x 6); output_shape keeps each value's (h, w) and may only add rows
    # and columns at the end.
    xv = rng.standard_normal((1, 2, 2, 3)).astype(np.float32)
    local = np.array([[[0, 3, 4], [13, 15, 22]], [[7, 8, 11], [12, 19, 23]]], np.int64)
    idx = (local + 24 * np.arange(2).reshape(2, 1, 1))[None]
    sets = []
    for shape in ([1, 2, 4, 6], [1, 2, 5, 6], [1, 2, 7, 9]):
        y = np.zeros(shape, np.float32)
        for c in range(2):
            for i, v in zip(local[c].ravel(), xv[0, c].ravel()):
                y[0, c, i // 6, i % 6] = v
        sets.append(([xv, idx, np.array(shape, np.int64)], y))
    save_data_sets(out_dir, "maxunpool_run_time_output_shape",
                   helper.make_node("MaxUnpool", ["x", "i", "output_shape"], ["y"],
                                    kernel_shape=[2, 2], strides=[2, 2]),
                   [("x", TensorProto.FLOAT, xv.shape), ("i", I64, idx.shape),
                    ("output_shape", I64, [4])], TensorProto.FLOAT, sets, 11)
    # SplitToSequence with 1-D sizes given at run time: a sequence of two elements, each
    # shaped by the run (a Split with run-time sizes).
    data = rng.standard_normal((7, 3)).astype(np.float32)
    name = "split_to_sequence_run_time_sizes"
    node = helper.make_node("SplitToSequence", ["x", "split"], ["seq"], axis=0)
    seq_type = helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    graph = helper.make_graph([node], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, data.shape),
                               helper.make_tensor_value_info("split", I64, [2])],
                              [helper.make_value_info("seq", seq_type)])
    os.makedirs(os.path.join(out_dir, name), exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out_dir, name, "model.onnx"))
    for k, sizes in enumerate(([2, 5], [7, 0], [3, 4])):
        d = os.path.join(out_dir, name, f"test_data_set_{k}")
        os.makedirs(d, exist_ok=True)
        onnx.save_tensor(numpy_helper.from_array(data, "x"), os.path.join(d, "input_0.pb"))
        onnx.save_tensor(numpy_helper.from_array(np.array(sizes, np.int64), "split"),
                         os.path.join(d, "input_1.pb"))
        parts = [data[:sizes[0]], data[sizes[0]:]]
        with open(os.path.join(d, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_list(parts, "seq").SerializeToString())
    return [("col2im_run_time_shapes", 2), ("maxunpool_run_time_output_shape", 1),
            (name, 1)]


# ---- MaxPool --------------------------------------------------------------------------------

def maxpool_ref(x, k, s, pads, ceil):
    """float64 MaxPool over the last len(k) dims in onnxc's order: each window's first position
    inside X (row-major), then every later one that is strictly greater (a NaN that comes first
    stays; later NaNs are never taken); -inf where no position is inside."""
    nd = len(k)
    sp = x.shape[-nd:]
    out = []
    for i in range(nd):
        span = sp[i] + pads[i] + pads[i + nd] - k[i]
        o = (-(-span // s[i]) if ceil else span // s[i]) + 1
        if ceil and (o - 1) * s[i] >= sp[i] + pads[i]:  # a last window starting in the end pad
            o -= 1
        out.append(o)
    y = np.full(x.shape[:-nd] + tuple(out), -np.inf)
    for o in itertools.product(*[range(n) for n in out]):
        best = None
        for t in itertools.product(*[range(n) for n in k]):
            at = [o[i] * s[i] - pads[i] + t[i] for i in range(nd)]
            if any(a < 0 or a >= sp[i] for i, a in enumerate(at)):
                continue
            v = x[(Ellipsis,) + tuple(at)].astype(np.float64)
            best = v.copy() if best is None else np.where(v > best, v, best)
        if best is not None:
            y[(Ellipsis,) + o] = best
    return y


def maxpool_cases(out_dir, rng):
    """Float MaxPools through the vector-row path (templates/cpu/pool.cpp max_rows_f32: 2-D and
    1-D, column stride 1 or 2) and around it: the stems of ResNet (3x3 s2 p1 at 112) and
    SqueezeNet (3x3 s2 ceil at 111 and 27), U-Net's 2x2 s2, 3x3 s1 'same', asymmetric pads,
    rows narrower than a vector, one vector plus an overlapping last one, a 1-D pool, a stride 3
    (the general path), and NaN, -inf and +inf among the values; at 1 and 2 threads."""
    cases = []
    shapes = [("resnet_stem", (2, 5, 112, 112), [3, 3], [2, 2], [1, 1, 1, 1], 0),
              ("squeezenet_ceil_111", (1, 4, 111, 111), [3, 3], [2, 2], [0, 0, 0, 0], 1),
              ("squeezenet_ceil_27", (2, 3, 27, 27), [3, 3], [2, 2], [0, 0, 0, 0], 1),
              ("unet_2x2", (1, 6, 64, 64), [2, 2], [2, 2], [0, 0, 0, 0], 0),
              ("same_3x3_s1", (1, 3, 40, 37), [3, 3], [1, 1], [1, 1, 1, 1], 0),
              ("asym_pads_5x5", (2, 2, 23, 45), [5, 5], [1, 2], [2, 1, 0, 3], 0),
              ("narrow_rows", (1, 3, 20, 9), [3, 3], [2, 2], [1, 1, 1, 1], 0),
              ("one_vector_and_overlap", (1, 2, 9, 35), [3, 3], [2, 2], [0, 1, 0, 1], 1),
              ("stride3_general", (1, 2, 30, 50), [3, 3], [3, 3], [1, 1, 1, 1], 0),
              ("pool_1d", (2, 3, 100), [3], [2], [1, 1], 0)]
    for name, shape, k, s, pads, ceil in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        flat = x.reshape(-1)
        for v in (np.nan, -np.inf, np.inf):
            flat[rng.choice(flat.size, max(1, flat.size // 500), replace=False)] = v
        y = maxpool_ref(x, k, s, pads, ceil).astype(np.float32)
        node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=k, strides=s, pads=pads,
                                ceil_mode=ceil)
        for threads in (1, 2):
            case = f"maxpool_{name}_t{threads}"
            save_case(out_dir, case, node, [("x", x)], [("y", y)], 12)
            cases.append((case, threads))
    return cases


# ---- Resize --------------------------------------------------------------------------------

def linear_axis(x, axis, out, ctm):
    """1-D linear resize of axis `axis` to `out` (ONNX's formula: edge-clamped neighbours)."""
    n = x.shape[axis]
    scale = out / n
    xs = []
    for i in range(out):
        if ctm == "pytorch_half_pixel" and out == 1:
            xo = -0.5
        else:
            xo = (i + 0.5) / scale - 0.5
        x0 = int(np.floor(xo))
        w = xo - x0
        a = np.take(x, min(max(x0, 0), n - 1), axis=axis)
        b = np.take(x, min(max(x0 + 1, 0), n - 1), axis=axis)
        xs.append((1 - w) * a + w * b)
    return np.stack(xs, axis=axis)


def resize_cases(out_dir, rng):
    """Bilinear Resize with constant scales or sizes (the compile-time path, templates/cpu/
    resize.cpp): pytorch_half_pixel on a batch of 1 (its length-1 axes map to -0.5, two taps
    on index 0 that the lowering merges, so the separable kernel runs: check_resize_paths), 2x
    up on 24 channels and 3x on one channel; half_pixel down to sizes on a batch of 2 with rows
    of 12 (a partial vector) and up to rows of 70; at 1 and 2 threads."""
    cases = []
    specs = [("pytorch_b1_2x", (1, 24, 9, 13), "pytorch_half_pixel", "scales", (18, 26)),
             ("pytorch_c1_3x", (1, 1, 7, 11), "pytorch_half_pixel", "scales", (21, 33)),
             ("half_b2_down", (2, 5, 20, 31), "half_pixel", "sizes", (7, 12)),
             ("half_b1_up70", (1, 3, 10, 35), "half_pixel", "scales", (20, 70))]
    for name, shape, ctm, how, (oh, ow) in specs:
        x = rng.standard_normal(shape).astype(np.float32)
        y = linear_axis(linear_axis(x.astype(np.float64), 2, oh, ctm), 3, ow, ctm)
        if how == "scales":
            const = numpy_helper.from_array(
                np.array([1, 1, oh / shape[2], ow / shape[3]], np.float32), "c")
            ins = ["x", "", "c"]
        else:
            const = numpy_helper.from_array(np.array([shape[0], shape[1], oh, ow], np.int64), "c")
            ins = ["x", "", "", "c"]
        node = helper.make_node("Resize", ins, ["y"], mode="linear",
                                coordinate_transformation_mode=ctm)
        graph = helper.make_graph(
            [node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)], [const])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        for threads in (1, 2):
            case = f"resize_{name}_t{threads}"
            data = os.path.join(out_dir, case, "test_data_set_0")
            os.makedirs(data, exist_ok=True)
            onnx.save(model, os.path.join(out_dir, case, "model.onnx"))
            onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(data, "input_0.pb"))
            onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"),
                             os.path.join(data, "output_0.pb"))
            cases.append((case, threads))
    return cases


def check_resize_paths(out_dir, onnxc):
    """The bilinear cases compile to the separable kernel (resize_separable in the LLVM IR):
    pytorch_half_pixel's batch of 1 had kept a 1x128x32x32 -> 64x64 Resize on the per-element
    path, 7x slower. Returns the failed checks."""
    failed = []
    for name in ("pytorch_b1_2x", "pytorch_c1_3x", "half_b2_down", "half_b1_up70"):
        model = os.path.join(out_dir, f"resize_{name}_t1", "model.onnx")
        ll = os.path.join(out_dir, f"resize_{name}.ll")
        r = subprocess.run([onnxc, "compile", model, "-o", ll, "--emit", "llvm"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ok = r.returncode == 0 and "resize_separable" in open(ll).read()
        print(f"{'PASS' if ok else 'FAIL'} resize_{name}_separable", flush=True)
        if not ok:
            print(r.stdout)
            failed.append(f"resize_{name}_separable")
    return failed


GROUPS = {"gridsample": gridsample_cases, "loss": loss_cases, "misc": misc_cases,
          "roialign": roi_align_cases, "runtime_shapes": runtime_shape_cases,
          "maxpool": maxpool_cases, "resize": resize_cases}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--group", choices=list(GROUPS) + ["errors"])
    args = ap.parse_args()
    failed = []
    for group, make in GROUPS.items():
        if args.group and args.group != group:
            continue
        for name, threads in make(args.out_dir, np.random.default_rng(zlib.crc32(group.encode()))):
            case_dir = os.path.join(args.out_dir, name)
            sets = sorted(os.path.join(case_dir, d) for d in os.listdir(case_dir)
                          if d.startswith("test_data_set_"))
            r = subprocess.run([args.onnxc, "verify", os.path.join(case_dir, "model.onnx")] +
                               sets + ["--atol", "1e-5", "--rtol", "1e-4", "--threads",
                                       str(threads)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            # shapes given at run time: one library for every data set, nothing compiled in
            ok = r.returncode == 0 and not (group == "runtime_shapes" and
                                            "compiling in" in r.stdout)
            print(f"{'PASS' if ok else 'FAIL'} {name}", flush=True)
            if not ok:
                print(r.stdout)
                failed.append(name)
    if not args.group or args.group == "resize":
        failed += check_resize_paths(args.out_dir, args.onnxc)
    if not args.group or args.group == "errors":
        failed += error_cases(args.out_dir, args.onnxc)
    if failed:
        print(f"{len(failed)} case(s) failed: {' '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
