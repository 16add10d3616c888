#!/usr/bin/python3
"""Statistical and determinism checks of the random ops (RandomUniform, RandomNormal, their
*Like forms, Bernoulli, Multinomial).

Builds small models with onnx.helper, compiles each with `onnxc compile` and runs it with
`onnxc run` (as a user would), then checks the drawn values against their distribution: every
mean, variance and frequency must lie within 4 standard errors of its expected value (the
standard error estimated from the draws themselves or from the binomial law); bounds, dtypes and
shapes exactly. The statistical checks use seeded models, so they are deterministic. Groups:
  uniform      RandomUniform / RandomUniformLike: float, double, float16, bfloat16, dtype
               override
  normal       RandomNormal / RandomNormalLike: mean, std, the 1-sigma fraction
  bernoulli    frequencies per probability band, values exactly 0/1, output dtypes
  multinomial  class frequencies vs softmax of the row, int32/int64
  dropout      Dropout in training mode: Y = X * mask / (1 - ratio), kept fraction, seeded runs
  determinism  seeded: equal across runs and --threads 1/2/4; unseeded: runs differ (the ops
               are never constant-folded); two nodes with one seed draw different streams
  errors       invalid attributes/dtypes are compile errors naming the node

Usage: random_cases.py WORK_DIR --onnxc ONNXC --group GROUP. Exits 1 if a check fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

N = 200000  # draws per statistical check
SIGMAS = 4.0
NP_OF = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64,
         TensorProto.FLOAT16: np.float16, TensorProto.INT32: np.int32,
         TensorProto.INT64: np.int64, TensorProto.BOOL: np.bool_, TensorProto.UINT8: np.uint8}
ELEM = {v: k for k, v in NP_OF.items()}


class Checker:
    def __init__(self, work, onnxc):
        self.work, self.onnxc, self.failures = work, onnxc, []

    def check(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            self.failures.append(what)

    def near(self, got, want, se, what):
        """got within SIGMAS standard errors of want."""
        self.check(abs(got - want) <= SIGMAS * se + 1e-12,
                   f"{what}: {got:.6g} vs {want:.6g} (4 se = {SIGMAS * se:.3g})")

    def model(self, name, nodes, inputs, outputs, opset=17):
        """inputs: (name, array); outputs: (name, elem type, shape). Returns the model path."""
        graph = helper.make_graph(
            nodes, name,
            [helper.make_tensor_value_info(k, ELEM[v.dtype.type], v.shape) for k, v in inputs],
            [helper.make_tensor_value_info(k, t, s) for k, t, s in outputs])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "data"))
        path = os.path.join(d, "model.onnx")
        onnx.save(model, path)
        for i, (k, v) in enumerate(inputs):
            onnx.save_tensor(numpy_helper.from_array(v, k),
                             os.path.join(d, "data", f"input_{i}.pb"))
        return path

    def compile(self, path):
        lib = os.path.join(os.path.dirname(path), "lib", "libmodel.so")
        os.makedirs(os.path.dirname(lib), exist_ok=True)
        subprocess.run([self.onnxc, "compile", path, "-o", lib], check=True,
                       stdout=subprocess.DEVNULL)
        return lib

    def run(self, lib, threads=2, tag="out"):
        """Runs the library once; returns its outputs as numpy arrays, in order."""
        d = os.path.dirname(os.path.dirname(lib))
        out = os.path.join(d, tag)
        subprocess.run([self.onnxc, "run", lib, os.path.join(d, "data"), "-o", out,
                        "--threads", str(threads)], check=True, stdout=subprocess.DEVNULL)
        res = []
        while os.path.exists(os.path.join(out, f"output_{len(res)}.pb")):
            res.append(numpy_helper.to_array(
                onnx.load_tensor(os.path.join(out, f"output_{len(res)}.pb"))))
        return res

    def draw(self, name, nodes, inputs, outputs, threads=2, opset=17):
        return self.run(self.compile(self.model(name, nodes, inputs, outputs, opset)), threads)

    def typed(self, y, dtype, shape, what):
        self.check(y.dtype == dtype and tuple(y.shape) == tuple(shape),
                   f"{what}: dtype {y.dtype}, shape {y.shape} (want {np.dtype(dtype)}, {shape})")


def uniform_stats(c, y, low, high, what):
    x = y.astype(np.float64).ravel()
    c.check(bool(np.all((x >= low) & (x < high))), f"{what}: all in [{low}, {high})")
    m, var = x.mean(), x.var()
    c.near(m, (low + high) / 2, x.std() / np.sqrt(x.size), f"{what}: mean")
    se_var = np.sqrt(np.mean((x - m) ** 4) - var ** 2) / np.sqrt(x.size)
    c.near(var, (high - low) ** 2 / 12, se_var, f"{what}: variance")
    c.check(len(np.unique(x)) > min(x.size // 4, 1000), f"{what}: many distinct values")


def group_uniform(c):
    for t, low, high in ((TensorProto.FLOAT, -2.0, 3.0), (TensorProto.DOUBLE, 0.0, 1.0),
                         (TensorProto.FLOAT16, -1.0, 1.0)):
        node = helper.make_node("RandomUniform", [], ["y"], shape=[N // 400, 400], low=low,
                                high=high, dtype=t, seed=11.0)
        (y,) = c.draw(f"uniform_{t}", [node], [], [("y", t, [N // 400, 400])])
        c.typed(y, NP_OF[t], (N // 400, 400), f"RandomUniform dtype {t}")
        uniform_stats(c, y, low, high, f"RandomUniform dtype {t}")
    # bfloat16 (no numpy type): read through a Cast to float in the graph.
    nodes = [helper.make_node("RandomUniform", [], ["h"], shape=[N], low=-1.0, high=1.0,
                              dtype=TensorProto.BFLOAT16, seed=4.0),
             helper.make_node("Cast", ["h"], ["y"], to=TensorProto.FLOAT)]
    (y,) = c.draw("uniform_bf16", nodes, [], [("y", TensorProto.FLOAT, [N])])
    c.check(bool(np.all(y.view(np.uint32) & 0xffff == 0)), "RandomUniform bfloat16: bf16 values")
    uniform_stats(c, y, -1.0, 1.0, "RandomUniform bfloat16")
    # Like: shape and dtype from the input; dtype attribute overrides the type.
    x = np.zeros((N // 100, 10, 10), np.float64)
    node = helper.make_node("RandomUniformLike", ["x"], ["y"], low=5.0, high=7.5, seed=2.0)
    (y,) = c.draw("uniform_like", [node], [("x", x)], [("y", TensorProto.DOUBLE, x.shape)])
    c.typed(y, np.float64, x.shape, "RandomUniformLike from double")
    uniform_stats(c, y, 5.0, 7.5, "RandomUniformLike from double")
    node = helper.make_node("RandomUniformLike", ["x"], ["y"], dtype=TensorProto.FLOAT, seed=3.0)
    xi = np.zeros((N,), np.int64)
    (y,) = c.draw("uniform_like_dtype", [node], [("x", xi)], [("y", TensorProto.FLOAT, [N])])
    c.typed(y, np.float32, (N,), "RandomUniformLike int64 input, dtype float")
    uniform_stats(c, y, 0.0, 1.0, "RandomUniformLike int64 input, dtype float")


def normal_stats(c, y, mean, scale, what):
    x = y.astype(np.float64).ravel()
    c.check(bool(np.all(np.isfinite(x))), f"{what}: all finite")
    c.near(x.mean(), mean, scale / np.sqrt(x.size), f"{what}: mean")
    # var of the sample variance of a normal: 2 sigma^4 / n
    c.near(x.var(), scale ** 2, np.sqrt(2.0 / x.size) * scale ** 2, f"{what}: variance")
    p1 = 0.6826894921370859
    c.near(np.mean(np.abs(x - mean) < scale), p1, np.sqrt(p1 * (1 - p1) / x.size),
           f"{what}: fraction within 1 sigma")
    p3 = 0.9973002039367398
    c.near(np.mean(np.abs(x - mean) < 3 * scale), p3, np.sqrt(p3 * (1 - p3) / x.size),
           f"{what}: fraction within 3 sigma")


def group_normal(c):
    for t, mean, scale in ((TensorProto.FLOAT, 1.5, 2.0), (TensorProto.DOUBLE, -3.0, 0.25)):
        node = helper.make_node("RandomNormal", [], ["y"], shape=[N], mean=mean, scale=scale,
                                dtype=t, seed=5.0)
        (y,) = c.draw(f"normal_{t}", [node], [], [("y", t, [N])])
        c.typed(y, NP_OF[t], (N,), f"RandomNormal dtype {t}")
        normal_stats(c, y, mean, scale, f"RandomNormal dtype {t}")
    x = np.zeros((N // 2, 2), np.float16)
    node = helper.make_node("RandomNormalLike", ["x"], ["y"], seed=9.0)
    (y,) = c.draw("normal_like_half", [node], [("x", x)], [("y", TensorProto.FLOAT16, x.shape)])
    c.typed(y, np.float16, x.shape, "RandomNormalLike float16")
    normal_stats(c, y, 0.0, 1.0, "RandomNormalLike float16")


def bernoulli_input(dtype):
    """Probability bands 0, 0.05, 0.3, 0.5, 0.8, 1 of N / 6 elements each, interleaved."""
    bands = np.array([0.0, 0.05, 0.3, 0.5, 0.8, 1.0])
    return bands, np.tile(bands, N // len(bands)).astype(dtype)


def group_bernoulli(c):
    cases = [(np.float32, None, np.float32), (np.float64, None, np.float64),
             (np.float32, TensorProto.BOOL, np.bool_), (np.float64, TensorProto.INT64, np.int64),
             (np.float16, TensorProto.FLOAT, np.float32), (np.float16, None, np.float16)]
    for k, (in_t, out_attr, out_t) in enumerate(cases):
        bands, p = bernoulli_input(in_t)
        kw = {} if out_attr is None else {"dtype": out_attr}
        node = helper.make_node("Bernoulli", ["p"], ["y"], seed=float(k), **kw)
        (y,) = c.draw(f"bernoulli_{k}", [node], [("p", p)], [("y", ELEM[out_t], p.shape)],
                      opset=15)
        what = f"Bernoulli {np.dtype(in_t)} -> {np.dtype(out_t)}"
        c.typed(y, out_t, p.shape, what)
        v = y.astype(np.float64)
        c.check(bool(np.all((v == 0) | (v == 1))), f"{what}: values exactly 0 or 1")
        for j, b in enumerate(bands):
            got = v[j::len(bands)]
            pb = float(np.float64(in_t(b)))  # the probability as the input type holds it
            c.near(got.mean(), pb, np.sqrt(pb * (1 - pb) / got.size), f"{what}: p = {b}")


def group_dropout(c):
    """Dropout in training mode (constant training_mode and ratio): Y = X * mask / (1 - ratio)
    exactly, the mask kept with probability 1 - ratio, seeded runs equal."""
    for k, (dt, ratio) in enumerate(((np.float32, 0.3), (np.float64, 0.75))):
        x = np.linspace(1.0, 2.0, N).astype(dt).reshape(4, -1)
        const = lambda name, v: helper.make_node(  # noqa: E731
            "Constant", [], [name], value=numpy_helper.from_array(np.array(v), name))
        nodes = [const("r", dt(ratio)), const("t", np.bool_(True)),
                 helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"], seed=7 + k)]
        path = c.model(f"dropout_{k}", nodes, [("x", x)],
                       [("y", ELEM[dt], x.shape), ("mask", TensorProto.BOOL, x.shape)], opset=13)
        lib = c.compile(path)
        y, mask = c.run(lib, threads=2, tag="a")
        what = f"Dropout training {np.dtype(dt)} ratio {ratio}"
        c.typed(y, dt, x.shape, what)
        c.typed(mask, np.bool_, x.shape, what + " mask")
        want = np.where(mask, x / dt(1 - ratio), dt(0))
        c.check(bool(np.allclose(y, want, rtol=1e-6, atol=0)), f"{what}: Y = X * mask / (1 - r)")
        kept = mask.astype(np.float64).mean()
        c.near(kept, 1 - ratio, np.sqrt(ratio * (1 - ratio) / mask.size), f"{what}: kept fraction")
        y2, mask2 = c.run(lib, threads=1, tag="b")
        c.check(bool(np.array_equal(mask, mask2) and np.array_equal(y, y2)),
                f"{what}: seeded runs at 2 and 1 threads agree")
    # training_mode and ratio given at run time (one graph, its inputs decide): in training mode
    # as above; in inference mode, or with ratio 0, a copy with a mask all true.
    x = np.linspace(1.0, 2.0, N).astype(np.float32).reshape(4, -1)
    for k, (training, ratio) in enumerate(((True, 0.4), (False, 0.4), (True, 0.0))):
        nodes = [helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"], seed=11)]
        path = c.model(f"dropout_run_time_{k}", nodes,
                       [("x", x), ("r", np.array(ratio, np.float32)),
                        ("t", np.array(training, np.bool_))],
                       [("y", TensorProto.FLOAT, x.shape), ("mask", TensorProto.BOOL, x.shape)],
                       opset=13)
        y, mask = c.run(c.compile(path), threads=2, tag="a")
        what = f"Dropout training_mode={training} ratio={ratio} given at run time"
        c.typed(y, np.float32, x.shape, what)
        c.typed(mask, np.bool_, x.shape, what + " mask")
        if training and ratio > 0:
            want = np.where(mask, x / np.float32(1 - ratio), np.float32(0))
            c.check(bool(np.allclose(y, want, rtol=1e-6, atol=0)), f"{what}: Y = X * mask / (1 - r)")
            c.near(mask.astype(np.float64).mean(), 1 - ratio,
                   np.sqrt(ratio * (1 - ratio) / mask.size), f"{what}: kept fraction")
        else:
            c.check(bool(np.array_equal(y, x) and mask.all()), f"{what}: a copy, mask all true")


def group_multinomial(c):
    logits = np.array([[0.0, 1.0, 2.0, -1.0, 0.5], [3.0, -2.0, 0.0, 0.0, -30.0],
                       [-5.0, -5.0, -5.0, -5.0, -5.0], [10.0, 9.0, -1.0, 0.0, 8.5]])
    samples = N // logits.shape[0]
    for k, (in_t, out_attr, out_t) in enumerate(((np.float32, None, np.int32),
                                                 (np.float64, TensorProto.INT64, np.int64),
                                                 (np.float16, TensorProto.INT32, np.int32))):
        x = logits.astype(in_t)
        kw = {} if out_attr is None else {"dtype": out_attr}
        node = helper.make_node("Multinomial", ["x"], ["y"], sample_size=samples,
                                seed=float(20 + k), **kw)
        (y,) = c.draw(f"multinomial_{k}", [node], [("x", x)],
                      [("y", ELEM[out_t], [x.shape[0], samples])], opset=7)
        what = f"Multinomial {np.dtype(in_t)} -> {np.dtype(out_t)}"
        c.typed(y, out_t, (x.shape[0], samples), what)
        c.check(bool(np.all((y >= 0) & (y < x.shape[1]))), f"{what}: classes in [0, 5)")
        xs = x.astype(np.float64)
        prob = np.exp(xs - xs.max(axis=1, keepdims=True))
        prob /= prob.sum(axis=1, keepdims=True)
        for r in range(x.shape[0]):
            freq = np.bincount(y[r], minlength=x.shape[1]) / samples
            for j in range(x.shape[1]):
                p = prob[r, j]
                c.near(freq[j], p, np.sqrt(p * (1 - p) / samples), f"{what}: row {r} class {j}")


def group_determinism(c):
    shape = [N]
    uni = lambda **kw: helper.make_node("RandomUniform", [], ["y"], shape=shape, **kw)  # noqa
    lib = c.compile(c.model("seeded", [uni(seed=42.0)], [], [("y", TensorProto.FLOAT, shape)]))
    runs = [c.run(lib, threads=t, tag=f"t{t}_{i}")[0] for i, t in enumerate((1, 2, 4, 2))]
    c.check(all(np.array_equal(runs[0], r) for r in runs[1:]),
            "seeded RandomUniform: equal over 4 runs at 1, 2, 4, 2 threads")
    lib2 = c.compile(c.model("seeded_again", [uni(seed=42.0)], [],
                             [("y", TensorProto.FLOAT, shape)]))
    c.check(np.array_equal(c.run(lib2)[0], runs[0]), "seeded: equal after recompiling")
    lib3 = c.compile(c.model("seeded_other", [uni(seed=43.0)], [],
                             [("y", TensorProto.FLOAT, shape)]))
    c.check(np.mean(c.run(lib3)[0] == runs[0]) < 0.01, "another seed draws other values")
    # Not foldable: an unseeded RandomUniform (no inputs) draws new values on every run.
    lib = c.compile(c.model("unseeded", [uni()], [], [("y", TensorProto.FLOAT, shape)]))
    a, b = c.run(lib, tag="a")[0], c.run(lib, tag="b")[0]
    c.check(np.mean(a == b) < 0.01, f"unseeded RandomUniform: runs differ ({np.mean(a == b):.4f}"
            " of the elements equal)")
    uniform_stats(c, a, 0.0, 1.0, "unseeded RandomUniform")
    x = np.full((1000,), 0.5, np.float32)
    lib = c.compile(c.model("unseeded_bernoulli", [helper.make_node("Bernoulli", ["p"], ["y"])],
                            [("p", x)], [("y", TensorProto.FLOAT, x.shape)], opset=15))
    a, b = c.run(lib, tag="a")[0], c.run(lib, tag="b")[0]
    c.check(not np.array_equal(a, b), "unseeded Bernoulli: runs differ")
    # Two nodes with one seed: different streams (the node's index is part of the key), each
    # reproducible.
    nodes = [helper.make_node("RandomNormal", [], ["y0"], shape=shape, seed=7.0),
             helper.make_node("RandomNormal", [], ["y1"], shape=shape, seed=7.0)]
    outs = [("y0", TensorProto.FLOAT, shape), ("y1", TensorProto.FLOAT, shape)]
    lib = c.compile(c.model("two_nodes", nodes, [], outs))
    r1, r2 = c.run(lib, threads=1, tag="a"), c.run(lib, threads=3, tag="b")
    c.check(np.mean(r1[0] == r1[1]) < 0.01, "two nodes with one seed draw different values")
    c.check(all(np.array_equal(p, q) for p, q in zip(r1, r2)),
            "two seeded nodes: equal at 1 and 3 threads")
    # A node in a Loop body and a top-level node, both node #0 of their graph, one seed: the
    # stream comes from the output's name (unique in the model), not the index in its graph.
    small = [1000]
    body = helper.make_graph(
        [helper.make_node("RandomUniform", [], ["u"], shape=small, seed=9.0),
         helper.make_node("Identity", ["c"], ["c_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("u", TensorProto.FLOAT, small)])
    const = lambda name, v: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(np.array(v), name))
    nodes = [helper.make_node("RandomUniform", [], ["top"], shape=small, seed=9.0),
             const("m", np.int64(1)), const("t", np.bool_(True)),
             helper.make_node("Loop", ["m", "t"], ["us"], body=body)]
    outs = [("top", TensorProto.FLOAT, small), ("us", TensorProto.FLOAT, [1] + small)]
    top, us = c.run(c.compile(c.model("body_node", nodes, [], outs)))
    c.check(np.mean(top == us[0]) < 0.01, "a body node and a top-level node with one seed and "
            "one index in their graphs draw different values")
    c.check(abs(np.corrcoef(r1[0], r1[1])[0, 1]) < SIGMAS / np.sqrt(N),
            "two seeded nodes: uncorrelated")


ERRORS = [
    ("bad_dtype", helper.make_node("RandomUniform", [], ["y"], shape=[3], dtype=TensorProto.INT32),
     [], r"node 'n' \(RandomUniform, #0\): output dtype int32 is not supported"),
    ("negative_shape", helper.make_node("RandomNormal", [], ["y"], shape=[3, -1]), [],
     r"node 'n' \(RandomNormal, #0\): attribute 'shape' = 3x-1 has a negative dim"),
    ("like_int_no_dtype", helper.make_node("RandomNormalLike", ["x"], ["y"]),
     [("x", np.zeros(3, np.int32))], r"\(RandomNormalLike, #0\): output dtype int32"),
    ("multinomial_rank", helper.make_node("Multinomial", ["x"], ["y"]),
     [("x", np.zeros((2, 3, 4), np.float32))], r"\(Multinomial, #0\): input must be 2-D"),
    ("multinomial_samples", helper.make_node("Multinomial", ["x"], ["y"], sample_size=0),
     [("x", np.zeros((2, 3), np.float32))], r"'sample_size' = 0 must be at least 1"),
    ("multinomial_dtype", helper.make_node("Multinomial", ["x"], ["y"], dtype=TensorProto.FLOAT),
     [("x", np.zeros((2, 3), np.float32))], r"output dtype float is not supported"),
    ("bernoulli_int_input", helper.make_node("Bernoulli", ["x"], ["y"]),
     [("x", np.zeros(3, np.int32))], r"\(Bernoulli, #0\): input dtype int32 is not supported"),
]


def group_errors(c):
    for name, node, inputs, pattern in ERRORS:
        node.name = "n"
        path = c.model(f"error_{name}", [node], inputs, [("y", TensorProto.UNDEFINED, None)],
                       opset=15)
        proc = subprocess.run([c.onnxc, "compile", path, "-o",
                               os.path.join(os.path.dirname(path), "libm.so")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, errors="replace")
        ok = proc.returncode == 1 and "onnxc: error:" in proc.stdout and re.search(
            pattern, proc.stdout)
        c.check(bool(ok), f"error {name}: exit {proc.returncode}: {proc.stdout.strip()[:300]}")


GROUPS = {"uniform": group_uniform, "normal": group_normal, "bernoulli": group_bernoulli,
          "multinomial": group_multinomial, "dropout": group_dropout,
          "determinism": group_determinism,
          "errors": group_errors}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("work")
    p.add_argument("--onnxc", required=True)
    p.add_argument("--group", required=True, choices=sorted(GROUPS))
    args = p.parse_args()
    c = Checker(os.path.join(args.work, args.group), args.onnxc)
    GROUPS[args.group](c)
    if c.failures:
        print(f"{len(c.failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
