#!/usr/bin/env python3
"""Writes the fusion test models: OUT_DIR/<case>/{model.onnx, test_data_set_0/, expect.json}.

Each case is a small graph that fold-batchnorm / fuse-gelu / fuse-bias / fuse-activation rewrite (or must leave alone).
output_0.pb is a float64 numpy reference computed here, independently of onnxc; expect.json has
the number of nodes the compiled graph must have with and without the fusion passes.

  make_fusion_models.py OUT_DIR
"""
import json
import math
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

RNG = np.random.default_rng(7)


def conv_ref(x, w, b, stride=1, pad=0, group=1):
    """2-D convolution (NCHW, OIHW), symmetric padding, by kernel taps (float64)."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * mg:(g + 1) * mg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                y[:, g * mg:(g + 1) * mg] += np.einsum("nchw,mc->nmhw", patch, ws[:, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


class Case:
    """Builds one graph: nodes, initializers, and the numpy value of each tensor."""

    def __init__(self, name, x_shape):
        self.name, self.nodes, self.inits, self.count = name, [], [], 0
        self.x = RNG.uniform(-2, 2, x_shape).astype(np.float32)
        self.val = {"x": self.x.astype(np.float64)}

    def const(self, arr):
        name = f"c{len(self.inits)}"
        arr = np.asarray(arr, dtype=np.float32)
        self.inits.append(numpy_helper.from_array(arr, name))
        self.val[name] = arr.astype(np.float64)
        return name

    def node(self, op, inputs, value, **attrs):
        self.count += 1
        out = f"t{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=f"{op.lower()}{self.count}",
                                           **attrs))
        self.val[out] = value
        return out

    def conv(self, x, m, k=3, stride=1, pad=1, group=1, bias=True):
        c = self.val[x].shape[1]
        w = self.const(RNG.uniform(-0.5, 0.5, (m, c // group, k, k)))
        b = self.const(RNG.uniform(-0.5, 0.5, m)) if bias else None
        y = conv_ref(self.val[x], self.val[w], self.val[b] if b else None, stride, pad, group)
        return self.node("Conv", [x, w] + ([b] if b else []), y, kernel_shape=[k, k],
                         strides=[stride, stride], pads=[pad] * 4, group=group)

    def batchnorm(self, x):
        c = self.val[x].shape[1]
        p = [self.const(RNG.uniform(lo, hi, c)) for lo, hi in
             [(0.5, 1.5), (-0.5, 0.5), (-0.5, 0.5), (0.2, 2)]]
        s, bb, mean, var = (self.val[n] for n in p)
        shape = (1, -1) + (1,) * (self.val[x].ndim - 2)
        y = (self.val[x] - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + 1e-3) \
            * s.reshape(shape) + bb.reshape(shape)
        return self.node("BatchNormalization", [x] + p, y, epsilon=1e-3)

    def binary(self, op, x, c):
        cv = self.const(c)
        fn = {"Mul": np.multiply, "Add": np.add}[op]
        return self.node(op, [x, cv], fn(self.val[x], self.val[cv]))

    def add_values(self, a, b):
        """Add of two computed values (a residual connection, or a broadcast)."""
        return self.node("Add", [a, b], self.val[a] + self.val[b])

    def clip(self, x, lo, hi):
        ins = [x, self.const(np.float32(lo)), self.const(np.float32(hi))]
        return self.node("Clip", ins, np.clip(self.val[x], lo, hi))

    def act(self, op, x, **attrs):
        v = self.val[x]
        ref = {"Relu": lambda: np.maximum(v, 0),
               "Sigmoid": lambda: sigmoid(v),
               "LeakyRelu": lambda: np.where(v >= 0, v, attrs.get("alpha", 0.01) * v),
               "HardSigmoid": lambda: np.clip(attrs.get("alpha", 0.2) * v +
                                              attrs.get("beta", 0.5), 0, 1),
               "HardSwish": lambda: v * np.clip(v / 6 + 0.5, 0, 1)}[op]()
        return self.node(op, [x], ref, **attrs)

    def silu(self, x):
        s = self.act("Sigmoid", x)
        return self.node("Mul", [x, s], self.val[x] * self.val[s])

    def gemm(self, x, n, trans_b=True, alpha=1.0, beta=1.0):
        k = self.val[x].shape[1]
        bm = RNG.uniform(-0.3, 0.3, (n, k) if trans_b else (k, n))
        b, c = self.const(bm), self.const(RNG.uniform(-0.5, 0.5, n))
        bv = self.val[b].T if trans_b else self.val[b]
        y = alpha * self.val[x] @ bv + beta * self.val[c]
        return self.node("Gemm", [x, b, c], y, transB=int(trans_b), alpha=alpha, beta=beta)

    def matmul(self, x, n):
        b = self.const(RNG.uniform(-0.3, 0.3, (self.val[x].shape[-1], n)))
        return self.node("MatMul", [x, b], self.val[x] @ self.val[b])

    def attention_scores(self, x, scale_op, s):
        """x Transpose(x) (a Q K^T), then scale_op by the scalar s, then Softmax."""
        t = self.node("Transpose", [x], np.swapaxes(self.val[x], -1, -2), perm=[0, 2, 1])
        mm = self.node("MatMul", [x, t], self.val[x] @ self.val[t])
        sc = self.scalar_op(scale_op, mm, s)
        e = np.exp(self.val[sc] - self.val[sc].max(axis=-1, keepdims=True))
        return self.node("Softmax", [sc], e / e.sum(axis=-1, keepdims=True), axis=-1)

    def masked_attention(self, x, cond, inf_first, s=0.25):
        """Softmax(Where(cond, -inf, x x^T * s)) x (inf_first; else Where(cond, scores, -inf)):
        a decoder's masked attention on Q = K = V = x, cond a constant bool [L, L] (or with
        leading 1s)."""
        t = self.node("Transpose", [x], np.swapaxes(self.val[x], -1, -2), perm=[0, 2, 1])
        mm = self.scalar_op("Mul", self.node("MatMul", [x, t], self.val[x] @ self.val[t]), s)
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(cond, dtype=bool), name))
        ninf = self.const(np.float32(-np.inf))
        masked = np.asarray(cond, dtype=bool) if inf_first else ~np.asarray(cond, dtype=bool)
        sv = np.where(masked, -np.inf, self.val[mm])
        w = self.node("Where", [name, ninf, mm] if inf_first else [name, mm, ninf], sv)
        e = np.exp(sv - sv.max(axis=-1, keepdims=True))
        p = self.node("Softmax", [w], e / e.sum(axis=-1, keepdims=True), axis=-1)
        return self.node("MatMul", [p, x], self.val[p] @ self.val[x])

    def matmul_t(self, a, b, perm):
        """MatMul(a, Transpose(b, perm))."""
        t = self.node("Transpose", [b], np.transpose(self.val[b], perm), perm=perm)
        return self.node("MatMul", [a, t], self.val[a] @ self.val[t])

    def bias(self, x, shape, left=False):
        """Add(x, b) (or Add(b, x)) of a constant b of `shape` (fuse-bias: N values)."""
        b = self.const(RNG.uniform(-0.5, 0.5, shape))
        return self.node("Add", [b, x] if left else [x, b], self.val[x] + self.val[b])

    def scalar_op(self, op, x, c, left=False):
        """op(x, c) (or op(c, x)) with a scalar constant c."""
        cv = self.const(np.float32(c))
        a, b = (self.val[cv], self.val[x]) if left else (self.val[x], self.val[cv])
        fn = {"Mul": np.multiply, "Add": np.add, "Div": np.divide, "Pow": np.power}[op]
        return self.node(op, [cv, x] if left else [x, cv], fn(a, b))

    def gelu_erf(self, x, half=0.5):
        """PyTorch's export of nn.GELU(): x * (1 + erf(x / sqrt 2)) * 0.5 (`half` other than
        0.5: not a Gelu)."""
        e = self.node("Erf", [self.scalar_op("Div", x, 1.4142135)], None)
        self.val[e] = np.vectorize(math.erf)(self.val[self.nodes[-1].input[0]])
        one = self.scalar_op("Add", e, 1.0)
        return self.scalar_op("Mul", self.node("Mul", [x, one], self.val[x] * self.val[one]), half)

    def gelu_tanh(self, x):
        """The tanh approximation as 0.5 * x * (1 + tanh(0.7978846 * (x + 0.044715 * x ** 3))),
        with a Pow (PyTorch writes x * x * x)."""
        cube = self.scalar_op("Mul", self.scalar_op("Pow", x, 3.0), 0.044715, left=True)
        inner = self.scalar_op("Mul", self.node("Add", [x, cube], self.val[x] + self.val[cube]),
                               0.7978846, left=True)
        t = self.node("Tanh", [inner], np.tanh(self.val[inner]))
        one = self.scalar_op("Add", t, 1.0, left=True)
        half = self.scalar_op("Mul", x, 0.5, left=True)
        return self.node("Mul", [half, one], self.val[half] * self.val[one])

    def concat(self, values, axis=1):
        return self.node("Concat", values, np.concatenate([self.val[v] for v in values], axis),
                         axis=axis)

    def save(self, out_dir, outputs, expect_nodes):
        d = os.path.join(out_dir, self.name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(self.x.shape))],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(self.val[o].shape))
             for o in outputs],
            self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(d, "model.onnx"))
        data = os.path.join(d, "test_data_set_0")
        tensors = [("input_0.pb", self.x, "x")] + [
            (f"output_{i}.pb", self.val[o].astype(np.float32), o) for i, o in enumerate(outputs)]
        for fname, arr, name in tensors:
            with open(os.path.join(data, fname), "wb") as f:
                f.write(numpy_helper.from_array(arr, name).SerializeToString())
        with open(os.path.join(d, "expect.json"), "w") as f:
            expect = expect_nodes if isinstance(expect_nodes, dict) else {"nodes": expect_nodes}
            json.dump(dict(expect, unfused=len(self.nodes)), f)


def build_cases():
    """(case, output names, nodes expected after fusion) for every test model."""
    cases = []

    def add(name, x_shape, body, expect):
        c = Case(name, x_shape)
        cases.append((c, body(c), expect))

    add("conv_bn_relu", (1, 3, 12, 12),
        lambda c: [c.act("Relu", c.batchnorm(c.conv("x", 8)))], 1)
    add("conv_nobias_bn_relu6", (2, 4, 11, 9),
        lambda c: [c.clip(c.batchnorm(c.conv("x", 6, stride=2, bias=False)), 0, 6)], 1)
    add("conv_mul_add_relu", (1, 4, 10, 10),
        lambda c: [c.act("Relu", c.binary("Add", c.binary("Mul", c.conv("x", 6),
                                                          RNG.uniform(0.5, 2, (6, 1, 1))),
                                          RNG.uniform(-1, 1, (1, 6, 1, 1))))], 1)
    add("conv_scalar_mul", (1, 3, 8, 8),
        lambda c: [c.binary("Mul", c.conv("x", 5, bias=False), np.float32(1.5))], 1)
    add("depthwise_bn_relu6", (1, 8, 14, 14),
        lambda c: [c.clip(c.batchnorm(c.conv("x", 8, group=8)), 0, 6)], 1)
    add("depthwise_stride2_silu", (1, 6, 15, 15),
        lambda c: [c.silu(c.batchnorm(c.conv("x", 12, stride=2, group=6, bias=False)))], 1)
    add("grouped_leaky_relu", (1, 8, 9, 9),
        lambda c: [c.act("LeakyRelu", c.conv("x", 12, group=4), alpha=0.1)], 1)
    add("pointwise_hardswish", (1, 16, 7, 7),
        lambda c: [c.act("HardSwish", c.batchnorm(c.conv("x", 24, k=1, pad=0)))], 1)
    # K = 32*3*3 = 288 > 256: the GEMM accumulates over two K blocks before the epilogue.
    add("conv_bigk_hardsigmoid", (1, 32, 10, 10),
        lambda c: [c.act("HardSigmoid", c.conv("x", 16), alpha=0.3, beta=0.4)], 1)
    add("conv_sigmoid", (1, 3, 6, 6), lambda c: [c.act("Sigmoid", c.conv("x", 4))], 1)
    add("gemm_bn_relu", (40, 300),
        lambda c: [c.act("Relu", c.batchnorm(c.gemm("x", 24, alpha=1.5, beta=0.5)))], 1)
    add("gemm_notrans_relu_small_m", (3, 20),
        lambda c: [c.act("Relu", c.gemm("x", 33, trans_b=False))], 1)
    add("matmul_silu", (2, 10, 70), lambda c: [c.silu(c.matmul("x", 20))], 1)
    # fuse-bias: MatMul + Add of N values, then the activation after both (bias before it);
    # the bias on the left, as [1, 1, N]; a product the GEMM runs transposed (N = 5 < M = 70);
    # a constant varying along the rows is not a bias and stays an Add
    add("matmul_bias_relu", (2, 10, 70), lambda c: [c.act("Relu", c.bias(c.matmul("x", 96), 96))],
        1)
    add("matmul_bias_left_3d", (1, 64, 48),
        lambda c: [c.bias(c.matmul("x", 40), (1, 1, 40), left=True)], 1)
    add("matmul_bias_transposed", (70, 30), lambda c: [c.bias(c.matmul("x", 5), 5)], 1)
    add("matmul_rows_not_bias", (2, 10, 30), lambda c: [c.bias(c.matmul("x", 20), (10, 1))], 2)
    # fuse-gelu: the exported decompositions become one Gelu, then a MatMul epilogue (after the
    # bias); on a graph input it stays a Gelu node; a chain that is not Gelu stays as it is
    add("matmul_bias_gelu_erf", (1, 20, 64),
        lambda c: [c.gelu_erf(c.bias(c.matmul("x", 96), 96))], 1)
    add("matmul_gelu_tanh", (2, 9, 30), lambda c: [c.gelu_tanh(c.matmul("x", 50))], 1)
    add("gelu_erf_alone", (3, 70), lambda c: [c.gelu_erf("x")], 1)
    add("not_gelu_kept", (3, 70), lambda c: [c.gelu_erf("x", half=0.6)], 5)
    # fuse-scale: attention's Q K^T / sqrt(d) (a product of two computed values) and a Mul by a
    # scalar before a bias and Relu become the GEMM's alpha; c / (A B) is not a scale.
    add("matmul_div_scale_softmax", (2, 10, 16),
        lambda c: [c.attention_scores("x", "Div", 4.0)], 2)
    # fuse-causal-mask: Where(triu(1), -inf, scores) and Where(tril, scores, -inf) (with leading
    # 1s) before the Softmax become its causal form; tril(2) keeps two keys more (off 2); a mask
    # that is not causal (a random one, and triu(-1)) stays a Where.
    L = 24
    add("causal_mask_softmax", (2, L, 16),
        lambda c: [c.masked_attention("x", np.triu(np.ones((L, L), bool), 1), True)], 3)
    add("causal_mask_keep_form", (1, L, 20),
        lambda c: [c.masked_attention("x", np.tril(np.ones((1, L, L), bool)), False)], 3)
    add("causal_mask_offset2", (2, L, 8),
        lambda c: [c.masked_attention("x", np.tril(np.ones((L, L), bool), 2), False)], 3)
    add("random_mask_kept", (2, L, 8),
        lambda c: [c.masked_attention("x", (RNG.uniform(size=(L, L)) < 0.3) & ~np.eye(L, dtype=bool),
                                      True)],
        4)
    add("anticausal_mask_kept", (1, L, 8),
        lambda c: [c.masked_attention("x", np.triu(np.ones((L, L), bool), -1), False)], 4)
    # fuse-transpose: MatMul(a, Transpose(b) of the last two axes) reads b transposed (4-D
    # heads; one row times one column: the small-M path); kept when the Transpose has a second reader or another perm.
    add("matmul_transposed_b_4d", (1, 3, 12, 20),
        lambda c: [c.matmul_t("x", c.node("Neg", ["x"], -c.val["x"]), [0, 1, 3, 2])], 2)
    add("matmul_transposed_b_one_row", (2, 1, 16),
        lambda c: [c.matmul_t("x", c.node("Relu", ["x"], np.maximum(c.val["x"], 0)), [0, 2, 1])],
        2)
    add("matmul_transpose_two_users_kept", (2, 6, 6),
        lambda c: (lambda t: [c.node("MatMul", ["x", t], c.val["x"] @ c.val[t]),
                              c.node("Relu", [t], np.maximum(c.val[t], 0))])(
            c.node("Transpose", ["x"], np.swapaxes(c.val["x"], 1, 2), perm=[0, 2, 1])), 3)
    add("matmul_transpose_other_perm_kept", (8, 8, 8),
        lambda c: [c.matmul_t("x", "x", [1, 0, 2])], 2)
    add("matmul_mul_scale_bias_relu", (2, 10, 70),
        lambda c: [c.act("Relu", c.bias(c.scalar_op("Mul", c.matmul("x", 40), 0.125), 40))], 1)
    add("matmul_scalar_over_product_kept", (3, 70),
        lambda c: [c.scalar_op("Div", c.matmul("x", 20), 2.0, left=True)], 2)
    # fuse-residual: Conv + Add(., identity) (+ Relu) is one call: Winograd (3x3, 16 channels);
    # a pointwise pair like ResNet's downsample, whose residual is computed after the Conv it
    # joins (the Conv moves to the Add); the residual on the left of a 5x5 im2col Conv over two
    # K blocks (added once). Not fused: depthwise, a broadcast operand, an activation between.
    add("conv_residual_relu", (1, 16, 12, 12),
        lambda c: [c.act("Relu", c.add_values(c.conv("x", 16), "x"))], 1)
    add("pointwise_residual_downsample", (1, 8, 9, 9),
        lambda c: (lambda a: [c.act("Relu", c.add_values(a, c.conv("x", 16, k=1, pad=0)))])(
            c.conv("x", 16, k=1, pad=0)), 2)
    add("conv5x5_residual_left_bigk", (1, 32, 10, 10),
        lambda c: [c.add_values("x", c.conv("x", 32, k=5, pad=2))], 1)
    # The residual is an intermediate (not the Conv's input) whose last use is the fused Conv,
    # and the sum is one too, so the output takes the residual's buffer (in place); 7x7 = 49
    # columns: the last one goes through the per-element store.
    add("pointwise_residual_inplace", (1, 8, 7, 7),
        lambda c: (lambda a: [c.conv(c.add_values(
            c.conv(c.act("Relu", c.conv(a, 16, k=1, pad=0)), 16, k=1, pad=0), a), 8, k=1, pad=0)])(
            c.act("Relu", c.conv("x", 16, k=1, pad=0))), 4)
    # The same on a 16x16 plane, whose B the pointwise GEMM reads in place (conv_b_in_place):
    # five whole panels and a packed remainder, the output in the residual's buffer.
    add("pointwise_residual_inplace_b", (1, 8, 16, 16),
        lambda c: (lambda a: [c.conv(c.add_values(
            c.conv(c.act("Relu", c.conv(a, 16, k=1, pad=0)), 16, k=1, pad=0), a), 8, k=1, pad=0)])(
            c.act("Relu", c.conv("x", 16, k=1, pad=0))), 4)
    # A residual fused into a Conv on output-channel vectors (kConvChanVec: the tile adds it as
    # it stores, in place of the residual's buffer): a strided 3x3 conv beside a 1x1 downsample
    # (two 7-pixel tiles per row, a partial channel block of 40 = 32 + 8) and a stride-1 3x3
    # conv over a 5x7 plane from 272 channels, whose 4.5 MB U over 12 tiles Winograd leaves
    # (conv_params.h conv_cv_preferred, 32 vector registers; im2col with 16).
    add("chan_vec_residual_strided", (1, 24, 14, 14),
        lambda c: [c.act("Relu", c.add_values(
            c.conv("x", 40, stride=2), c.act("Relu", c.conv("x", 40, k=1, stride=2, pad=0))))], 2)
    # The same from 192 channels (a half block's 192 x 9 x 16 weights exceed kCvFlatWholeBytes on
    # 16-register targets: the flat tiles run in chunks of channels) on a 14 -> 7 plane (flat
    # 6-pixel tiles across rows, the last of 1), the sum read by a 1x1 conv, so that the fused
    # conv's output is an intermediate that takes the residual's buffer. Regression: the first
    # chunk's partial sums, stored there, overwrote the residual before the last chunk added
    # it (resnet18's 512-channel 7x7 convs were wrong on AVX2).
    add("chan_vec_residual_chunks", (1, 192, 14, 14),
        lambda c: [c.conv(c.act("Relu", c.add_values(
            c.conv("x", 48, stride=2), c.act("Relu", c.conv("x", 48, k=1, stride=2, pad=0)))),
            8, k=1, pad=0)],
        {"nodes": 3, "atol": 1e-3})
    # (2448 products per output, |y| up to ~40: float32 sums differ from the float64 reference
    # by up to ~2e-4 where they cancel to near 0, so atol 1e-3)
    add("chan_vec_residual_small_plane", (1, 272, 5, 7),
        lambda c: [c.act("Relu", c.add_values(
            c.conv("x", 256), c.act("Relu", c.conv("x", 256, k=1, pad=0))))],
        {"nodes": 2, "atol": 1e-3})
    add("depthwise_residual_kept", (1, 8, 10, 10),
        lambda c: [c.add_values(c.conv("x", 8, group=8), "x")], 2)
    add("conv_broadcast_add_kept", (1, 6, 8, 8),
        lambda c: [c.add_values(c.conv("x", 6, k=1, pad=0),
                                c.node("GlobalAveragePool", ["x"],
                                       c.val["x"].mean(axis=(2, 3), keepdims=True)))], 3)
    add("conv_relu_then_residual", (1, 8, 8, 8),
        lambda c: [c.add_values(c.act("Relu", c.conv("x", 8)), "x")], 2)
    # The Conv output is also a graph output / used twice: nothing may be fused.
    add("conv_shared_output", (1, 3, 6, 6),
        lambda c: (lambda y: [y, c.act("Relu", y)])(c.conv("x", 4)), 2)
    add("conv_two_users", (1, 3, 6, 6),
        lambda c: (lambda y: [c.act("Relu", y), c.act("Sigmoid", y)])(c.conv("x", 4)), 3)
    # fuse-channel-scale: a squeeze-excite's x * Sigmoid(Conv(GlobalAveragePool(x))) before a
    # pointwise conv is the conv of x with W's columns scaled (the Mul is gone), also with the
    # scale on the left, with the block's residual Add (fused too), with conv-paths off
    # (im2col reads the scaled W) and with pack-weights off (W scaled as given); kept when the conv's output channels exceed half the
    # plane's pixels (W's copy would cost more than the Mul), for batch 2 and for a 3x3 conv.
    def se(c, x, left=False):
        g = c.node("GlobalAveragePool", [x], c.val[x].mean(axis=(2, 3), keepdims=True))
        sg = c.act("Sigmoid", c.conv(g, c.val[x].shape[1], k=1, pad=0))
        return c.node("Mul", [sg, x] if left else [x, sg], c.val[x] * c.val[sg])
    add("se_scale_pointwise", (1, 16, 12, 12), lambda c: [c.conv(se(c, "x"), 8, k=1, pad=0)], 3)
    add("se_scale_left_residual", (1, 16, 9, 11),
        lambda c: [c.add_values(c.conv(se(c, "x", left=True), 16, k=1, pad=0), "x")], 3)
    add("se_scale_im2col", (1, 24, 10, 10), lambda c: [c.conv(se(c, "x"), 40, k=1, pad=0)],
        {"nodes": 3, "on": ["--disable-pass=conv-paths"]})
    add("se_scale_unpacked", (1, 16, 12, 12), lambda c: [c.conv(se(c, "x"), 20, k=1, pad=0)],
        {"nodes": 3, "on": ["--disable-pass=pack-weights"]})
    add("se_scale_wide_m_kept", (1, 16, 4, 4), lambda c: [c.conv(se(c, "x"), 12, k=1, pad=0)], 4)
    add("se_scale_batch2_kept", (2, 16, 8, 8), lambda c: [c.conv(se(c, "x"), 8, k=1, pad=0)], 4)
    add("se_scale_3x3_kept", (1, 16, 8, 8), lambda c: [c.conv(se(c, "x"), 8)], 4)
    # plan-memory's Concat in place (compared with --disable-pass=concat-in-place): a
    # SqueezeNet fire module, whose expand convs write their halves of the Concat's output
    # (16 channels of 12x12: 9216 bytes, 64-byte aligned), then a conv reads it; kept where an
    # input's run would start unaligned (3 channels of 5x5) or is not one run (batch 2).
    def fire(c, e1, e3):
        s = c.act("Relu", c.conv("x", 8, k=1, pad=0))
        cat = c.concat([c.act("Relu", c.conv(s, e1, k=1, pad=0)), c.act("Relu", c.conv(s, e3))])
        return [c.conv(cat, 8, k=1, pad=0)]
    off = ["--disable-pass=concat-in-place"]
    add("concat_fire_in_place", (1, 16, 12, 12), lambda c: fire(c, 16, 16),
        {"nodes": 5, "off": off, "concats": 1})
    add("concat_unaligned_kept", (1, 16, 5, 5), lambda c: fire(c, 3, 16),
        {"nodes": 5, "off": off, "concats": 0})
    add("concat_batch2_kept", (2, 16, 12, 12), lambda c: fire(c, 16, 16),
        {"nodes": 5, "off": off, "concats": 0})
    return cases


def main(out_dir):
    for case, outputs, expect in build_cases():
        case.save(out_dir, outputs, expect)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
