#!/usr/bin/env python3
"""Writes the run-time dims test models: OUT_DIR/<case>/{model.onnx, case.json, shape_*/}.

Each model has symbolic input dims (dim_param) and is built the way exporters write dynamic axes
(Shape -> Gather -> Unsqueeze -> Concat -> Reshape, a position table sliced to the sequence
length). For every shape in case.json, shape_<i>/ holds the inputs and a float64 numpy
reference computed here, independently of onnxc. check_runtime_dims.py compiles each model once
and runs it at all the shapes.

  make_models.py OUT_DIR
"""
import json
import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

RNG = np.random.default_rng(11)
F, I64 = TensorProto.FLOAT, TensorProto.INT64


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def const(self, arr, dtype=np.float32):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=dtype), name))
        return name

    def op(self, op_type, inputs, n_out=1, **attrs):
        outs = [f"t{self.n + i}" for i in range(n_out)]
        self.n += n_out
        self.nodes.append(helper.make_node(op_type, inputs, outs, **attrs))
        return outs[0] if n_out == 1 else outs

    def dim(self, x, k):
        """Shape(x)[k] as a 1-element int64 tensor (Shape -> Gather -> Unsqueeze)."""
        s = self.op("Gather", [self.op("Shape", [x]), self.const(k, np.int64)], axis=0)
        return self.op("Unsqueeze", [s, self.const([0], np.int64)])

    def reshape(self, x, parts):
        """Reshape to Concat(parts): each part an int list (constant) or a dim() value."""
        ins = [p if isinstance(p, str) else self.const(p, np.int64) for p in parts]
        return self.op("Reshape", [x, self.op("Concat", ins, axis=0)])


def layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5) * g + b


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def encoder(causal):
    """BERT-style (post-LN, erf GELU) or GPT-style (causal mask, pre-LN) encoder over token ids
    [batch, seq]: 2 layers, hidden 32, 4 heads, position table of 64."""
    V, P, H, NH, L = 50, 64, 32, 4, 2
    D = H // NH
    w = {"tok": RNG.normal(0, 1, (V, H)), "pos": RNG.normal(0, 0.1, (P, H))}
    for l in range(L):
        w[f"qkv{l}"] = RNG.normal(0, H ** -0.5, (H, 3 * H))
        w[f"qkvb{l}"] = RNG.normal(0, 0.1, 3 * H)
        w[f"o{l}"] = RNG.normal(0, H ** -0.5, (H, H))
        w[f"ob{l}"] = RNG.normal(0, 0.1, H)
        w[f"f1{l}"] = RNG.normal(0, H ** -0.5, (H, 4 * H))
        w[f"f1b{l}"] = RNG.normal(0, 0.1, 4 * H)
        w[f"f2{l}"] = RNG.normal(0, (4 * H) ** -0.5, (4 * H, H))
        w[f"f2b{l}"] = RNG.normal(0, 0.1, H)
        for k in ("1", "2"):
            w[f"g{k}{l}"] = 1 + RNG.normal(0, 0.1, H)
            w[f"b{k}{l}"] = RNG.normal(0, 0.1, H)
    w = {k: v.astype(np.float32) for k, v in w.items()}

    g = Graph()
    c = {k: g.const(v) for k, v in w.items()}
    seq = g.dim("ids", 1)
    batch = g.dim("ids", 0)
    x = g.op("Gather", [c["tok"], "ids"], axis=0)
    pos = g.op("Slice", [c["pos"], g.const([0], np.int64), seq, g.const([0], np.int64)])
    x = g.op("Add", [x, pos])
    mask = None
    if causal:  # masked_fill(~tril[:s, :s], -inf) as torch exports it: Slice, Not, Where
        tri = np.tril(np.ones((P, P), bool))
        m = g.op("Slice", [g.const(tri, bool), g.const([0, 0], np.int64),
                           g.op("Concat", [seq, seq], axis=0), g.const([0, 1], np.int64)])
        mask = g.op("Not", [m])

    def ln(t, l, k):
        return g.op("LayerNormalization", [t, c[f"g{k}{l}"], c[f"b{k}{l}"]], axis=-1,
                    epsilon=1e-5)

    for l in range(L):
        h_in = ln(x, l, "1") if causal else x
        qkv = g.op("Add", [g.op("MatMul", [h_in, c[f"qkv{l}"]]), c[f"qkvb{l}"]])
        qkv = g.reshape(qkv, [batch, seq, [3, NH, D]])
        qkv = g.op("Transpose", [qkv], perm=[2, 0, 3, 1, 4])
        q, k, v = [g.op("Squeeze", [t, g.const([0], np.int64)])
                   for t in g.op("Split", [qkv], n_out=3, axis=0)]
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        s = g.op("Div", [g.op("MatMul", [q, kt]), g.const(math.sqrt(D))])
        if mask:
            s = g.op("Where", [mask, g.const(-np.inf), s])
        a = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
        a = g.reshape(g.op("Transpose", [a], perm=[0, 2, 1, 3]), [batch, seq, [H]])
        a = g.op("Add", [g.op("MatMul", [a, c[f"o{l}"]]), c[f"ob{l}"]])
        x = g.op("Add", [x, a]) if causal else ln(g.op("Add", [x, a]), l, "1")
        h_in = ln(x, l, "2") if causal else x
        f = g.op("Add", [g.op("MatMul", [h_in, c[f"f1{l}"]]), c[f"f1b{l}"]])
        f = g.op("Mul", [g.op("Mul", [f, g.op("Add", [g.op("Erf", [
            g.op("Div", [f, g.const(math.sqrt(2))])]), g.const(1.0)])]), g.const(0.5)])
        f = g.op("Add", [g.op("MatMul", [f, c[f"f2{l}"]]), c[f"f2b{l}"]])
        x = g.op("Add", [x, f]) if causal else ln(g.op("Add", [x, f]), l, "2")
    g.nodes.append(helper.make_node("Identity", [x], ["y"]))

    def ref(ids):
        wd = {k: v.astype(np.float64) for k, v in w.items()}
        b, s = ids.shape
        x = wd["tok"][ids] + wd["pos"][:s]
        for l in range(L):
            h = layer_norm(x, wd[f"g1{l}"], wd[f"b1{l}"]) if causal else x
            qkv = (h @ wd[f"qkv{l}"] + wd[f"qkvb{l}"]).reshape(b, s, 3, NH, D)
            q, k, v = qkv.transpose(2, 0, 3, 1, 4)
            sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D)
            if causal:
                sc = np.where(np.tril(np.ones((s, s), bool)), sc, -np.inf)
            a = (softmax(sc) @ v).transpose(0, 2, 1, 3).reshape(b, s, H)
            a = a @ wd[f"o{l}"] + wd[f"ob{l}"]
            x = x + a if causal else layer_norm(x + a, wd[f"g1{l}"], wd[f"b1{l}"])
            h = layer_norm(x, wd[f"g2{l}"], wd[f"b2{l}"]) if causal else x
            f = gelu(h @ wd[f"f1{l}"] + wd[f"f1b{l}"]) @ wd[f"f2{l}"] + wd[f"f2b{l}"]
            x = x + f if causal else layer_norm(x + f, wd[f"g2{l}"], wd[f"b2{l}"])
        return [x]

    inputs = [helper.make_tensor_value_info("ids", I64, ["batch", "seq"])]
    outputs = [helper.make_tensor_value_info("y", F, ["batch", "seq", H])]
    make_input = lambda shape: [RNG.integers(0, V, shape).astype(np.int64)]
    return g, inputs, outputs, ref, make_input


def conv_over_sequence():
    """Conv1d + Relu over a run-time length (output y: [1, 6, len]), then MaxPool by 2 and the
    mean over what is left (output mean: [1, 6]); len/2 is a dim of an intermediate only."""
    wt = RNG.normal(0, 0.5, (6, 4, 3)).astype(np.float32)
    bias = RNG.normal(0, 0.1, 6).astype(np.float32)
    g = Graph()
    g.nodes.append(helper.make_node("Conv", ["x", g.const(wt), g.const(bias)], ["conv"],
                                    pads=[1, 1]))
    g.nodes.append(helper.make_node("Relu", ["conv"], ["y"]))
    p = g.op("MaxPool", ["y"], kernel_shape=[2], strides=[2])
    g.nodes.append(helper.make_node("ReduceMean", [p], ["mean"], axes=[2], keepdims=0))

    def ref(x):
        x = x.astype(np.float64)
        n = x.shape[2]
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
        conv = sum(np.einsum("bcl,mc->bml", xp[:, :, k:k + n], wt[:, :, k]) for k in range(3))
        r = np.maximum(conv + bias.reshape(1, -1, 1), 0)
        p = r[:, :, :n // 2 * 2].reshape(r.shape[0], 6, n // 2, 2).max(-1)
        return [r, p.mean(-1)]

    inputs = [helper.make_tensor_value_info("x", F, [1, 4, "len"])]
    outputs = [helper.make_tensor_value_info("y", F, [1, 6, "len"]),
               helper.make_tensor_value_info("mean", F, [1, 6])]
    make_input = lambda shape: [RNG.normal(0, 1, shape).astype(np.float32)]
    return g, inputs, outputs, ref, make_input


def mixed_batch():
    """A batch that cannot run per sample (a Softmax across it, a MatMul contracting it): it
    becomes the run-time extent. x: [n, 8] -> softmax(x, axis 0)^T x."""
    g = Graph()
    p = g.op("Softmax", ["x"], axis=0)
    g.nodes.append(helper.make_node("MatMul", [g.op("Transpose", [p], perm=[1, 0]), "x"], ["y"]))

    def ref(x):
        x = x.astype(np.float64)
        e = np.exp(x - x.max(0, keepdims=True))
        return [(e / e.sum(0, keepdims=True)).T @ x]

    inputs = [helper.make_tensor_value_info("x", F, ["n", 8])]
    outputs = [helper.make_tensor_value_info("y", F, [8, 8])]
    make_input = lambda shape: [RNG.normal(0, 1, shape).astype(np.float32)]
    return g, inputs, outputs, ref, make_input


def cnn_classifier():
    """A small CNN with a classifier (Conv, Relu, Flatten, Gemm) and a run-time batch: run one
    sample at a time (its classifier is a thin product, but the convolutions are the work: no
    chunks of samples; runtime_dims.cnn_classifier_per_sample checks the compile report)."""
    g = Graph()
    w = RNG.normal(0, 0.3, (4, 3, 3, 3)).astype(np.float32)
    fc = RNG.normal(0, 0.1, (4 * 6 * 6, 10)).astype(np.float32)
    c = g.op("Relu", [g.op("Conv", ["x", g.const(w)], pads=[1, 1, 1, 1])])
    g.nodes.append(helper.make_node("Gemm", [g.op("Flatten", [c]), g.const(fc)], ["y"]))

    def ref(x):
        x = x.astype(np.float64)
        n = x.shape[0]
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        out = np.zeros((n, 4, 6, 6))
        for i in range(6):
            for j in range(6):
                out[:, :, i, j] = np.einsum("ncij,ocij->no", xp[:, :, i:i + 3, j:j + 3], w)
        return [np.maximum(out, 0).reshape(n, -1) @ fc.astype(np.float64)]

    inputs = [helper.make_tensor_value_info("x", F, ["n", 3, 6, 6])]
    outputs = [helper.make_tensor_value_info("y", F, ["n", 10])]
    make_input = lambda shape: [RNG.normal(0, 1, shape).astype(np.float32)]
    return g, inputs, outputs, ref, make_input


def nms_reference(boxes, scores, max_out, iou, score_threshold):
    """ONNX NonMaxSuppression with center_point_box=1 in float64: per batch and class, boxes by
    descending score (ties by index) above the threshold, each kept unless its IoU with a kept
    one exceeds iou, at most max_out; the [batch, class, box] triples in that order."""
    corners = np.concatenate([boxes[..., :2] - boxes[..., 2:] / 2,
                              boxes[..., :2] + boxes[..., 2:] / 2], -1).astype(np.float64)
    out = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            order = [i for i in np.argsort(-s, kind="stable") if s[i] > score_threshold]
            kept = []
            for i in order:
                if len(kept) >= max_out:
                    break
                ok = True
                for j in kept:
                    lo = np.maximum(corners[b, i, :2], corners[b, j, :2])
                    hi = np.minimum(corners[b, i, 2:], corners[b, j, 2:])
                    inter = np.prod(np.maximum(hi - lo, 0))
                    area = lambda k: np.prod(corners[b, k, 2:] - corners[b, k, :2])
                    union = area(i) + area(j) - inter
                    if inter > 0 and union > 0 and inter / union > iou:
                        ok = False
                        break
                if ok:
                    kept.append(i)
                    out.append([b, c, i])
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def detector_nms():
    """A single-shot detector: two strided convs, a 1x1 head giving per-cell box deltas and two
    class scores over an 8x8 anchor grid, boxes decoded around the anchors, then
    NonMaxSuppression (at most 5 boxes per class, IoU 0.5, the score threshold an input) and the
    kept boxes, scores and classes gathered as torchvision's export does. Outputs have the
    run-time count of kept boxes (0 when the threshold is above every score)."""
    w1 = RNG.normal(0, 0.4, (8, 3, 3, 3)).astype(np.float32)
    w2 = RNG.normal(0, 0.2, (8, 8, 3, 3)).astype(np.float32)
    wh = RNG.normal(0, 0.5, (6, 8, 1, 1)).astype(np.float32)
    cy, cx = np.meshgrid((np.arange(8) + 0.5) / 8, (np.arange(8) + 0.5) / 8, indexing="ij")
    anchors = np.stack([cx.ravel(), cy.ravel(), np.full(64, 0.25), np.full(64, 0.25)],
                       -1).astype(np.float32)[None]  # [1, 64, 4]: cx, cy, w, h
    g = Graph()
    h = g.op("Relu", [g.op("Conv", ["x", g.const(w1)], pads=[1, 1, 1, 1], strides=[2, 2])])
    h = g.op("Relu", [g.op("Conv", [h, g.const(w2)], pads=[1, 1, 1, 1], strides=[2, 2])])
    head = g.op("Transpose", [g.reshape(g.op("Conv", [h, g.const(wh)]), [[1, 6, 64]])],
                perm=[0, 2, 1])  # [1, 64, 6]
    sl = lambda x, a, b: g.op("Slice", [x, g.const([a], np.int64), g.const([b], np.int64),
                                        g.const([2], np.int64)])
    boxes = g.op("Add", [g.const(anchors), g.op("Mul", [sl(head, 0, 4), g.const(0.05)])])
    scores = g.op("Transpose", [g.op("Sigmoid", [sl(head, 4, 6)])], perm=[0, 2, 1])  # [1,2,64]
    sel = g.op("NonMaxSuppression", [boxes, scores, g.const([5], np.int64), g.const([0.5]),
                                     "score_threshold"], center_point_box=1)
    col = lambda k: g.op("Squeeze", [g.op("Gather", [sel, g.const([k], np.int64)], axis=1),
                                     g.const([1], np.int64)])
    box_idx, cls = col(2), col(1)
    g.nodes.append(helper.make_node("Gather", [g.op("Squeeze", [boxes, g.const([0], np.int64)]),
                                               box_idx], ["det_boxes"], axis=0))
    g.nodes.append(helper.make_node("GatherND", [scores, sel], ["det_scores"]))
    g.nodes.append(helper.make_node("Identity", [cls], ["det_classes"]))

    def conv(x, w, stride, pad):
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        k = w.shape[2]
        n = (xp.shape[2] - k) // stride + 1
        out = np.zeros((x.shape[0], w.shape[0], n, n))
        for i in range(k):
            for j in range(k):
                patch = xp[:, :, i:i + stride * n:stride, j:j + stride * n:stride]
                out += np.einsum("bchw,mc->bmhw", patch, w[:, :, i, j])
        return out

    def ref(x, thr):
        x = x.astype(np.float64)
        h = np.maximum(conv(x, w1, 2, 1), 0)
        h = np.maximum(conv(h, w2, 2, 1), 0)
        head = conv(h, wh, 1, 0).reshape(1, 6, 64).transpose(0, 2, 1)
        bx = anchors + head[..., :4] * 0.05
        sc = (1 / (1 + np.exp(-head[..., 4:]))).transpose(0, 2, 1)
        sel = nms_reference(bx, sc, 5, 0.5, float(thr[0]))
        return [bx[0, sel[:, 2]], sc[sel[:, 0], sel[:, 1], sel[:, 2]], sel[:, 1]]

    inputs = [helper.make_tensor_value_info("x", F, [1, 3, 32, 32]),
              helper.make_tensor_value_info("score_threshold", F, [1])]
    outputs = [helper.make_tensor_value_info("det_boxes", F, ["n", 4]),
               helper.make_tensor_value_info("det_scores", F, ["n"]),
               helper.make_tensor_value_info("det_classes", I64, ["n"])]
    # "shapes" here are score thresholds: many boxes, a few, none.
    make_input = lambda thr: [RNG.normal(0, 1, (1, 3, 32, 32)).astype(np.float32),
                              np.array([thr], np.float32)]
    return g, inputs, outputs, ref, make_input


def topk_runtime_k():
    """TopK with K an input: values and indices of the K largest of each row of x [3, 6],
    K = 4, 1, 6 and 0 (a run-time count, 0 included)."""
    g = Graph()
    g.nodes.append(helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=1))

    def ref(x, k):
        order = np.argsort(-x.astype(np.float64), axis=1, kind="stable")[:, :int(k[0])]
        return [np.take_along_axis(x, order, 1), order]

    inputs = [helper.make_tensor_value_info("x", F, [3, 6]),
              helper.make_tensor_value_info("k", I64, [1])]
    outputs = [helper.make_tensor_value_info("values", F, [3, "k"]),
               helper.make_tensor_value_info("indices", I64, [3, "k"])]
    make_input = lambda k: [RNG.permutation(18).reshape(3, 6).astype(np.float32),
                            np.array([k], np.int64)]
    return g, inputs, outputs, ref, make_input


def reduce_runtime_axes():
    """An L2 norm over axes given at run time, written out the way ReduceL2's function body
    is (Mul, ReduceSum, Cast, Sqrt, CastLike) plus a scale and a Relu: the ReduceSum's output is
    shaped by the run and the element-wise ops after it take that shape (Value::run_time_bounded).
    y = 0.5 * sqrt(sum(x*x, axes)) with keepdims=0, x [3, 4, 5]; "shapes" are the axes."""
    g = Graph()
    sq = g.op("Mul", ["x", "x"])
    s = g.op("ReduceSum", [sq, "axes"], keepdims=0)
    d = g.op("Sqrt", [g.op("Cast", [s], to=TensorProto.DOUBLE)])
    h = g.op("Mul", [d, g.const(0.5, np.float64)])
    g.nodes.append(helper.make_node("CastLike", [g.op("Relu", [h]), "x"], ["y"]))

    def ref(x, axes):
        r = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=tuple(int(a) for a in axes)))
        return [0.5 * r]

    inputs = [helper.make_tensor_value_info("x", F, [3, 4, 5]),
              helper.make_tensor_value_info("axes", I64, [2])]
    outputs = [helper.make_tensor_value_info("y", F, None)]
    make_input = lambda axes: [RNG.normal(0, 1, (3, 4, 5)).astype(np.float32),
                               np.array(axes, np.int64)]
    return g, inputs, outputs, ref, make_input


def range_followers():
    """A window function written out the way HannWindow's function body is: Range(0, n) (its
    length decided by a run-time value, with no bound: its data lives in run-scoped memory,
    Value::run_time_data) followed by element-wise ops with run-time single values and with each
    other, a Cast to double, the Range itself as an output too, and an int64 Range squared.
    "shapes" are the values of n (0, 1 and one large enough for the parallel paths)."""
    g = Graph()
    r = g.op("Range", [g.const(0.0), g.op("Cast", ["n"], to=TensorProto.FLOAT), g.const(1.0)])
    g.nodes.append(helper.make_node("Identity", [r], ["r"]))
    a = g.op("Mul", [r, "scale"])
    t = g.op("Sub", [g.const(1.0), g.op("Cos", [a])])
    g.nodes.append(helper.make_node("Cast", [g.op("Add", [t, a])], ["y"], to=TensorProto.DOUBLE))
    k = g.op("Range", [g.const(-2, np.int64), "n", g.const(1, np.int64)])
    g.nodes.append(helper.make_node("Mul", [k, k], ["z"]))

    def ref(n, scale):
        rr = np.arange(0, float(n), 1.0, dtype=np.float64)
        aa = (rr.astype(np.float32) * np.float32(scale[0])).astype(np.float64)
        kk = np.arange(-2, int(n), 1, dtype=np.int64)
        return [rr.astype(np.float32), (1 - np.cos(aa) + aa).astype(np.float64), kk * kk]

    inputs = [helper.make_tensor_value_info("n", I64, []),
              helper.make_tensor_value_info("scale", F, [1])]
    outputs = [helper.make_tensor_value_info("r", F, None),
               helper.make_tensor_value_info("y", TensorProto.DOUBLE, None),
               helper.make_tensor_value_info("z", I64, None)]
    make_input = lambda n: [np.array(n, np.int64), np.array([0.01], np.float32)]
    return g, inputs, outputs, ref, make_input


def pad_shape_slice():
    """CenterCropPad's function body, generalised: x [4, 5] padded by pads given at run time (a
    value with no bound, its data in run-scoped memory), its Shape and Size read from the run,
    a centred Slice of it with starts/ends computed from that Shape, then a Relu; plus the Shape
    of a Reshape to a run-time shape (a bounded value) and a Slice of it (which reports its own
    shape: no ShapeCopy of its input's). "shapes" are the pads."""
    g = Graph()
    p = g.op("Pad", ["x", "pads"])
    sh = g.op("Shape", [p])
    g.nodes.append(helper.make_node("Size", [p], ["size"]))
    start = g.op("Div", [g.op("Sub", [sh, "want"]), g.const([2, 2], np.int64)])
    sl = g.op("Slice", [p, start, g.op("Add", [start, "want"])])
    g.nodes.append(helper.make_node("Relu", [sl], ["y"]))
    r = g.op("Reshape", ["x", g.op("Concat", [g.const([-1], np.int64), "cols"], axis=0)])
    g.nodes.append(helper.make_node("Shape", [r], ["rshape"]))
    g.nodes.append(helper.make_node("Slice", [r, g.const([1], np.int64), g.const([3], np.int64),
                                              g.const([0], np.int64)], ["rows"]))

    def ref(x, pads, want, cols):
        pp = np.pad(x, [(max(pads[0], 0), max(pads[2], 0)), (max(pads[1], 0), max(pads[3], 0))])
        pp = pp[-min(pads[0], 0):pp.shape[0] + min(pads[2], 0),
                -min(pads[1], 0):pp.shape[1] + min(pads[3], 0)]  # negative pads crop
        st = (np.array(pp.shape) - want) // 2
        return [np.maximum(pp[st[0]:st[0] + want[0], st[1]:st[1] + want[1]], 0),
                np.array(pp.size, np.int64), np.array([20 // cols[0], cols[0]], np.int64),
                x.reshape(-1, cols[0])[1:3]]

    inputs = [helper.make_tensor_value_info("x", F, [4, 5]),
              helper.make_tensor_value_info("pads", I64, [4]),
              helper.make_tensor_value_info("want", I64, [2]),
              helper.make_tensor_value_info("cols", I64, [1])]
    outputs = [helper.make_tensor_value_info("y", F, None),
               helper.make_tensor_value_info("size", I64, None),
               helper.make_tensor_value_info("rshape", I64, None),
               helper.make_tensor_value_info("rows", F, None)]
    make_input = lambda pads: [RNG.normal(0, 1, (4, 5)).astype(np.float32),
                               np.array(pads, np.int64), np.array([3, 4], np.int64),
                               np.array([pads[0] % 2 * 3 + 2], np.int64)]
    return g, inputs, outputs, ref, make_input


def slot_reuse():
    """Regression: a Range squared (values with no bound, in run-scoped memory), then a Slice with
    run-time bounds (a bounded value) whose arena slot the memory planner gives the dead Range's:
    the Slice must write in place, not where the Range's data went. "shapes" are (n, start,
    end)."""
    g = Graph()
    r = g.op("Range", [g.const(0, np.int64), "n", g.const(1, np.int64)])
    g.nodes.append(helper.make_node("Mul", [r, r], ["y"]))
    b = g.op("Slice", [g.const(np.arange(1, 9), np.float32), "s", "e"])
    g.nodes.append(helper.make_node("Neg", [b], ["z"]))

    def ref(n, s, e):
        k = np.arange(int(n), dtype=np.int64)
        return [k * k, -np.arange(1, 9, dtype=np.float32)[int(s[0]):int(e[0])]]

    inputs = [helper.make_tensor_value_info("n", I64, []),
              helper.make_tensor_value_info("s", I64, [1]),
              helper.make_tensor_value_info("e", I64, [1])]
    outputs = [helper.make_tensor_value_info("y", I64, None),
               helper.make_tensor_value_info("z", F, None)]
    make_input = lambda v: [np.array(v[0], np.int64), np.array([v[1]], np.int64),
                            np.array([v[2]], np.int64)]
    return g, inputs, outputs, ref, make_input


def run_time_grid():
    """N-D ops of values with no bound (their shapes decided by run-time values, their data in
    run-scoped memory: compiler/ops/run_time_data_ops.h), as AffineGrid's function body uses
    them: Range and ConstantOfShape of run-time sizes, broadcasting Add of two such values,
    Transpose, Unsqueeze, Concat, Reshape to [-1, 3], MatMul by a constant and by another such
    value, Sub/Div by constants of several elements, Squeeze, and int64 arithmetic. "shapes"
    are (m, n), with empty results among them."""
    g = Graph()
    one = g.const([0], np.int64)
    f32 = lambda x: g.op("Cast", [x], to=F)
    rm = f32(g.op("Range", [g.const(0, np.int64), "m", g.const(1, np.int64)]))
    rn = f32(g.op("Range", [g.const(0, np.int64), "n", g.const(1, np.int64)]))
    size = g.op("Concat", [g.op("Unsqueeze", ["m", one]), g.op("Unsqueeze", ["n", one])], axis=0)
    z = g.op("ConstantOfShape", [size],
             value=numpy_helper.from_array(np.array([0], np.float32)))
    gx = g.op("Add", [z, rn])
    gy = g.op("Transpose", [g.op("Add", [g.op("Transpose", [z], perm=[1, 0]), rm])], perm=[1, 0])
    ones = g.op("Add", [z, g.const(1.0)])
    last = g.const([-1], np.int64)
    stack = g.op("Concat", [g.op("Unsqueeze", [t, last]) for t in (gx, gy, ones)], axis=-1)
    flat = g.op("Reshape", [stack, g.const([-1, 3], np.int64)])
    w = np.array([[1.0, -2.0], [0.5, 3.0], [0.25, -1.0]], np.float32)
    proj = g.op("MatMul", [flat, g.const(w)])
    g.nodes.append(helper.make_node(
        "Div", [g.op("Sub", [proj, g.const([[1.0, 2.0]])]), g.const([2.0, 4.0])], ["y"]))
    g.nodes.append(helper.make_node("MatMul", [g.op("Transpose", [flat]), flat], ["gram"]))
    g.nodes.append(helper.make_node(
        "Squeeze", [g.op("Unsqueeze", [gx, g.const([0], np.int64)]), g.const([0], np.int64)],
        ["sq"]))
    km = g.op("Unsqueeze", [g.op("Range", [g.const(0, np.int64), "m", g.const(1, np.int64)]),
                            g.const([1], np.int64)])
    kn = g.op("Range", [g.const(0, np.int64), "n", g.const(1, np.int64)])
    g.nodes.append(helper.make_node("Mul", [g.op("Add", [km, kn]), kn], ["k"]))

    def ref(m, n):
        m, n = int(m), int(n)
        xs = np.broadcast_to(np.arange(n, dtype=np.float32), (m, n))
        ys = np.broadcast_to(np.arange(m, dtype=np.float32)[:, None], (m, n))
        st = np.stack([xs, ys, np.ones((m, n), np.float32)], axis=-1).reshape(-1, 3)
        st64 = st.astype(np.float64)
        y = (st64 @ w.astype(np.float64) - [[1.0, 2.0]]) / [2.0, 4.0]
        kk = (np.arange(m)[:, None] + np.arange(n)[None, :]) * np.arange(n)[None, :]
        return [y, st64.T @ st64, xs, kk.astype(np.int64)]

    inputs = [helper.make_tensor_value_info("m", I64, []),
              helper.make_tensor_value_info("n", I64, [])]
    outputs = [helper.make_tensor_value_info(o, t, None)
               for o, t in (("y", F), ("gram", F), ("sq", F), ("k", I64))]
    make_input = lambda v: [np.array(v[0], np.int64), np.array(v[1], np.int64)]
    return g, inputs, outputs, ref, make_input


def run_time_gather_split():
    """AffineGrid's 2-D function body, generalised: indices Expanded to [n, 2, 3] (n given at run
    time, the 2 and 3 known to the compiler through the Concat of the shape), GatherElements of
    a constant theta [3, 2, 3] by them, Split in 2 along axis 1, a Squeeze with no axes of a
    part ([n, 1, 3]: the 1 is known, n is checked not to be 1 in the run), Split by constant
    sizes, Concat of the parts reordered, and a Squeeze with axes. "shapes" are n."""
    g = Graph()
    theta = np.arange(18, dtype=np.float32).reshape(3, 2, 3) * 0.5 - 2
    idx = np.array([[0, 1, 2], [2, 0, 1]], np.int64)
    shape = g.op("Concat", ["n", g.const([2, 3], np.int64)], axis=0)
    e = g.op("Expand", [g.const(idx, np.int64), shape])
    gathered = g.op("GatherElements", [g.const(theta), e], axis=2)
    r1, r2 = g.op("Split", [gathered], n_out=2, axis=1)
    s1 = g.op("Squeeze", [r1])
    a, b, c = g.op("Split", [s1, g.const([1, 1, 1], np.int64)], n_out=3, axis=1)
    g.nodes.append(helper.make_node("Concat", [c, a, b], ["y"], axis=1))
    g.nodes.append(helper.make_node("Squeeze", [r2, g.const([1], np.int64)], ["z"]))

    def ref(n):
        k = int(n[0])
        gg = np.take_along_axis(theta[:k], np.broadcast_to(idx, (k, 2, 3)), axis=2)
        s = gg[:, 0, :]
        return [np.concatenate([s[:, 2:3], s[:, 0:1], s[:, 1:2]], axis=1), gg[:, 1, :]]

    inputs = [helper.make_tensor_value_info("n", I64, [1])]
    outputs = [helper.make_tensor_value_info("y", F, None),
               helper.make_tensor_value_info("z", F, None)]
    make_input = lambda v: [np.array([v], np.int64)]
    return g, inputs, outputs, ref, make_input


def int_div_wrap():
    """Regression: int32 Div of two values with no bound broadcast at run time, with INT32_MIN /
    -1 (which traps as a plain division: it wraps) and x / 0 (0, as onnxc's element-wise Div).
    "shapes" are the number of dividends n."""
    g = Graph()
    lo = np.iinfo(np.int32).min
    a = g.op("Range", [g.const(lo, np.int32), g.op("Add", [g.const(lo, np.int32), "n"]),
                       g.const(1, np.int32)])
    b = g.op("Range", [g.const(-1, np.int32), g.const(1, np.int32), g.const(1, np.int32)])
    g.nodes.append(helper.make_node(
        "Div", [g.op("Unsqueeze", [a, g.const([1], np.int64)]), b], ["y"]))

    def ref(n):
        av = np.arange(lo, lo + int(n), dtype=np.int64)
        return [np.stack([(-av).astype(np.int32), np.zeros_like(av, np.int32)], axis=1)]

    inputs = [helper.make_tensor_value_info("n", TensorProto.INT32, [])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.INT32, None)]
    make_input = lambda v: [np.array(v, np.int32)]
    return g, inputs, outputs, ref, make_input


def broadcast_mismatch():
    """Add of two values with no bound whose run-time shapes do not broadcast ([m] and [n]):
    the run fails naming the node and both shapes (runtime_dims.broadcast_mismatch)."""
    g = Graph()
    rm = g.op("Range", [g.const(0, np.int64), "m", g.const(1, np.int64)])
    rn = g.op("Range", [g.const(0, np.int64), "n", g.const(1, np.int64)])
    g.nodes.append(helper.make_node("Add", [rm, rn], ["y"], name="add_ranges"))
    inputs = [helper.make_tensor_value_info("m", I64, []),
              helper.make_tensor_value_info("n", I64, [])]
    outputs = [helper.make_tensor_value_info("y", I64, None)]
    make_input = lambda v: [np.array(v[0], np.int64), np.array(v[1], np.int64)]
    return g, inputs, outputs, lambda m, n: [np.zeros(1, np.int64)], make_input


def split_num_outputs():
    """Split by opset 18's num_outputs of a value with no bound (Range(0, n) times 2): 4 parts
    of ceil(n / 4), the last smaller; n = 5 would leave -1 for the last part, which ONNX's
    reference refuses: the run fails (runtime_dims.split_num_outputs_short). "shapes" are n."""
    g = Graph()
    r = g.op("Mul", [g.op("Range", [g.const(0, np.int64), "n", g.const(1, np.int64)]),
                     g.const(2, np.int64)])
    g.nodes.append(helper.make_node("Split", [r], ["y0", "y1", "y2", "y3"], axis=0,
                                    num_outputs=4, name="split4"))

    def ref(n):
        v, c = np.arange(int(n), dtype=np.int64) * 2, -(-int(n) // 4)
        return [v[i * c:(i + 1) * c] for i in range(4)]

    inputs = [helper.make_tensor_value_info("n", I64, [])]
    outputs = [helper.make_tensor_value_info(f"y{i}", I64, None) for i in range(4)]
    return g, inputs, outputs, ref, lambda v: [np.array(v, np.int64)]


def shape_of_slice_extent():
    """Regression: with a run-time dim (lower-extent's path), the Shape of a Slice with run-time
    bounds reads the Slice's shape from the run. Input 0 is [2, N]; the bounds follow N."""
    g = Graph()
    g.nodes.append(helper.make_node("Relu", ["x"], ["y"]))
    b = g.op("Slice", [g.const(np.arange(1, 9), np.float32), "s", "e"])
    g.nodes.append(helper.make_node("Shape", [b], ["sh"]))

    def ref(x, s, e):
        return [np.maximum(x, 0), np.array([min(int(e[0]), 8) - int(s[0])], np.int64)]

    inputs = [helper.make_tensor_value_info("x", F, [2, "N"]),
              helper.make_tensor_value_info("s", I64, [1]),
              helper.make_tensor_value_info("e", I64, [1])]
    outputs = [helper.make_tensor_value_info("y", F, [2, "N"]),
               helper.make_tensor_value_info("sh", I64, [1])]
    make_input = lambda shape: [RNG.normal(0, 1, shape).astype(np.float32),
                                np.array([shape[1] % 3], np.int64),
                                np.array([shape[1] + 2], np.int64)]
    return g, inputs, outputs, ref, make_input


def half_slice_relu():
    """Regression: a float16 Slice with run-time bounds, then a Relu computed in float
    (promote-half's Casts): the result keeps the run's shape. "shapes" are (start, end)."""
    g = Graph()
    b = g.op("Slice", ["x", "s", "e"])
    g.nodes.append(helper.make_node("Relu", [b], ["y"]))

    def ref(x, s, e):
        return [np.maximum(x[int(s[0]):int(e[0])], np.float16(0))]

    H = TensorProto.FLOAT16
    inputs = [helper.make_tensor_value_info("x", H, [8]),
              helper.make_tensor_value_info("s", I64, [1]),
              helper.make_tensor_value_info("e", I64, [1])]
    outputs = [helper.make_tensor_value_info("y", H, None)]
    make_input = lambda v: [np.linspace(-2, 2, 8).astype(np.float16),
                            np.array([v[0]], np.int64), np.array([v[1]], np.int64)]
    return g, inputs, outputs, ref, make_input


# name -> (builder, compile flags, shapes of input 0 to run at, specialised flags per shape)
CASES = {
    "bert_style": (lambda: encoder(False), ["--dim", "seq=1..64"],
                   [[1, 16], [2, 64], [4, 37], [1, 1], [3, 5]], ["batch", "seq"]),
    "gpt_style": (lambda: encoder(True), ["--dim", "seq=1..64"],
                  [[1, 16], [2, 3], [1, 64]], ["batch", "seq"]),
    "conv_over_sequence": (conv_over_sequence, ["--dim", "len=2..300"],
                           [[1, 4, 2], [1, 4, 3], [1, 4, 77], [1, 4, 300]], [None, None, "len"]),
    "cnn_classifier": (cnn_classifier, [], [[1, 3, 6, 6], [5, 3, 6, 6], [70, 3, 6, 6]],
                       ["n", None, None, None]),
    "mixed_batch": (mixed_batch, ["--dim", "n=1..100"], [[1, 8], [5, 8], [100, 8]], ["n", None]),
    # A run-time count: one library, no flags; what varies is the score threshold (the number
    # of boxes kept), and there is no specialised build to compare with.
    "detector_nms": (detector_nms, [], [0.3, 0.9, 0.93, 2.0], None),
    "topk_runtime_k": (topk_runtime_k, [], [4, 1, 6, 0], None),
    # Shapes decided by the run: the axes a reduction runs over (no specialised build either).
    "reduce_runtime_axes": (reduce_runtime_axes, [], [[0, 1], [2, 0], [-1, 1], [1, 2]], None),
    # Values with no bound, their data in run-scoped memory, and element-wise ops of them.
    "range_followers": (range_followers, [], [5, 0, 1, 100000, 3], None),
    "slot_reuse": (slot_reuse, [], [[5, 2, 6], [3, 0, 8], [0, 1, 2]], None),
    "half_slice_relu": (half_slice_relu, [], [[1, 5], [0, 8], [6, 2]], None),
    "shape_of_slice_extent": (shape_of_slice_extent, ["--dim", "N=1..8"],
                              [[2, 3], [2, 5], [2, 8]], [None, "N"]),
    "run_time_grid": (run_time_grid, [], [[2, 3], [1, 1], [0, 4], [5, 1], [3, 0], [40, 70]],
                      None),
    "run_time_gather_split": (run_time_gather_split, [], [2, 3, 0], None),
    "squeeze_rank_changes": (run_time_gather_split, [], [1], None),  # the run fails
    "int_div_wrap": (int_div_wrap, [], [2, 0, 5], None),
    "broadcast_mismatch": (broadcast_mismatch, [], [[2, 3]], None),  # the run fails
    "pad_shape_slice": (pad_shape_slice, [],
                        [[0, 0, 0, 0], [1, 2, 3, 4], [100, 0, 40, 700], [0, 0, -1, -1]], None),
    "split_num_outputs": (split_num_outputs, [], [8, 7, 4, 0], None),
    "split_num_outputs_short": (split_num_outputs, [], [5], None),  # the run fails
}
OPSETS = {"split_num_outputs": 18, "split_num_outputs_short": 18}  # default 17


def main(out_dir):
    for name, (build, flags, shapes, dim_names) in CASES.items():
        g, inputs, outputs, ref, make_input = build()
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        graph = helper.make_graph(g.nodes, name, inputs, outputs, g.inits)
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSETS.get(name, 17))]),
             os.path.join(d, "model.onnx"))
        for i, shape in enumerate(shapes):
            sd = os.path.join(d, f"shape_{i}")
            os.makedirs(sd, exist_ok=True)
            ins = make_input(shape)
            for k, (arr, info) in enumerate(zip(ins, inputs)):
                with open(os.path.join(sd, f"input_{k}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(arr, info.name).SerializeToString())
            for k, (arr, info) in enumerate(zip(ref(*ins), outputs)):
                dtype = {I64: np.int64, TensorProto.DOUBLE: np.float64,
                         TensorProto.FLOAT16: np.float16}.get(
                    info.type.tensor_type.elem_type, np.float32)
                t = numpy_helper.from_array(np.asarray(arr, dtype), info.name)
                with open(os.path.join(sd, f"output_{k}.pb"), "wb") as f:
                    f.write(t.SerializeToString())
        specialise = [[f"{n}={s}" for n, s in zip(dim_names, shape) if n] if dim_names else None
                      for shape in shapes]
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"flags": flags, "shapes": shapes, "specialise": specialise,
                       "dim_names": dim_names}, f)
        print(f"wrote {d}: {len(shapes)} shapes")


if __name__ == "__main__":
    main(sys.argv[1])
